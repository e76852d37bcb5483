/**
 * A plan_and_execute run's state and what is derived from it without I/O: the listings its
 * prompts show, a step's action input, whether an attempt succeeded, the run's metadata, and
 * what a fork from a plan step takes over.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import type { CompletedStepView, EarlierStepsRef, ForkPoint } from '../activity-contract';
import { preview } from '../text';
import { earlierStepsMarker, fill } from '../template';
import { FINAL_ANSWER_TEMPLATE, OBSERVATION_METADATA_CHARS, planStatistics, STEP_ACTION_TEMPLATE, type PlanStep, type PlanStepView, type Replan, type StepResult } from './plan-and-execute';

/** How many earlier observations a step sees (seed 003 keeps the last 5). */
export const OBSERVATION_WINDOW = 5;

/** What a plan_and_execute run carries across continue-as-new (and a fork takes over). */
export interface PlanAndExecuteState {
  plan: PlanStepView[];
  /** The plan step to run next. */
  cursor: number;
  results: StepResult[];
  observations: string[];
  replans: Replan[];
  /** Executed steps (attempts) so far. */
  unit: number;
  plannerCalls: number;
  viabilityCalls: number;
  /** StepVerifier calls so far (absent in runs recorded before it). */
  verificationCalls?: number;
  /** The call counters as each plan step began, by plan position: where a fork from that step goes on (absent in runs recorded before). */
  countersAt?: Array<Counters | undefined>;
  /** A long run's earliest executed plan steps, no longer carried (see {@link foldEarlierSteps}). */
  earlier?: EarlierPlanSteps;
}

/**
 * The executed plan steps a long run moved out of its state at a continue-as-new: where their
 * texts are (the listings its prompts show, by kind) and what its metadata counts of them.
 */
export interface EarlierPlanSteps extends EarlierStepsRef {
  /** Plan steps moved: the first `steps` of the plan, each with its result and observation. */
  steps: number;
  successful: number;
  attempts: number;
  tools: string[];
  /** The highest step number moved: every step numbered up to it has run (a `depends_on` on it is met). */
  last_step_num: number;
  /** Re-plans moved (those after a moved step). */
  replans: number;
}

/** The kinds of text stored of moved steps, one per listing a prompt shows. */
const EARLIER = { completed: 'completed', summaries: 'summaries', observations: 'observations' } as const;

/** Where a plan_and_execute run's model calls stand (a scripted model's positions). */
export type Counters = Pick<PlanAndExecuteState, 'plannerCalls' | 'viabilityCalls'> & { verificationCalls: number };

/** The call counters now. */
export function countersOf(state: PlanAndExecuteState): Counters {
  return { plannerCalls: state.plannerCalls, viabilityCalls: state.viabilityCalls, verificationCalls: state.verificationCalls ?? 0 };
}

export const initialPlanAndExecuteState = (): PlanAndExecuteState => ({
  plan: [],
  cursor: 0,
  results: [],
  observations: [],
  replans: [],
  unit: 0,
  plannerCalls: 0,
  viabilityCalls: 0,
});

export function stepView(s: PlanStep): PlanStepView {
  return { ...s, status: 'pending', attempts: 0 };
}

/** Plan steps as the re-planning and viability prompts list them. */
export function stepListing(steps: readonly PlanStep[]): string {
  return steps.map((s) => `${s.step_num}. ${s.goal} [${s.primary_tools.join(', ') || 'no tool'}] — done when: ${s.success_criteria}`).join('\n') || 'none';
}

/** The results so far as the re-planning and viability prompts list them (moved ones by their marker). */
export function completedListing(results: readonly StepResult[], earlier?: EarlierPlanSteps): string {
  return withEarlier(earlier, EARLIER.completed, results.map((r) => `${r.success ? '✅' : '❌'} ${r.step_num}. ${r.goal} [${r.tool_used || 'no tool'}]: ${preview(r.observation, 300)}`)).join('\n') || 'none';
}

const stepSummary = (r: StepResult) => `${r.success ? '✅' : '❌'} Step ${r.step_num}: ${r.goal} [tool: ${r.tool_used || 'none'}] → ${preview(r.observation, 300)}`;

/** The lines of a listing, after the marker of its moved part when the run moved steps. */
function withEarlier(earlier: EarlierPlanSteps | undefined, kind: string, lines: string[]): string[] {
  return earlier ? [earlierStepsMarker(kind), ...lines] : lines;
}

/**
 * Moves the executed plan steps before the latest `keep` out of the state (results,
 * observations, plan positions, the re-plans after them), counting them in `earlier`, and
 * returns the texts the run's prompts show of them — to be stored as the next part of its
 * earlier steps, whose place the caller then puts in `earlier` — or undefined when there is
 * nothing to move. The prompts read as before: their listings start with that part's marker.
 */
export function foldEarlierSteps(state: PlanAndExecuteState, keep: number): Record<string, string> | undefined {
  const n = Math.min(state.results.length - keep, state.cursor);
  if (n <= 0) return undefined;
  const moved = state.results.splice(0, n);
  const observations = state.observations.splice(0, n);
  state.plan.splice(0, n);
  state.countersAt?.splice(0, n);
  state.cursor -= n;
  const before = state.earlier;
  const lastStepNum = Math.max(before?.last_step_num ?? 0, ...moved.map((r) => r.step_num));
  const replans = state.replans.filter((r) => r.after_step <= lastStepNum).length;
  state.replans.splice(0, replans);
  state.earlier = {
    id: before?.id ?? '',
    chunks: before?.chunks ?? 0,
    steps: (before?.steps ?? 0) + n,
    successful: (before?.successful ?? 0) + moved.filter((r) => r.success).length,
    attempts: (before?.attempts ?? 0) + moved.reduce((a, r) => a + r.attempts, 0),
    tools: [...new Set([...(before?.tools ?? []), ...moved.map((r) => r.tool_used).filter((t) => t !== '')])].sort(),
    last_step_num: lastStepNum,
    replans: (before?.replans ?? 0) + replans,
  };
  return {
    [EARLIER.completed]: completedListing(moved),
    [EARLIER.summaries]: moved.map(stepSummary).join('\n'),
    [EARLIER.observations]: observations.join('\n'),
  };
}

/** Where the run's moved steps are, for the calls whose prompts list them (undefined: it moved none). */
export const earlierStepsOf = (state: PlanAndExecuteState): EarlierStepsRef | undefined => (state.earlier ? { id: state.earlier.id, chunks: state.earlier.chunks } : undefined);

/** Plan steps executed so far, moved ones included. */
export const stepsRun = (state: PlanAndExecuteState): number => (state.earlier?.steps ?? 0) + state.results.length;

/** What the executor is asked for one attempt (1-based) of a step: guided by its tool and the recent observations. */
export function stepActionText(state: PlanAndExecuteState, step: PlanStepView, at: { attempt: number; lastObservation: string; query: string; executionInstructions: string }): string {
  const recent = state.observations.slice(-OBSERVATION_WINDOW);
  return fill(STEP_ACTION_TEMPLATE, {
    executionInstructions: at.executionInstructions,
    query: at.query,
    stepNum: String(step.step_num),
    totalSteps: String((state.earlier?.steps ?? 0) + state.plan.length),
    goal: step.goal,
    tool: step.primary_tools[0] ?? 'none (reason from the results so far)',
    successCriteria: step.success_criteria || 'the goal is met',
    context: step.context ? `\nContext: ${step.context}` : '',
    previousResults:
      (recent.length > 0 ? `\n\nResults of previous steps:\n${recent.join('\n')}` : '') +
      (at.attempt > 1 ? `\n\nAttempt ${at.attempt}: the previous attempt did not succeed: ${preview(at.lastObservation, 300)}` : ''),
  });
}

/**
 * The steps to run next: the step at `cursor`, and — with `max_parallel_steps` > 1 — the
 * steps after it whose `depends_on` names only steps already done, up to the cap and `max_steps`.
 */
export function readyBatch(state: PlanAndExecuteState, cursor: number, p: { max_parallel_steps?: number; max_steps: number }): PlanStepView[] {
  const first = state.plan[cursor];
  const cap = p.max_parallel_steps ?? 1;
  if (!(cap > 1)) return [first];
  const done = new Set(state.plan.slice(0, cursor).map((s) => s.step_num));
  const moved = state.earlier?.last_step_num ?? 0;
  const room = Math.min(cap, p.max_steps - stepsRun(state));
  const batch = [first];
  for (let i = cursor + 1; i < state.plan.length && batch.length < room; i++) {
    const deps = state.plan[i].depends_on;
    if (deps === undefined || deps.some((d) => d > moved && !done.has(d))) break;
    batch.push(state.plan[i]);
  }
  return batch;
}

/** A step's outcome in the results, observations and plan (`error` undefined: it succeeded). */
export function recordResult(state: PlanAndExecuteState, step: PlanStepView, observation: string, error: string | undefined): void {
  const tool = step.primary_tools[0] ?? '';
  step.status = error === undefined ? 'completed' : 'failed';
  state.results.push({
    step_num: step.step_num,
    goal: step.goal,
    success: error === undefined,
    tool_used: tool,
    attempts: step.attempts,
    observation: preview(observation, OBSERVATION_METADATA_CHARS),
    ...(error !== undefined ? { error: preview(error, OBSERVATION_METADATA_CHARS) } : {}),
  });
  state.observations.push(`Step ${step.step_num} (${tool || 'no tool'}): ${preview(observation, 300)}`);
}

/** The final answer's prompt: the step summaries and observations of the whole run. */
export function finalAnswerPrompt(state: PlanAndExecuteState, query: string): string {
  return fill(FINAL_ANSWER_TEMPLATE, {
    query,
    stepSummaries: withEarlier(state.earlier, EARLIER.summaries, state.results.map(stepSummary)).join('\n'),
    observations: withEarlier(state.earlier, EARLIER.observations, state.observations).join('\n'),
  });
}

/** An executed attempt, as far as its success goes. */
export interface AttemptOutcome {
  ok: boolean;
  result: string;
  limit_reached: boolean;
  tool_calls: number;
  tool_errors: number;
}

/** Why an attempt did not succeed, or undefined when it did. */
export function attemptError(o: AttemptOutcome): string | undefined {
  if (!o.ok) return o.result;
  if (o.limit_reached) return 'the executor reached its iteration limit';
  if (o.tool_errors > 0 && o.tool_errors >= o.tool_calls) return 'every tool call returned an error';
  return undefined;
}

/** The run output's metadata. */
export function planAndExecuteMetadata(state: PlanAndExecuteState, stoppedAt?: number): Record<string, unknown> {
  return {
    agent_type: 'plan_and_execute',
    architecture: 'plan-and-execute: structured plan, guided ReAct execution per step, re-planning triggers, synthesised answer',
    planning: { plan: state.plan.map(({ status: _s, attempts: _a, ...s }) => s), replans: state.replans, ...(state.earlier ? { earlier_replans: state.earlier.replans } : {}) },
    // A long run's earliest steps are in memory (`perflow memory`), counted here and in the summary.
    execution: { steps: state.results, ...(state.earlier ? { earlier_steps: state.earlier.steps } : {}) },
    summary: planStatistics(state.results, state.earlier),
    ...(stoppedAt !== undefined ? { stopped: `max_steps (${stoppedAt}) reached` } : {}),
  };
}

/**
 * A fork from plan step `step`: the plan steps before it (done, in order), the executions
 * they took (which must come before any of a later step's), and the plan and results so far.
 */
export function planAndExecuteForkPoint(state: PlanAndExecuteState, executed: CompletedStepView[], step: number): ForkPoint {
  if (state.earlier) {
    return { completed: stepsRun(state), steps: [], refused: `its first ${state.earlier.steps} plan steps are no longer carried (a long run keeps its latest ones across continue-as-new): it cannot be forked` };
  }
  const done = state.plan.findIndex((s) => s.status !== 'completed' && s.status !== 'failed');
  const completed = done === -1 ? state.plan.length : done;
  const kept = Math.max(0, Math.min(step - 1, completed));
  const position = (label: string) => state.plan.findIndex((s) => s.step_num === Number(/^step (\d+)/.exec(label)?.[1]));
  const reused = (label: string) => {
    const at = position(label);
    return at >= 0 && at < kept;
  };
  const ahead = executed.findIndex((u) => !reused(u.step));
  const steps = ahead === -1 ? executed : executed.slice(0, ahead);
  const point: ForkPoint = { completed, steps };
  if (executed.slice(steps.length).some((u) => reused(u.step))) {
    return { ...point, refused: `the steps before step ${step} ran in one batch with later steps (max_parallel_steps): fork from the first step of that batch` };
  }
  if (kept === 0) return point;
  return {
    ...point,
    agent_state: {
      plan: state.plan.map((s, i) => (i < kept ? s : { ...s, status: 'pending', attempts: 0 })),
      cursor: kept,
      results: state.results.slice(0, kept),
      observations: state.observations.slice(0, kept),
      replans: state.replans.filter((r) => r.after_step < kept),
      unit: steps.length,
      // A scripted model's scripts go on where the source stood at the step.
      ...(state.countersAt?.[kept] ?? countersOf(state)),
      countersAt: state.countersAt?.slice(0, kept),
    } satisfies PlanAndExecuteState,
  };
}
