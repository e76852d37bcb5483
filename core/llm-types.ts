/**
 * The one chat interface planner and executor activities use, whatever the provider.
 * Serializable: these values cross the workflow/activity boundary.
 */

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      tool_calls?: ToolCall[];
      /** Memory holds provider state this turn carries to the next ({@link ChatResponse.carried}). */
      carried?: true;
      /**
       * That provider state ({@link RawChatResponse.carry}), read back from memory by the
       * activity that sends the step's next turn. Never in a workflow's history: set only inside
       * the activity, for the adapter.
       */
      carry?: unknown;
    }
  | { role: 'tool'; tool_call_id: string; name: string; content: string; is_error?: boolean };

/** A tool offered to the model for function calling. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's input object. */
  input_schema: Record<string, unknown>;
  /** Strict function calling (the tool entry's `attributes.strict`), where the interface has it. */
  strict?: boolean;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /**
   * What the tokens cost in US dollars: the model's price (the agent file's `price`, else the
   * price table) times the tokens. `null` when the model has no known price, or when any call
   * it sums up had none (an unknown part makes the whole unknown; see {@link addCost}). Absent
   * in usage recorded before costs were computed, which counts as unknown when added.
   */
  cost_usd?: number | null;
  /**
   * Of `input_tokens`, those read from the provider's prompt cache (priced at the cached-input
   * rate) and those written to it (Bedrock: priced at its cache-write rate). Absent when none.
   */
  cached_input_tokens?: number;
  cache_write_input_tokens?: number;
  /**
   * Set when a call it sums up reported no token counts (a compatible server that sends no
   * usage): the counts are those that were reported, a lower bound, and the cost is unknown
   * (null). Absent when every call reported its tokens.
   */
  tokens_unknown?: true;
}

export interface ChatResponse {
  content: string;
  tool_calls: ToolCall[];
  stop_reason: 'end_turn' | 'tool_use' | 'max_tokens' | 'other';
  usage: Usage;
  /** The provider's answer carries state to the step's next turn, kept in memory: the assistant message says so (`carried`). */
  carried?: true;
}

/** A provider's answer with its raw response, for `llm_response_filter`; the raw part never leaves the activity. */
export interface RawChatResponse extends ChatResponse {
  raw?: unknown;
  /**
   * What the provider requires handed back unchanged on the next turn of the same step, as the
   * adapter's own JSON (Anthropic's thinking blocks with their signatures, the Responses API's
   * reasoning items, Gemini's thought signatures): kept in memory by the execution activity, by
   * the turn's tool calls, and given back on the assistant message as `carry`, so it never
   * enters a workflow's history. Only a turn that calls tools carries (a final answer has no
   * next turn).
   */
  carry?: unknown;
}

/**
 * Where a call sits in the run. The scripted model answers by position, so retries, worker
 * restarts and replays get the same answer.
 */
export type CallPosition =
  | { role: 'planner'; call: number }
  | { role: 'task'; kind: TaskKind; call: number }
  | { role: 'executor'; step: number; iteration: number }
  | { role: 'summary' }
  /** A prompt's oldest part summarized to fit the model's context window (activities/context-window.ts). */
  | { role: 'compaction' };

/**
 * Model calls of the step_by_step, todo_list and plan_and_execute agents besides planning, by
 * what they do, an eval's judge (`judge`), a typed answer (`output`), a guardrail's judge (`guardrail`), an answer revised for a guardrail (`revision`) and an online score's judge (`score`); a scripted model answers each kind from its own list
 * (`script.<kind>[call]`).
 */
export const TASK_KINDS = ['mapping', 'decision', 'decision_retry', 'completion', 'completion_retry', 'goal', 'verification', 'viability', 'final', 'judge', 'output', 'guardrail', 'revision', 'score'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

export const ZERO_USAGE: Usage = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = { input_tokens: a.input_tokens + b.input_tokens, output_tokens: a.output_tokens + b.output_tokens, cost_usd: addCost(a.cost_usd, b.cost_usd) };
  // The cache counts only where a call reported some: usage without a prompt cache keeps its shape.
  for (const key of ['cached_input_tokens', 'cache_write_input_tokens'] as const) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  // Like an unknown cost, an unknown part makes the whole count a lower bound.
  if (a.tokens_unknown || b.tokens_unknown) sum.tokens_unknown = true;
  return sum;
}

/**
 * The sum of two costs, `null` (unknown) when either is unknown: a run, step or total with any
 * unpriced model call has no cost rather than a partial one that looks whole. Absent counts as
 * unknown (usage recorded before costs were computed). Rounded to 1e-12 dollars, so sums of
 * small prices do not show floating-point residue.
 */
export function addCost(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined) return null;
  return Math.round((a + b) * 1e12) / 1e12;
}
