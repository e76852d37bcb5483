/**
 * Structured plan-and-execute (seed 003): the planning model writes `PlanStep`s with success
 * criteria; each step runs guided (its primary tool, the condensed results of the last five
 * steps) in ReAct executor children, up to `max_step_attempts` times; after every step but the
 * last, re-planning triggers are checked (failed after ≥ 3 attempts, a keyword in the
 * observation, the viability check at ≥ 0.7 confidence) and the unfinished part of the plan is
 * replaced; the final answer is synthesised from the step summaries, with run metadata.
 * Steps whose `depends_on` are done run together (`max_parallel_steps`); a single step is a
 * batch of one. The state and what derives from it purely live in core/agent-types.
 */
import { patched } from '@temporalio/workflow';
import {
  ADAPT_PLAN_TEMPLATE,
  attemptError,
  completedListing,
  countersOf,
  earlierStepsOf,
  EXECUTION_PLAN_TEMPLATE,
  fill,
  finalAnswerPrompt,
  findReplanKeyword,
  foldEarlierSteps,
  initialPlanAndExecuteState,
  parallelPlanInstructions,
  parsePlanSteps,
  parseVerification,
  parseViability,
  planAndExecuteForkPoint,
  planAndExecuteMetadata,
  PLANNING_TEMPERATURE,
  readyBatch,
  recordResult,
  renumberAdapted,
  stepActionText,
  stepListing,
  stepsRun,
  stepView,
  STEP_VERIFICATION_TEMPLATE,
  toolListing,
  toolsNamed,
  VIABILITY_TEMPLATE,
  type PlanAndExecuteState,
  type PlanStep,
} from '../core/agent-types';
import { planStoppedMessage } from '../core/prompts';
import { wholeResultMarker } from '../core/template';
import { preview } from '../core/text';
import type { PlanStepView, Replan, RunInput, RunOutput } from './definitions';
import { openAgentTypeRun, showPlan } from './kernel/agent-type-run';
import { CARRIED_STEPS, checkpoint, finish, guard, storeEarlierSteps } from './kernel/lifecycle';
import { finishAnswer } from './kernel/typed-output';
import { ask, askJudgment, askParsed } from './kernel/model-calls';
import { counterOf } from './kernel/call-positions';
import { runSteps } from './kernel/steps';

/** Runs recorded before the StepVerifier took an attempt without errors as a success. */
const STEP_VERIFIER_PATCH = 'plan-and-execute-step-verifier';
/** Runs recorded before carried every executed plan step across continue-as-new. */
const EARLIER_STEPS_PATCH = 'plan-and-execute-earlier-steps';

/** How a step of a batch went: its last observation, and why it did not succeed (undefined: it did). */
interface StepAttempts {
  observation: string;
  error?: string;
  done: boolean;
}

export async function planAndExecute(input: RunInput<PlanAndExecuteState>): Promise<RunOutput> {
  // A fork's first execution starts from the source's plan and results up to the fork's step.
  const forkState = (carried: boolean) => (carried ? undefined : (input.fork?.agent_state as PlanAndExecuteState | undefined));
  const { run, state, toolIds, planning, execution } = await openAgentTypeRun<PlanAndExecuteState>(
    input,
    (p) => p.max_steps,
    (r) => forkState(r.carried !== undefined) ?? initialPlanAndExecuteState(),
  );
  const { question, p, progress } = run;
  const forked = forkState(run.carried !== undefined);
  const { results, replans } = state;
  const plannerCalls = { next: state.plannerCalls };
  const metadata = (stoppedAt?: number) => planAndExecuteMetadata(state, stoppedAt);
  progress.replans = replans;
  run.forkPoint = (step) => planAndExecuteForkPoint(state, progress.completed_steps, step);

  return guard(run, async () => {
    if (forked && state.cursor > 0) {
      // The fork re-plans the steps after the reused ones under its own settings.
      const fork = run.input.fork!;
      syncPlan();
      const stopped = await adapt({ after_step: state.cursor, trigger: 'fork', reason: `this run is a fork of ${fork.workflow_id} from step ${fork.step}: steps 1–${state.cursor} are reused; plan the steps after them` }, state.cursor - 1);
      if (stopped) return finish(run, planStoppedMessage(stopped), metadata());
    } else if (!run.carried) {
      const first = await reviewed(() => planSteps(fill(EXECUTION_PLAN_TEMPLATE, {
        planningInstructions: planning,
        query: question,
        availableTools: toolListing(run.tools),
      }) + (p.max_parallel_steps > 1 ? parallelPlanInstructions(p.max_parallel_steps) : ''), 'planning model: plan', 1));
      if (!Array.isArray(first)) return finish(run, planStoppedMessage(first), metadata());
      state.plan = first.map(stepView);
    }
    syncPlan();

    let stoppedAt: number | undefined;
    for (; state.cursor < state.plan.length; state.cursor++) {
      const cursor = state.cursor;
      if (stepsRun(state) >= p.max_steps) {
        stoppedAt = p.max_steps;
        break;
      }
      state.plannerCalls = plannerCalls.next;
      const ended = await checkpoint(run, { state: () => state, fold, metadata });
      if (ended) return ended;
      // Steps whose dependencies are done run together (max_parallel_steps, `depends_on`).
      const batch = readyBatch(state, cursor, p);
      batch.forEach((_, i) => ((state.countersAt ??= [])[cursor + i] = countersOf(state)));
      const outcome = await runBatch(batch);
      state.cursor += batch.length - 1;
      const last = state.cursor;
      if (last < state.plan.length - 1) {
        const trigger = await batchTrigger(batch, outcome, last);
        const stopped = trigger ? await adapt(trigger, last) : undefined;
        if (stopped) return finish(run, planStoppedMessage(stopped), metadata());
      }
    }

    const answer = await ask(run, {
      model: 'planning',
      position: { role: 'task', kind: 'final', call: 0 },
      summary: 'planning model: final answer',
      takesFeedback: true,
      prompt: finalAnswerPrompt(state, question),
      earlierSteps: earlierStepsOf(state),
    });
    return finishAnswer(run, answer, metadata(stoppedAt));
  });

  /** Replaces the plan after `cursor` with an adapted one (reviewed when `plan_approval` says so); the reviewer's stop when they stop the run. */
  async function adapt(trigger: Replan, cursor: number): Promise<{ reason: string; by: string } | undefined> {
    replans.push(trigger);
    const adapted = await reviewed(() => planSteps(fill(ADAPT_PLAN_TEMPLATE, {
      planningInstructions: planning,
      query: question,
      completedSteps: completedListing(results, state.earlier),
      issue: trigger.reason,
      remainingSteps: stepListing(state.plan.slice(cursor + 1)),
      availableTools: toolListing(run.tools),
    }), `planning model: re-plan after step ${state.plan[cursor].step_num} (${trigger.trigger})`, 1));
    if (!Array.isArray(adapted)) return adapted;
    const kept = state.plan.slice(0, cursor + 1);
    // Adapted steps run in order: their `depends_on` would name numbers of another plan.
    state.plan = renumberAdapted(kept, adapted).map((s, i) => (i < kept.length ? kept[i] : stepView({ ...s, depends_on: undefined })));
    syncPlan();
    return undefined;
  }

  /**
   * Steps at once (one, or independent ones): each attempt round runs the steps not yet done
   * as concurrent executor children (recorded in plan order), then verifies each; a step naming
   * a tool the agent lacks fails without running (no fallback to another tool, seed 003: re-planning
   * may fix it). Results go in plan order.
   */
  async function runBatch(batch: PlanStepView[]): Promise<StepAttempts[]> {
    const outcome = batch.map((step): StepAttempts => {
      step.status = 'running';
      const tool = step.primary_tools[0] ?? '';
      if (tool === '' || toolIds.includes(tool)) return { observation: '', done: false };
      step.attempts = 1;
      const missing = `Tool not found: ${tool}; the agent's tools: ${toolIds.join(', ') || 'none'}`;
      return { observation: missing, error: missing, done: true };
    });
    syncPlan();
    for (let attempt = 1; attempt <= p.max_step_attempts; attempt++) {
      const open = batch.map((_, i) => i).filter((i) => !outcome[i].done);
      if (open.length === 0) break;
      const requests = open.map((i) => {
        const step = batch[i];
        const tool = step.primary_tools[0] ?? '';
        step.attempts = attempt;
        return {
          unit: state.unit++,
          label: `step ${step.step_num}${attempt > 1 ? `, attempt ${attempt}` : ''}: ${step.goal}`,
          text: stepActionText(state, step, { attempt, lastObservation: outcome[i].observation, query: question, executionInstructions: execution }),
          tools: toolsNamed(run.tools, tool === '' ? [] : [tool]),
        };
      });
      const outcomes = await runSteps(run, requests, p.max_parallel_steps);
      for (const [k, i] of open.entries()) {
        const o = outcome[i];
        o.observation = outcomes[k].result;
        o.error = attemptError(outcomes[k]);
        // The StepVerifier: an attempt succeeds when its observation meets the step's criteria.
        if (o.error === undefined && batch[i].success_criteria.trim() !== '' && patched(STEP_VERIFIER_PATCH)) o.error = await verify(batch[i], o.observation, requests[k].unit);
        o.done = o.error === undefined;
      }
    }
    batch.forEach((step, i) => recordResult(state, step, outcome[i].observation, outcome[i].error));
    syncPlan();
    return outcome;
  }

  /** Re-planning after a batch: a failed step or a keyword in any of them, in plan order, then one viability check. */
  async function batchTrigger(batch: PlanStepView[], outcome: StepAttempts[], last: number): Promise<Replan | undefined> {
    for (const [i, step] of batch.entries()) {
      const trigger = await replanTrigger(step, outcome[i].error === undefined, outcome[i].observation, last, i === batch.length - 1);
      if (trigger) return trigger;
    }
    return undefined;
  }

  /** Asks for a plan (initial or adapted) until it parses. */
  async function planSteps(prompt: string, summary: string, firstNum: number): Promise<PlanStep[]> {
    const first = plannerCalls.next === 0;
    return askParsed(
      run,
      { model: 'planning', position: { role: 'planner', call: plannerCalls.next }, summary, prompt, withHistory: first, parameterDefaults: { temperature: PLANNING_TEMPERATURE }, earlierSteps: earlierStepsOf(state) },
      (raw) => parsePlanSteps(raw, firstNum),
      'the plan',
      plannerCalls,
    );
  }

  /**
   * A proposed plan, put to review when `plan_approval` asks for it: asked again after a
   * rejection (the reason reaches the planner as feedback); an edited step keeps the tool and
   * criteria of the proposed step at its position when its text changed.
   */
  async function reviewed(propose: () => Promise<PlanStep[]>): Promise<PlanStep[] | { reason: string; by: string }> {
    for (;;) {
      const steps = await propose();
      const review = await run.human.reviewPlan(steps.map((s) => s.goal));
      if (review.action === 'stop') return review;
      if (review.action === 'run') {
        return review.steps.map((goal, i) => {
          const proposed = steps[i] ?? { step_num: i + 1, goal, primary_tools: [], success_criteria: '' };
          return proposed.goal === goal ? { ...proposed, step_num: i + 1 } : { ...proposed, step_num: i + 1, goal, context: undefined };
        });
      }
    }
  }

  /** Whether the observation meets the step's success criteria: undefined when it does, else why not. */
  async function verify(step: PlanStepView, observation: string, unit: number): Promise<string | undefined> {
    const verdict = await askJudgment(
      run,
      {
        model: 'planning',
        position: { role: 'task', kind: 'verification', call: 0 },
        summary: `planning model: verify step ${step.step_num}, attempt ${step.attempts}`,
        // The verifier judges the whole observation (read from memory by the activity).
        prompt: fill(STEP_VERIFICATION_TEMPLATE, { goal: step.goal, successCriteria: step.success_criteria, observation: wholeResultMarker(unit) }),
        wholeResults: { [unit]: preview(observation, 4_000) },
      },
      parseVerification,
      counterOf(state, 'verificationCalls'),
      { kind: 'verification', fallback: { met: true, reason: '' }, assumed: `step ${step.step_num} met its criteria` },
    );
    return verdict.met ? undefined : `the success criteria are not met: ${verdict.reason || 'no reason given'}`;
  }

  async function replanTrigger(step: PlanStepView, success: boolean, observation: string, cursor: number, viability = true): Promise<Replan | undefined> {
    // A person's guidance re-plans the rest, so the planner sees it (in the re-plan prompt).
    if (run.human.hasFeedback()) return { after_step: step.step_num, trigger: 'guidance', reason: `a person gave guidance after step ${step.step_num} (see the user feedback below)` };
    if (!success && step.attempts >= p.replan_after_failed_attempts) {
      return { after_step: step.step_num, trigger: 'step_failed', reason: `step ${step.step_num} failed after ${step.attempts} attempts: ${preview(observation, 300)}` };
    }
    const keyword = findReplanKeyword(observation, p.replan_keywords);
    if (keyword !== undefined) {
      return { after_step: step.step_num, trigger: 'keyword', reason: `the observation of step ${step.step_num} mentions "${keyword}": ${preview(observation, 300)}` };
    }
    if (!viability) return undefined;
    const verdict = await askJudgment(
      run,
      {
        model: 'planning',
        position: { role: 'task', kind: 'viability', call: 0 },
        summary: `planning model: viability after step ${step.step_num}`,
        prompt: fill(VIABILITY_TEMPLATE, { query: question, completedSteps: completedListing(results, state.earlier), remainingSteps: stepListing(state.plan.slice(cursor + 1)) }),
        earlierSteps: earlierStepsOf(state),
      },
      parseViability,
      counterOf(state, 'viabilityCalls'),
      { kind: 'viability', fallback: { replan: false, confidence: 0, reason: '' }, assumed: 'the remaining plan is viable' },
    );
    if (verdict.replan && verdict.confidence >= p.replan_confidence_threshold) {
      return { after_step: step.step_num, trigger: 'viability', reason: `viability check (confidence ${verdict.confidence}): ${verdict.reason}` };
    }
    return undefined;
  }

  /** Before a continue-as-new: the executed plan steps before the latest CARRIED_STEPS go to memory (the prompts read them back). */
  async function fold(): Promise<void> {
    if (state.results.length <= CARRIED_STEPS || !patched(EARLIER_STEPS_PATCH)) return;
    const [before, texts] = [state.earlier, foldEarlierSteps(state, CARRIED_STEPS)]; // where the earlier parts were, then the next part
    if (texts) state.earlier = { ...state.earlier!, ...(await storeEarlierSteps(run, before, texts)) };
  }

  function syncPlan(): void {
    progress.plan_steps = state.plan;
    showPlan(run, state.plan.filter((s) => s.status === 'pending' || s.status === 'running').map((s) => s.goal));
  }
}

