/**
 * The agent's guardrails in the run: the question checked before any model call (its first
 * execution only), the answer before it is typed and the run ends; a failed `stop` guardrail ends
 * the run `tripped` (see lifecycle.ts), a failed `retry` one asks the planning model for a revised
 * answer with the reason, up to `guardrail_retries` times, a failed `ask` one waits for a person
 * (human/guardrail-ask.ts). Each check is an activity (a judge's
 * call is counted into the run's usage), so a restart repeats none.
 */
import { patched, workflowInfo } from '@temporalio/workflow';
import { addUsage } from '../../core/llm-types';
import { DEFAULT_GUARDRAIL_RETRIES, judgeCount, REVISION_SYSTEM_PROMPT, revisionPrompt, type GuardrailPlace, type GuardrailVerdict } from '../../core/guardrails';
import type { ModelSettings } from '../../core/activity-contract';
import type { RunContext } from './context';
import { ask } from './model-calls';
import { tenantOf } from './dollar-budget';

/** A `stop` guardrail failed (or a `retry` one after its retries): the run ends `tripped` with its verdict. */
export class GuardrailTripped extends Error {
  constructor(readonly verdict: GuardrailVerdict) {
    super(`${verdict.place} guardrail ${verdict.check}: ${verdict.detail}`);
    this.name = 'GuardrailTripped';
  }
}

/** The judges' model: a scripted one carries only its guardrail answers (not the run's whole script). */
function judgesModel(run: RunContext): ModelSettings {
  const llm = run.agent.llm;
  return llm.interface === 'scripted' && llm.script ? { ...llm, script: { guardrail: llm.script.guardrail ?? [] } } : llm;
}

async function verdictsOn(run: RunContext, place: GuardrailPlace, text: string, firstJudge: number): Promise<GuardrailVerdict[]> {
  const guardrails = run.agent.guardrails?.[place] ?? [];
  const { verdicts, usage } = await run.models.guardrails().executeWithOptions({ summary: `${place} guardrails` }, [
    { place, guardrails, text, question: run.question, model: judgesModel(run), first_judge: firstJudge, agent: run.agent.name, memory_id: run.ids.memory_id, ...tenantOf(run) },
  ]);
  run.progress.usage = addUsage(run.progress.usage, usage);
  for (const v of verdicts) {
    run.events.emit(v.passed ? { type: 'guardrail_passed', place, check: v.check, detail: v.detail } : { type: 'guardrail_tripped', place, check: v.check, detail: v.detail, action: v.on_fail });
  }
  return verdicts;
}

/** A failed `stop` guardrail among the verdicts, else a failed `ask` one (a person decides before a revision is asked for), else the first failed one. */
const failedOf = (verdicts: GuardrailVerdict[]) =>
  verdicts.find((v) => !v.passed && v.on_fail === 'stop') ?? verdicts.find((v) => !v.passed && v.on_fail === 'ask') ?? verdicts.find((v) => !v.passed);

/** Only runs with an `ask` guardrail that failed reach it: runs recorded before never did. */
const GUARDRAIL_ASK_PATCH = 'guardrail-ask';

/**
 * A failed `ask` guardrail put to a person: returns when they let the run through; a rejection
 * (or `approval_timeout` rejecting) ends the run `tripped`. @throws GuardrailTripped
 */
export async function askPerson(run: RunContext, failed: GuardrailVerdict): Promise<void> {
  patched(GUARDRAIL_ASK_PATCH);
  const answer = await run.human.askGuardrail(failed);
  if (answer.action === 'approve') return;
  throw new GuardrailTripped({ ...failed, detail: `${failed.detail}; rejected by ${answer.by}: ${answer.reason ?? 'no reason given'}` });
}

/** Checks the question against the input guardrails, once per run (not again after continue-as-new). @throws GuardrailTripped */
export async function checkInput(run: RunContext): Promise<void> {
  if (!run.agent.guardrails?.input?.length || workflowInfo().continuedFromExecutionRunId !== undefined) return;
  const failed = failedOf(await verdictsOn(run, 'input', run.question, 0));
  if (failed?.on_fail === 'ask') return askPerson(run, failed);
  if (failed) throw new GuardrailTripped(failed);
}

/** The answer once the output guardrails pass it, revised for a failed `retry` guardrail. @throws GuardrailTripped */
export async function guardedAnswer(run: RunContext, response: string): Promise<string> {
  const { guardrails, guardrail_retries } = run.agent;
  if (!guardrails?.output?.length) return response;
  const retries = guardrail_retries ?? DEFAULT_GUARDRAIL_RETRIES;
  const [inputJudges, judgesPerCheck] = [judgeCount(guardrails.input), judgeCount(guardrails.output)];
  let answer = response;
  for (let attempt = 0; ; attempt++) {
    const failed = failedOf(await verdictsOn(run, 'output', answer, inputJudges + attempt * judgesPerCheck));
    if (!failed) return answer;
    if (failed.on_fail === 'ask') {
      await askPerson(run, failed);
      return answer;
    }
    if (failed.on_fail === 'stop' || attempt >= retries) throw new GuardrailTripped(failed);
    answer = await ask(run, {
      model: 'planning',
      position: { role: 'task', kind: 'revision', call: attempt },
      summary: `revision: output guardrail ${failed.check}`,
      system: REVISION_SYSTEM_PROMPT,
      prompt: revisionPrompt(run.question, answer, failed),
    });
  }
}
