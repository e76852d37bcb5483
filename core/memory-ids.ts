/**
 * Memory IDs. Interaction IDs are derived from the run's IDs and positions, so every write is
 * an idempotent upsert without extra workflow state. Pure: workflows import it too.
 */

/** The seed's four IDs of a run: its memories and root interactions. */
export interface RunIds {
  memory_id: string;
  parent_interaction_id: string;
  executor_agent_memory_id: string;
  executor_agent_parent_interaction_id: string;
}

/**
 * The run's IDs as memory operations receive them, with the tenant every memory document and
 * interaction of the run is stamped with (`tenant_id` parameter).
 */
export interface MemoryIds extends RunIds {
  tenant_id?: string;
}

/** Where a tool call is recorded: the executor step it belongs to and its place in that step. */
export interface ToolCallPlace {
  ids: MemoryIds;
  stepIndex: number;
  callIndex: number;
}

/** The planner memory's trace of a step, under the run's root interaction. */
export const stepTraceId = (parentInteractionId: string, stepIndex: number) => `${parentInteractionId}:step-${stepIndex + 1}`;
/** The executor memory's record of a step. */
export const executorStepId = (ids: MemoryIds, stepIndex: number) => `${ids.executor_agent_parent_interaction_id}:step-${stepIndex + 1}`;
export const toolCallId = (place: ToolCallPlace) => `${executorStepId(place.ids, place.stepIndex)}:tool-${place.callIndex + 1}`;
