/**
 * perflow's own counters, emitted through the Temporal runtime's meter beside the SDK's
 * `temporal_…` metrics: runs and steps counted by the workflows (never during replay), tokens and
 * tool calls by the activities. The names are exported as they are: with a Prometheus
 * endpoint, `/metrics` shows exactly these names. Pure constants: workflow code may load them.
 */
export const PERFLOW_METRICS = {
  /** Runs that ended, by `agent_type` and `status` (`completed`, `failed`, `cancelled`); a continue-as-new is not an end. */
  runs: 'perflow_runs_total',
  /** Executed steps (or iterations, or todos), by `agent_type`. */
  steps: 'perflow_steps_total',
  /** Model tokens, by `model` and `direction` (`input`, `output`). */
  tokens: 'perflow_tokens_total',
  /**
   * What model calls cost in US dollars, by `model` and `agent` (the agent file's `name`); calls
   * of a model with no known price add nothing. A float gauge holding the worker process's
   * running sum (the runtime's counters take whole numbers only): read it as a counter.
   */
  cost: 'perflow_cost_usd_total',
  /** Tool calls, by `tool` (the name the model calls it by). */
  toolCalls: 'perflow_tool_calls_total',
  /** Tool calls whose observation is an error, by `tool`. */
  toolErrors: 'perflow_tool_errors_total',
} as const;
