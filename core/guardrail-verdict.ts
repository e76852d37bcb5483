/** A guardrail's verdict, where evals and runs both read it (core/guardrails.ts has the rest). */

/** Where a guardrail checks: the run's question, its answer, or each tool's output before the model sees it. */
export type GuardrailPlace = 'input' | 'output' | 'tool_output';
/** What a guardrail that fails does: end the run, ask for a revised answer, or let a person decide in the inbox. */
export type GuardrailAction = 'stop' | 'retry' | 'ask';

/** One guardrail's verdict on a text. */
export interface GuardrailVerdict {
  place: GuardrailPlace;
  /** The check as one line, e.g. `not_contains "sk-"`. */
  check: string;
  passed: boolean;
  /** Why, one line. */
  detail: string;
  on_fail: GuardrailAction;
}
