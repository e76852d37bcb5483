/**
 * How every run ends or goes on: the final result, failure and cancellation recorded in
 * memory, the `PerflowStatus` search attribute, and — between steps — the token budget and
 * continue-as-new with the carried state.
 */
import { CancellationScope, ContinueAsNew, continueAsNew, isCancellation, log, makeContinueAsNewFunc, patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { addUsage } from '../../core/llm-types';
import { MAX_STEPS_SUMMARY_PROMPT_TEMPLATE, MAX_STEPS_SUMMARY_SYSTEM_PROMPT, tokenBudgetReachedMessage } from '../../core/prompts';
import { preview } from '../../core/text';
import { EVENT_PREVIEW_CHARS, eventOutput, type RunEventBody } from '../../core/run-events';
import type { EarlierStepsRef } from '../../core/activity-contract';
import { SearchAttributes, type CarriedState, type RunOutput } from './definitions';
import { memoryActivities } from './activity-presets';
import { causeMessage, completedStepRefs, ROOTS_AT_END_PATCH, type RunContext } from './context';
import type { RunOutcome } from '../../activities/run-memory';
import { responseFilter } from './model-calls';
import { modelForCall } from './scripted-calls';
import { countRun } from './metrics';
import { endRunSpan } from './run-span';
import { interruptedAnswer, interruptedMessage } from './run-order';
import { BudgetStop, budgetMetadata, tenantOf } from './dollar-budget';
import { checkInput, GuardrailTripped } from './guardrails';
import { trippedResponse, type GuardrailVerdict } from '../../core/guardrails';
import { announceEnd } from './webhook';
import { startScoring } from './scoring';

/**
 * Patches of capabilities that came to the other agent types with the kernel: runs recorded
 * before never stopped on a token budget nor continued-as-new.
 */
const TOKEN_BUDGET_PATCH = 'agent-types-token-budget';
const CONTINUE_AS_NEW_PATCH = 'agent-types-continue-as-new';
/** plan_execute_and_reflect runs recorded before the status attribute existed replay without it. */
const STATUS_PATCH = 'perflow-status-search-attribute';
const CARRIED_STEPS_PATCH = 'carried-steps-window';

const isPlanExecuteReflect = (run: RunContext) => run.agent.type === 'plan_execute_and_reflect';

/** Ends the run with its response (and its typed `output`, see typed-output.ts): written to memory, shown in progress, returned. */
export async function finish(run: RunContext, response: string, metadata?: Record<string, unknown>, end: { output?: unknown; tripped?: GuardrailVerdict } = {}): Promise<RunOutput> {
  const { ids, progress } = run;
  const { output, tripped } = end;
  const status = tripped ? 'tripped' : 'completed';
  await run.human.settle();
  await recordEnd(run, { response }, { type: 'run_finished', status, response: preview(response, EVENT_PREVIEW_CHARS), ...eventOutput(output) });
  progress.status = status;
  progress.result = response;
  if (output !== undefined) progress.output = output;
  if (tripped) progress.tripped = tripped;
  setStatusAttribute(run, status);
  run.showProgress();
  countRun(run.agent.type, status);
  endRunSpan(progress.usage);
  await announceEnd(run, { status, response });
  await startScoring(run, { status, response, ...end });
  const assumed = progress.assumed_verdicts ? { assumed_verdicts: progress.assumed_verdicts } : {};
  const budget = budgetMetadata(run);
  const meta = metadata || progress.assumed_verdicts || Object.keys(budget).length > 0 ? { metadata: { ...metadata, ...assumed, ...budget } } : {};
  return { ...ids, response, ...(output !== undefined ? { output } : {}), ...(tripped ? { tripped } : {}), usage: progress.usage, steps_executed: progress.steps_executed, ...meta };
}

/**
 * Runs an agent type's body. A failure — cancellation included — is recorded in memory
 * (`Agent execution failed: …`), progress and the status attribute, then fails the run;
 * continue-as-new is not a failure.
 */
export async function guard(run: RunContext, body: () => Promise<RunOutput>): Promise<RunOutput> {
  try {
    // A question the input guardrails refuse costs only them.
    await checkInput(run);
    return await body();
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // A guardrail stopped the run: it ends, `tripped`, with why.
    if (err instanceof GuardrailTripped) return finish(run, trippedResponse(err.verdict), undefined, { tripped: err.verdict });
    // The dollar budget ends the run with the work so far (budget_action stop, or reject --stop).
    if (err instanceof BudgetStop) return finish(run, err.response(await summarizeSteps(run, err.tenant === undefined), run.ids.memory_id));
    const { progress } = run;
    const interruptedBy = isCancellation(err) ? progress.interrupted_by : undefined;
    progress.status = 'failed';
    progress.error = interruptedBy !== undefined ? interruptedMessage(interruptedBy) : causeMessage(err);
    progress.current_step = undefined;
    setStatusAttribute(run, 'failed');
    // Recorded even when the run is being cancelled; an interrupted run's work so far is its answer, which the conversation keeps.
    const record = interruptedBy !== undefined ? { response: interruptedAnswer(progress), interrupted_by: interruptedBy } : { response: '', error: progress.error };
    const finished = { type: 'run_finished' as const, status: isCancellation(err) ? ('cancelled' as const) : ('failed' as const), response: '', error: preview(progress.error, EVENT_PREVIEW_CHARS) };
    await CancellationScope.nonCancellable(() => recordEnd(run, record, finished));
    // A cancelled run's end is announced too: its delivery starts outside the cancelled scope.
    await CancellationScope.nonCancellable(() => announceEnd(run, { status: finished.status, ...(record.response ? { response: record.response } : {}), error: progress.error }));
    countRun(run.agent.type, isCancellation(err) ? 'cancelled' : 'failed');
    endRunSpan(progress.usage);
    throw err;
  }
}

/**
 * Writes how the run ended to memory — its root interactions, question and answer, in one insert
 * (runs recorded before wrote the roots at start and the answer onto them here) — then `finished`
 * to its stream: handed to that activity, which writes it (with what the run held) once the
 * roots are written, so the run's last workflow task writes nothing; should it fail, the run does.
 */
async function recordEnd(run: RunContext, outcome: Omit<RunOutcome, 'ids'>, finished: Extract<RunEventBody, { type: 'run_finished' }>): Promise<void> {
  const ids = run.memoryIds;
  if (!patched(ROOTS_AT_END_PATCH)) {
    await memoryActivities.finishRun({ ids, ...outcome });
    return run.events.emit(finished);
  }
  const forked = run.progress.forked_from ? { forked_from: run.progress.forked_from } : {};
  run.events.emit(finished);
  const closing = run.events.handHeld();
  try {
    await memoryActivities.endRun({ ids, ...outcome, question: run.question, started_at: run.startedAt, ...forked, ...(closing.events.length > 0 ? { closing } : {}) });
  } catch (err) {
    // What the run held goes again; its end, as the run ends after all (a cancelled run's, say).
    run.events.putBack({ events: closing.events.slice(0, -1), keys: closing.keys.slice(0, -1) });
    throw err;
  }
}

/** The run's end status as a search attribute, when the client set perflow's attributes at start. */
function setStatusAttribute(run: RunContext, status: 'completed' | 'failed' | 'tripped'): void {
  if (isPlanExecuteReflect(run) && !patched(STATUS_PATCH)) return;
  if (workflowInfo().typedSearchAttributes.get(SearchAttributes.agent) === undefined) return;
  upsertSearchAttributes([{ key: SearchAttributes.status, value: status }]);
}

export interface Checkpoint<S> {
  /** The agent type's state to carry into the next execution. */
  state?: () => S;
  /**
   * Before a continue-as-new: moves what the state need not carry (a long run's earliest steps)
   * to memory, so the next execution's input stays small (see {@link storeEarlierSteps}).
   */
  fold?: () => Promise<void>;
  /** The plan_execute_and_reflect planner's call counter (carried at the top level, as runs recorded before the kernel carry it). */
  plannerCalls?: number;
  /** plan_execute_and_reflect: the planner calls made by the end of each executed step (where a fork's planner goes on). */
  plannerCallsAfter?: number[];
  /** Metadata of the run output when the budget ends the run. */
  metadata?: () => Record<string, unknown>;
}

/**
 * Between steps: ends the run when the token budget is used up (returns its output), or
 * continues-as-new (throws) when the history is long; otherwise returns undefined.
 */
export async function checkpoint<S>(run: RunContext<S>, at: Checkpoint<S>): Promise<RunOutput | undefined> {
  const { p, progress } = run;
  await run.human.holdWhilePaused();
  if (progress.steps_executed === 0) return undefined;
  const used = progress.usage.input_tokens + progress.usage.output_tokens;
  if (p.token_budget > 0 && used >= p.token_budget && (isPlanExecuteReflect(run) || patched(TOKEN_BUDGET_PATCH))) {
    return finish(run, tokenBudgetReachedMessage(p.token_budget, used, await summarizeSteps(run), run.ids.memory_id), at.metadata?.());
  }
  if (historyIsLong(run) && (isPlanExecuteReflect(run) || patched(CONTINUE_AS_NEW_PATCH))) {
    await at.fold?.();
    const carried: CarriedState<S> = {
      plan: progress.plan,
      ...completedStepRefs(run),
      history_count: run.historyCount,
      ...(run.promptFormat !== 'perflow' ? { prompt_format: run.promptFormat } : {}),
      ...carriedSteps(progress),
      steps_executed: progress.steps_executed,
      usage: progress.usage,
      planner_calls: at.plannerCalls ?? 0,
      ...(at.plannerCallsAfter ? { planner_calls_after: at.plannerCallsAfter } : {}),
      tools: run.tools,
      continued: (run.carried?.continued ?? 0) + 1,
      started_at: run.startedAt,
      ...(run.materialId !== undefined ? { material_id: run.materialId } : {}),
      ...(at.state ? { agent_state: at.state() } : {}),
      ...humanCarried(run),
      ...(progress.assumed_verdicts ? { assumed_verdicts: progress.assumed_verdicts } : {}),
    };
    endRunSpan(progress.usage);
    const next = { ...run.input, ids: run.ids, memory_id: undefined, carried };
    // A run pinned to a Worker Deployment version goes on on the deployment's current one when that changed (runs of unversioned workers never see it changed).
    if (workflowInfo().targetWorkerDeploymentVersionChanged) await makeContinueAsNewFunc<(input: typeof next) => Promise<RunOutput>>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(next);
    await continueAsNew(next);
  }
  return undefined;
}

/** The completed steps a run carries into its next execution: a long run's latest ones only, so its input stays small however many it ran. */
export const CARRIED_STEPS = 50;

function carriedSteps(progress: RunContext['progress']): Pick<CarriedState, 'completed_steps' | 'completed_steps_omitted'> {
  const { completed_steps: steps, completed_steps_omitted: omitted = 0 } = progress;
  if (steps.length <= CARRIED_STEPS || !patched(CARRIED_STEPS_PATCH)) return { completed_steps: steps, ...(omitted ? { completed_steps_omitted: omitted } : {}) };
  return { completed_steps: steps.slice(-CARRIED_STEPS), completed_steps_omitted: omitted + steps.length - CARRIED_STEPS };
}

/**
 * Stores the texts a run's prompts show of steps its state stops carrying, as the next part
 * of its earlier steps (`earlierStepsMarker`s in later prompts read them back); returns where
 * they are now.
 */
export async function storeEarlierSteps(run: RunContext, at: EarlierStepsRef | undefined, texts: Record<string, string>): Promise<EarlierStepsRef> {
  const ref = at ?? { id: `${run.ids.parent_interaction_id}:earlier-steps`, chunks: 0 };
  const tenant = run.memoryIds.tenant_id;
  await memoryActivities.saveEarlierSteps({ id: `${ref.id}-${ref.chunks}`, texts, ...(tenant !== undefined ? { tenant_id: tenant } : {}) });
  return { id: ref.id, chunks: ref.chunks + 1 };
}

/** The human loop's state, when a person took part (runs without decisions carry nothing new). */
function humanCarried(run: RunContext): Pick<CarriedState, 'human' | 'decisions'> {
  const { state } = run.human;
  const took = state.plans_reviewed > 0 || state.feedback.length > 0 || (run.progress.decisions ?? []).length > 0 || state.budget_waits !== undefined || state.max_cost_usd !== undefined;
  return took ? { human: state, ...(run.progress.decisions ? { decisions: run.progress.decisions } : {}) } : {};
}

/** Whether to continue-as-new before the next step, keeping each execution's history bounded. */
function historyIsLong(run: RunContext): boolean {
  const info = workflowInfo();
  const limit = run.p.continue_as_new_after_events;
  return info.continueAsNewSuggested || (limit > 0 && info.historyLength >= limit);
}

/**
 * A summary of the completed steps by the planning model; a plain listing when that call fails,
 * when the tenant's daily cap keeps it from being made, or after a stop at that cap.
 */
export async function summarizeSteps(run: RunContext, byModel = true): Promise<string> {
  const { progress } = run;
  const listing = () => `Completed steps:\n${progress.completed_steps.map((s, i) => `${(progress.completed_steps_omitted ?? 0) + i + 1}. ${s.step}: ${preview(s.result_preview, 300)}`).join('\n')}`;
  if (!byModel) return listing();
  try {
    const answer = await run.models.summary().executeWithOptions({ summary: 'planner: max-steps summary' }, [
      {
        model: modelForCall(run.agent.llm, { role: 'summary' }),
        system: MAX_STEPS_SUMMARY_SYSTEM_PROMPT,
        render: {
          template: MAX_STEPS_SUMMARY_PROMPT_TEMPLATE,
          ...(run.materialId !== undefined ? {} : { params: run.params }),
          steps: progress.plan,
          ...completedStepRefs(run),
        },
        ...(run.materialId !== undefined ? { material_id: run.materialId } : {}),
        position: { role: 'summary' },
        ...responseFilter(run, 'planning'),
        agent: run.agent.name,
        ...tenantOf(run),
      },
    ]);
    progress.usage = addUsage(progress.usage, answer.usage);
    return answer.tenant_budget ? listing() : answer.text;
  } catch (err) {
    log.warn('summary call failed; listing the completed steps instead', { error: causeMessage(err) });
    return listing();
  }
}
