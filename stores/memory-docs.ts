/** The documents of conversation memory as MongoDB holds them (see store.ts). */

/**
 * Who wrote an interaction. `reviewer`: a person's decision (plan or tool approval, guidance,
 * pause, resume); `compaction`: a summary of a prompt's oldest part, made to fit the model's
 * context window (activities/context-window.ts).
 */
export type Origin = 'user' | 'planner' | 'executor' | 'tool' | 'reviewer' | 'compaction';

export interface MemoryDoc {
  _id: string;
  memory_id: string;
  /** The first question of the conversation. */
  name: string;
  app_type: string;
  /** `planner` for the conversation, `executor` for the executor memory related to it. */
  role: 'planner' | 'executor';
  parent_memory_id?: string;
  /** The run's `tenant_id` parameter. */
  tenant_id?: string;
  /** The executor memory's `executor_agent_id` parameter (an ID from another system). */
  agent_id?: string;
  /** An executor memory: the executor root interaction of the run that created it (absent in memories created before). */
  first_run?: string;
  created: Date;
  updated: Date;
}

/** Where an agent tool's call ran: the sub-agent's run and memory. */
export interface SubRunLink {
  workflow_id: string;
  memory_id: string;
}

export interface InteractionDoc {
  _id: string;
  interaction_id: string;
  memory_id: string;
  /** The run's `tenant_id` parameter. */
  tenant_id?: string;
  parent_interaction_id: string | null;
  input: string;
  response: string;
  origin: Origin;
  trace_number: number | null;
  step_index?: number;
  tool_name?: string;
  /** origin `tool`: an agent tool's call, the sub-agent's run (its workflow and its own memory). */
  sub_run?: SubRunLink;
  /** Set on a root interaction when the run failed. */
  error?: string;
  /** Set on a root interaction when a newer message interrupted the run: that run's workflow ID (its response is the work so far). */
  interrupted_by?: string;
  /** A forked run's root interactions and copied steps: the run (and, for a copy, the record) it came from. */
  forked_from?: { workflow_id: string; step: number; interaction_id?: string };
  /** origin `reviewer`: the decision (kind, action, who, when — workflow time) and how many steps had run. */
  decision?: { kind: string; action: string; by: string; at: string; after_steps: number; decision_id?: string };
  created: Date;
  updated: Date;
}

/**
 * A run's static prompt material, stored once at its start — as JSON text: tool schemas have
 * keys (`$schema`, `$ref`) a document may not.
 */
export interface PromptMaterialDoc {
  _id: string;
  /** A run's prompt material (JSON), or: */
  material?: string;
  /** A part of a long run's earlier steps, as its prompts list them (by kind; see core/template `earlierStepsMarker`). */
  earlier?: Record<string, string>;
  /** Or the provider state an executor turn carries to the step's next turn (JSON; see activities/carried-turns.ts). */
  turn?: string;
  created: Date;
}
