/**
 * The guardrail activity: a text (the run's question or answer) scored by the agent's guardrail
 * checks, as an eval scores a response (core/eval/checks.ts); a judge asks its model here, its
 * call counted into the run's usage and the tenant's day.
 */
import type { CallOwner, ModelSettings } from '../core/activity-contract';
import { scoreCase } from '../core/eval/checks';
import type { GuardrailPlace, GuardrailVerdict, Guardrail } from '../core/guardrails';
import { addUsage, ZERO_USAGE, type Usage } from '../core/llm-types';
import type { ModelCallDeps } from './model-calls';
import { withHeartbeat } from './heartbeat';
import { askJudge } from './judge-call';

export interface GuardrailInput extends CallOwner {
  place: GuardrailPlace;
  guardrails: Guardrail[];
  /** The text checked: the question (input) or the answer (output). */
  text: string;
  question: string;
  /** The model of judges without their own `llm` (the agent's planning model). */
  model: ModelSettings;
  /** The position of the first judge's call (task kind `guardrail`); the next judges follow. */
  first_judge: number;
  memory_id?: string;
}

export interface GuardrailOutcome {
  verdicts: GuardrailVerdict[];
  usage: Usage;
}

export async function checkGuardrails(deps: ModelCallDeps, input: GuardrailInput): Promise<GuardrailOutcome> {
  return withHeartbeat(() => scoreText(deps, input));
}

async function scoreText(deps: ModelCallDeps, input: GuardrailInput): Promise<GuardrailOutcome> {
  let usage = ZERO_USAGE;
  let judged = 0;
  const checks = input.guardrails.map(({ on_fail: _action, ...check }) => check);
  // A text to check, as an eval's completed run with that response.
  const obs = { status: 'completed', response: input.text, tools_called: [], steps: 0, usage: ZERO_USAGE, duration_ms: 0 };
  const results = await scoreCase(checks, obs, async (check) => {
    const position = { role: 'task' as const, kind: 'guardrail' as const, call: input.first_judge + judged++ };
    const owner = { ...(input.tenant !== undefined ? { tenant: input.tenant } : {}), ...(input.agent !== undefined ? { agent: input.agent } : {}), ...(input.memory_id !== undefined ? { conversation: input.memory_id } : {}) };
    const verdict = await askJudge(deps, { check, model: input.model, question: input.question, response: input.text, position, ...owner, who: "the guardrail's judge" });
    usage = addUsage(usage, verdict.usage);
    return verdict;
  });
  return { verdicts: results.map((r, i) => ({ place: input.place, check: r.check, passed: r.passed, detail: r.detail, on_fail: input.guardrails[i].on_fail })), usage };
}
