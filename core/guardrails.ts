/**
 * Guardrails as workflow code knows them: where they check (the question before any model call,
 * each tool's output before the model sees it, the answer before the run ends), what a failed one does (`stop`: the run ends `tripped`;
 * `retry`: the answer is asked again with the reason, bounded; `ask`: a person decides in the inbox), what a check said, and the
 * prompt that asks for a revised answer. Pure: the checks are scored by an activity (eval checks,
 * judges included).
 */
import type { EvalCheck } from './eval/types';
import type { GuardrailAction, GuardrailPlace, GuardrailVerdict } from './guardrail-verdict';

export type { GuardrailAction, GuardrailPlace, GuardrailVerdict };

export const GUARDRAIL_ACTIONS: readonly GuardrailAction[] = ['stop', 'retry', 'ask'];

/** A guardrail: one eval check on the text, and what its failure does. */
export type Guardrail = EvalCheck & { on_fail: GuardrailAction };

/** An agent file's guardrails by place. */
export interface Guardrails {
  input?: Guardrail[];
  output?: Guardrail[];
  tool_output?: Guardrail[];
}

/** The check kinds a guardrail may use: those that read a text (a run's own measures have no text to read). */
export const GUARDRAIL_CHECK_KINDS = ['contains', 'not_contains', 'regex', 'not_regex', 'equals', 'json_path', 'judge'] as const;

/** How many times an answer an output guardrail with `retry` refuses is asked again, unless `guardrail_retries` says. */
export const DEFAULT_GUARDRAIL_RETRIES = 2;
export const MAX_GUARDRAIL_RETRIES = 10;

/** The run's answer when a guardrail stopped it. */
export function trippedResponse(v: GuardrailVerdict): string {
  return `Stopped by the ${v.place} guardrail ${v.check}: ${v.detail}`;
}

/** What the model, memory and the stream see instead of a tool output a guardrail withheld (never the output, nor the match). */
export function withheldOutput(v: Pick<GuardrailVerdict, 'check' | 'on_fail'>): string {
  const then = v.on_fail === 'ask' ? 'a person decides whether the run goes on without it' : 'the run stops';
  return `Error: the tool's output was withheld: it failed the tool_output guardrail ${v.check}, and ${then}`;
}

/** Judge calls of guardrails are task calls of kind `guardrail`, numbered so every judge of a run has its own place (a scripted model answers `script.guardrail[N]`). */
export function judgeCount(guardrails: readonly Guardrail[] | undefined): number {
  return (guardrails ?? []).filter((g) => 'judge' in g).length;
}

export const REVISION_SYSTEM_PROMPT =
  'You revise an agent\'s answer so that it meets a requirement it failed, keeping everything else it says that is right. Reply with the revised answer alone.';

/** The prompt asking for a revised answer: the question, the answer, and what it failed. */
export function revisionPrompt(question: string, answer: string, failed: GuardrailVerdict): string {
  return `Question:\n${question}\n\nAnswer:\n${answer}\n\nThe answer failed a check (${failed.check}): ${failed.detail}\n\nReply with the revised answer alone.`;
}
