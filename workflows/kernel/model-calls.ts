/**
 * Model calls of every agent type: one activity per call, usage added to the run's, the
 * agent's custom `llm_response_filter` applied to planning-model answers, and one parse-retry
 * loop for answers that must parse.
 */
import { ApplicationFailure, log, patched } from '@temporalio/workflow';
import type { CallOwner, EarlierStepsRef, MaterialRef, ModelSettings, PlannerAnswer, PlannerPromptRef, TenantChecked, WholeResultsRef } from '../../core/activity-contract';
import { fillWholeResults } from '../../core/template';
import { llmResponseFilterFor } from '../../core/agent-file/llm-interfaces';
import { addUsage, type CallPosition, type Usage } from '../../core/llm-types';
import { assessmentRetrySuffix } from '../../core/agent-types/common';
import { parseRetrySuffix } from '../../core/prompts';
import type { Parsed } from '../../core/json-in-text';
import { preview } from '../../core/text';
import type { KeyedRunEvents } from '../../core/run-events';
import { FailureTypes, type AssumedVerdict } from './definitions';
import type { ModelActivities } from './activity-presets';
import { modelForCall } from './scripted-calls';
import type { RunContext } from './context';
import { tenantOf, withinBudget, withinTenantBudget } from './dollar-budget';

/** `max_parse_retries` counts retries (runs recorded before counted calls). */
const PARSE_RETRIES_PATCH = 'max-parse-retries-counts-retries';
/** Unreadable assessments are asked again; runs recorded before took the default at once. */
const ASSESSMENT_RETRIES_PATCH = 'assessment-retries';
/** Assessments judge whole step results, read from memory by the activity; runs recorded before judged previews. */
const WHOLE_RESULTS_PATCH = 'assessments-read-whole-results';

/** A model call: the planning model (`llm`) or the execution model (`executor_llm`). */
export interface ModelCall {
  model: 'planning' | 'execution';
  position: CallPosition;
  /** The activity summary shown in the Temporal UI. */
  summary: string;
  /** The prompt, or a reference the activity renders (claim check: completed steps by ID). */
  prompt?: string;
  render?: PlannerPromptRef;
  /** Show the conversation's earlier exchanges after the prompt (loaded by the activity). */
  withHistory?: boolean;
  /** The system prompt; the run's planning system prompt when absent. */
  system?: string;
  /** Model parameters used unless the agent file sets them (plan_and_execute's planning temperature). */
  parameterDefaults?: Record<string, unknown>;
  /**
   * The call gets people's guidance and rejection reasons not yet seen (always for the planner
   * role; agent types opt in other calls that steer the run, such as step_by_step's decision).
   */
  takesFeedback?: boolean;
  /**
   * The executed steps (by unit) whose whole results the prompt marks (`wholeResultMarker`),
   * each with its preview: the activity puts the whole results there (bounded; see core/template).
   */
  wholeResults?: Record<number, string>;
  /** Where the run's earlier steps (no longer carried) are stored: the activity fills the prompt's `earlierStepsMarker`s from there. */
  earlierSteps?: EarlierStepsRef;
}

/**
 * The call with its result markers left for the activity to fill from memory (`whole_results`),
 * or, in runs recorded before, filled with the previews as those runs' prompts had them.
 */
function withWholeResults(run: RunContext, call: ModelCall): ModelCall & { whole_results?: WholeResultsRef } {
  const marked = call.wholeResults;
  if (marked === undefined || call.prompt === undefined) return call;
  const units = Object.keys(marked).map(Number);
  if (patched(WHOLE_RESULTS_PATCH)) return { ...call, whole_results: { ids: run.memoryIds, units } };
  return { ...call, prompt: fillWholeResults(call.prompt, new Map(units.map((u) => [u, marked[u]]))) };
}

/** Whether a call gets the feedback people left for the next planning call. */
const takesFeedback = (call: ModelCall) => call.takesFeedback ?? call.position.role === 'planner';

/** The call with people's feedback appended to its prompt (after the template is rendered). */
function withFeedback(run: RunContext, call: ModelCall): ModelCall {
  const feedback = takesFeedback(call) ? run.human.takeFeedback() : '';
  return feedback === '' ? call : { ...call, ...withSuffix(call, feedback) };
}

/** The model settings with `defaults` under the agent file's own parameters. */
export function withParameterDefaults<M extends { parameters?: Record<string, unknown> }>(model: M, defaults: Record<string, unknown> | undefined): M {
  return defaults ? { ...model, parameters: { ...defaults, ...model.parameters } } : model;
}

/** One model call as an activity; returns its answer text. */
export async function ask(run: RunContext, original: ModelCall): Promise<string> {
  const { agent, progress } = run;
  // At the run's dollar budget, `budget_action` is taken before the call starts.
  await withinBudget(run);
  const call = withWholeResults(run, withFeedback(run, original));
  // The run's planning system prompt by reference when it has prompt material.
  const system = call.system !== undefined ? { system: call.system } : run.materialId !== undefined ? { material_id: run.materialId, system_key: 'planning' as const } : { system: run.planningSystem };
  const render = call.render ?? (call.withHistory ? historyRef(run, call.prompt ?? '') : undefined);
  const text = render ? {} : { prompt: call.prompt ?? '' };
  const filter = responseFilter(run, call.model);
  const whole = { ...(call.whole_results ? { whole_results: call.whole_results } : {}), ...(call.earlierSteps ? { earlier_steps: call.earlierSteps } : {}) };
  // A run with a tenant: the activity checks the tenant's daily cap; a call it did not make waits and is asked again.
  const tenant = tenantOf(run);
  if (call.model === 'planning') {
    // A numbered call's text ends in the write of the events that follow it (see `workflow_publishes_tail`),
    // and begins in the write of those held before it (a step's end: see `events_before`).
    const numbered = 'call' in call.position;
    const tail = numbered ? { workflow_publishes_tail: true as const } : {};
    const before = numbered ? run.events.handHeld() : undefined;
    let answer: PlannerAnswer;
    try {
      answer = await withinTenantBudget(run, () =>
        run.models.planning().executeWithOptions({ summary: call.summary }, [
          {
            model: modelForCall(withParameterDefaults(agent.llm, call.parameterDefaults), call.position),
            ...system,
            position: call.position,
            ...(render ? { render } : text),
            ...filter,
            ...whole,
            agent: agent.name,
            ...tenant,
            ...tail,
            ...(before?.events.length ? { events_before: before } : {}),
          },
        ]),
      );
    } catch (err) {
      if (before) run.events.putBack(before);
      throw err;
    }
    if (answer.tail_from !== undefined) run.events.modelTextTail(call.position, answer.text.slice(answer.tail_from));
    progress.usage = addUsage(progress.usage, answer.usage);
    return answer.text;
  }
  // A decision or an assessment begins in the write of the events held before it too (a step's end), unless it goes by the old name.
  const before = run.models.executionPrompt().kind === 'legacy' ? undefined : run.events.handHeld();
  let answer: TenantChecked<{ text: string; usage: Usage }>;
  try {
    answer = await withinTenantBudget(run, () =>
      executionModelPrompt(run.models, modelForCall(agent.executor_llm, call.position), {
        ...system,
        position: call.position,
        prompt: call.prompt ?? '',
        summary: call.summary,
        ...filter,
        ...whole,
        agent: agent.name,
        ...tenant,
        ...(before?.events.length ? { events_before: before } : {}),
      }),
    );
  } catch (err) {
    if (before) run.events.putBack(before);
    throw err;
  }
  progress.usage = addUsage(progress.usage, answer.usage);
  return answer.text;
}

/**
 * The agent's `llm_response_filter` for calls of one model, when it is a custom one: the seed's
 * filter picks the answer text from the raw response, and the interface defaults select what
 * the providers return anyway. The execution model gets it when its interface is the
 * planner's (a filter is a path into one provider's response).
 */
export function responseFilter(run: RunContext, model: 'planning' | 'execution'): { response_filter?: string } {
  const { agent, p } = run;
  if (p.llm_response_filter === llmResponseFilterFor(agent.llm.interface)) return {};
  if (model === 'execution' && agent.executor_llm.interface !== agent.llm.interface) return {};
  return { response_filter: p.llm_response_filter };
}

/** A one-prompt call of the execution model (a decision, an assessment). */
export async function executionModelPrompt(
  models: ModelActivities,
  model: ModelSettings,
  call: MaterialRef & CallOwner & { system?: string; position: CallPosition; prompt: string; summary: string; response_filter?: string; whole_results?: WholeResultsRef; earlier_steps?: EarlierStepsRef; events_before?: KeyedRunEvents },
): Promise<TenantChecked<{ text: string; usage: Usage }>> {
  const execution = models.executionPrompt();
  const { summary, prompt, ...rest } = call;
  if (execution.kind === 'legacy') return execution.call.executeWithOptions({ summary }, [{ model, ...rest, prompt }]);
  const answer = await execution.call.executeWithOptions({ summary }, [{ model, ...rest, messages: [{ role: 'user', content: prompt }] }]);
  return { text: answer.content, usage: answer.usage, ...(answer.tenant_budget ? { tenant_budget: answer.tenant_budget } : {}) };
}

/** How {@link askParsed} asks again after an unparseable answer, and what it does when it may not any more. */
export interface ParseRetry<T> {
  /** Where a retry stands (default: the next position of the call's kind, from the counter). */
  position?: () => CallPosition;
  /** Appended to a retry's prompt (default: the parse error, in the planner's words). */
  suffix?: (error: string) => string;
  /** Whether another call may follow `calls` unparseable answers (default: 1 + `max_parse_retries` calls in all). */
  mayRetry?: (calls: number) => boolean;
  /** The value when no answer parsed (default: the run fails with `Agent.OutputInvalid` quoting the last answer). */
  exhausted?: (error: string) => T;
}

/**
 * A model call whose answer must parse. An unparseable answer is asked again with the error
 * appended, up to `max_parse_retries` times (1 + `max_parse_retries` calls), each at the next position of its kind
 * (`counter`, shared by every call of that kind in the run); then the run fails with
 * `Agent.OutputInvalid` quoting the last answer — unless `retry` says otherwise.
 */
export async function askParsed<T>(run: RunContext, call: ModelCall, parse: (raw: string) => Parsed<T>, what: string, counter: { next: number }, retry: ParseRetry<T> = {}): Promise<T> {
  const retries = run.p.max_parse_retries;
  const suffix = retry.suffix ?? parseRetrySuffix;
  const mayAskAgain = retry.mayRetry ?? ((calls: number) => mayRetry(calls, retries));
  let lastError = '';
  let lastRaw = '';
  let attempt = 0;
  // Taken once, so a retry after an unparseable answer still shows it.
  call = withFeedback(run, call);
  for (;;) {
    const position = attempt > 0 && retry.position ? retry.position() : 'call' in call.position ? { ...call.position, call: counter.next++ } : call.position;
    const again = attempt === 0 ? {} : withSuffix(call, suffix(lastError));
    const summary = attempt === 0 ? call.summary : `${call.summary}, retry ${attempt} after an unparseable answer`;
    lastRaw = await ask(run, { ...call, ...again, position, summary });
    const parsed = parse(lastRaw);
    if (parsed.ok) return parsed.value;
    lastError = parsed.error;
    attempt++;
    if (!mayAskAgain(attempt)) break;
    log.warn(`${what} could not be parsed; asking again`, { attempt, error: lastError });
  }
  if (retry.exhausted) return retry.exhausted(lastError);
  throw ApplicationFailure.nonRetryable(
    `${what} could not be parsed after ${attempt} attempts (${lastError}); last answer: ${JSON.stringify(preview(lastRaw, 500))}`,
    FailureTypes.OutputInvalid,
  );
}

/** An assessment: what its default verdict is, and how a retry stands when it is not the next call of its kind. */
export interface Judgment<T> {
  kind: AssumedVerdict['kind'];
  /** The verdict when no answer could be read, and it in words. */
  fallback: T;
  assumed: string;
  retry?: Pick<ParseRetry<T>, 'position' | 'suffix'>;
  /** The patch under which retries came to this assessment (default: assessment-retries). */
  patch?: string;
}

/**
 * An assessment (a verification, a viability check, a completion or goal assessment, a
 * decision): an unreadable answer is asked again up to `max_parse_retries` times; then the run
 * goes on with the default verdict, recorded in `progress.assumed_verdicts` and the run's metadata.
 */
export function askJudgment<T>(run: RunContext, call: ModelCall, parse: (raw: string) => Parsed<T>, counter: { next: number }, judgment: Judgment<T>): Promise<T> {
  const what = `the ${judgment.kind}`;
  return askParsed(run, call, parse, what, counter, {
    suffix: assessmentRetrySuffix,
    ...judgment.retry,
    mayRetry: (calls) => calls <= run.p.max_parse_retries && patched(judgment.patch ?? ASSESSMENT_RETRIES_PATCH),
    exhausted: (error) => {
      log.warn(`${what} could not be read; going on as if ${judgment.assumed}`, { error });
      const { progress } = run;
      progress.assumed_verdicts = [...(progress.assumed_verdicts ?? []), { kind: judgment.kind, after_steps: progress.steps_executed, assumed: judgment.assumed, error: preview(error, 300) }];
      run.showProgress();
      return judgment.fallback;
    },
  });
}

/**
 * Whether another call may follow `calls` unparseable answers: 1 + `max_parse_retries` calls
 * in all. Runs recorded before counted the parameter as calls (at least one), hence the patch.
 */
function mayRetry(calls: number, retries: number): boolean {
  if (calls < Math.max(1, retries)) return true;
  return calls < 1 + retries && patched(PARSE_RETRIES_PATCH);
}

function withSuffix(call: ModelCall, suffix: string): Partial<ModelCall> {
  return call.render ? { render: { ...call.render, suffix: (call.render.suffix ?? '') + suffix } } : { prompt: (call.prompt ?? '') + suffix };
}

/** The prompt followed by the conversation's earlier exchanges, which the activity loads from memory. */
function historyRef(run: RunContext, prompt: string): PlannerPromptRef | undefined {
  if (run.historyCount === 0) return undefined;
  const history = run.completedIds.slice(0, run.historyCount);
  return { template: `${prompt}\n\nCONVERSATION HISTORY:\n\${parameters.completed_steps}`, params: {}, steps: [], completed_step_ids: history };
}
