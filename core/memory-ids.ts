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

/** Completed-step IDs as a planner prompt reference carries them (see `PlannerPromptRef.run_steps`). */
export interface CompletedStepRefs {
  /** Absent: none (left out of the inputs that carry it, as in every call of a run without earlier exchanges). */
  completed_step_ids?: string[];
  run_steps?: { trace_root: string; count: number };
}

/**
 * The completed-step IDs of a prompt reference: the earlier exchanges as IDs, and this run's
 * step traces — when they are its steps 1…N in order — as a count.
 */
export function compactStepIds(ids: readonly string[], historyCount: number, traceRoot: string): CompletedStepRefs {
  const history = ids.slice(0, historyCount);
  const steps = ids.slice(historyCount);
  const inOrder = steps.length > 0 && steps.every((id, unit) => id === stepTraceId(traceRoot, unit));
  const listed = (list: readonly string[]) => (list.length > 0 ? { completed_step_ids: [...list] } : {});
  return inOrder ? { ...listed(history), run_steps: { trace_root: traceRoot, count: steps.length } } : listed(ids);
}

/** Every completed-step ID a prompt reference names, in order. */
export function completedStepIds(ref: CompletedStepRefs): string[] {
  const { run_steps } = ref;
  const steps = run_steps ? Array.from({ length: run_steps.count }, (_, unit) => stepTraceId(run_steps.trace_root, unit)) : [];
  return [...(ref.completed_step_ids ?? []), ...steps];
}
