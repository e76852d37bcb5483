/**
 * Structured plan-and-execute (seed 003): the planning model writes `PlanStep`s with success
 * criteria; each step runs guided (its primary tool, the condensed results of the last five
 * steps) in ReAct executor children, up to `max_step_attempts` times; after every step but the
 * last, re-planning triggers are checked (failed after ≥ 3 attempts, a keyword in the
 * observation, the viability check at ≥ 0.7 confidence) and the unfinished part of the plan is
 * replaced; the final answer is synthesised from the step summaries, with run metadata.
 */
import { instructionsOf } from '../core/agent-file/instructions';
import {
  findReplanKeyword,
  OBSERVATION_METADATA_CHARS,
  parsePlanSteps,
  parseVerification,
  parseViability,
  PLANNING_TEMPERATURE,
  planStatistics,
  renumberAdapted,
  type PlanStep,
  type StepResult,
} from '../core/agent-types';
import {
  ADAPT_PLAN_TEMPLATE,
  EXECUTION_PLAN_TEMPLATE,
  fill,
  FINAL_ANSWER_TEMPLATE,
  instructionBlock,
  parallelPlanInstructions,
  STEP_ACTION_TEMPLATE,
  STEP_VERIFICATION_TEMPLATE,
  VIABILITY_TEMPLATE,
} from '../core/agent-types';
import { log, patched } from '@temporalio/workflow';
import { planStoppedMessage } from '../core/prompts';
import { preview } from '../core/text';
import type { ForkPoint, PlanStepView, Replan, RunInput, RunOutput } from './definitions';
import { agentTypeSystemPrompt, toolListing, toolsNamed } from './agent-type-helpers';
import { openRun } from './kernel/context';
import { checkpoint, finish, guard } from './kernel/lifecycle';
import { ask, askParsed } from './kernel/model-calls';
import { runStep, runSteps, type StepOutcome } from './kernel/steps';

/** How many earlier observations a step sees (seed 003 keeps the last 5). */
const OBSERVATION_WINDOW = 5;

/** What a plan_and_execute run carries across continue-as-new. */
interface PlanAndExecuteState {
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
}

/** Runs recorded before the StepVerifier took an attempt without errors as a success. */
const STEP_VERIFIER_PATCH = 'plan-and-execute-step-verifier';

export async function planAndExecute(input: RunInput<PlanAndExecuteState>): Promise<RunOutput> {
  const run = await openRun(input, (p) => ({ maxUnits: p.max_steps, planningSystem: agentTypeSystemPrompt(p) }));
  const { agent, question, p, progress } = run;
  const toolIds = run.tools.map((t) => t.spec.name);
  const planning = instructionBlock(instructionsOf(agent, 'planning'));
  const execution = instructionBlock(instructionsOf(agent, 'execution'));
  // A fork's first execution starts from the source's plan and results up to the fork's step.
  const forked = run.carried ? undefined : (run.input.fork?.agent_state as PlanAndExecuteState | undefined);
  const state: PlanAndExecuteState = run.carried?.agent_state ?? forked ?? {
    plan: [],
    cursor: 0,
    results: [],
    observations: [],
    replans: [],
    unit: 0,
    plannerCalls: 0,
    viabilityCalls: 0,
  };
  const { results, observations, replans } = state;
  const plannerCalls = { next: state.plannerCalls };
  progress.replans = replans;
  run.forkPoint = forkPoint;

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
      if (results.length >= p.max_steps) {
        stoppedAt = p.max_steps;
        break;
      }
      state.plannerCalls = plannerCalls.next;
      const ended = await checkpoint(run, { state: () => state, metadata });
      if (ended) return ended;
      // Steps whose dependencies are done run together (max_parallel_steps, `depends_on`).
      const batch = readyBatch(cursor);
      if (batch.length > 1) {
        const outcome = await runBatch(batch);
        state.cursor += batch.length - 1;
        const last = state.cursor;
        if (last < state.plan.length - 1) {
          const trigger = await batchTrigger(batch, outcome, last);
          const stopped = trigger ? await adapt(trigger, last) : undefined;
          if (stopped) return finish(run, planStoppedMessage(stopped), metadata());
        }
        continue;
      }
      const step = state.plan[cursor];
      step.status = 'running';
      syncPlan();
      const tool = step.primary_tools[0] ?? '';
      let outcome: StepOutcome | undefined;
      let observation = '';
      let error: string | undefined;
      if (tool !== '' && !toolIds.includes(tool)) {
        // No fallback to another tool (seed 003): the step fails and re-planning may fix it.
        observation = `Tool not found: ${tool}; the agent's tools: ${toolIds.join(', ') || 'none'}`;
        error = observation;
        step.attempts = 1;
      } else {
        for (let attempt = 1; attempt <= p.max_step_attempts; attempt++) {
          step.attempts = attempt;
          outcome = await runStep(run, {
            unit: state.unit++,
            label: `step ${step.step_num}${attempt > 1 ? `, attempt ${attempt}` : ''}: ${step.goal}`,
            text: actionInput(step, attempt, observation),
            tools: toolsNamed(run.tools, tool === '' ? [] : [tool]),
          });
          observation = outcome.result;
          error = attemptError(outcome);
          // The StepVerifier: an attempt succeeds when its observation meets the step's criteria.
          if (error === undefined && step.success_criteria.trim() !== '' && patched(STEP_VERIFIER_PATCH)) error = await verify(step, observation);
          if (error === undefined) break;
        }
      }
      const success = error === undefined;
      recordResult(step, observation, error);
      syncPlan();

      if (cursor < state.plan.length - 1) {
        const trigger = await replanTrigger(step, success, observation, cursor);
        const stopped = trigger ? await adapt(trigger, cursor) : undefined;
        if (stopped) return finish(run, planStoppedMessage(stopped), metadata());
      }
    }

    const answer = await ask(run, {
      model: 'planning',
      position: { role: 'task', kind: 'final', call: 0 },
      summary: 'planning model: final answer',
      takesFeedback: true,
      prompt: fill(FINAL_ANSWER_TEMPLATE, {
        query: question,
        stepSummaries: results.map((r) => `${r.success ? '✅' : '❌'} Step ${r.step_num}: ${r.goal} [tool: ${r.tool_used || 'none'}] → ${preview(r.observation, 300)}`).join('\n'),
        observations: observations.join('\n'),
      }),
    });
    return finish(run, answer, metadata(stoppedAt));
  });

  /** A step's outcome in the results, observations and plan. */
  function recordResult(step: PlanStepView, observation: string, error: string | undefined): void {
    const tool = step.primary_tools[0] ?? '';
    step.status = error === undefined ? 'completed' : 'failed';
    results.push({
      step_num: step.step_num,
      goal: step.goal,
      success: error === undefined,
      tool_used: tool,
      attempts: step.attempts,
      observation: preview(observation, OBSERVATION_METADATA_CHARS),
      ...(error !== undefined ? { error: preview(error, OBSERVATION_METADATA_CHARS) } : {}),
    });
    observations.push(`Step ${step.step_num} (${tool || 'no tool'}): ${preview(observation, 300)}`);
  }

  /** Replaces the plan after `cursor` with an adapted one (reviewed when `plan_approval` says so); the reviewer's stop when they stop the run. */
  async function adapt(trigger: Replan, cursor: number): Promise<{ reason: string; by: string } | undefined> {
    replans.push(trigger);
    const adapted = await reviewed(() => planSteps(fill(ADAPT_PLAN_TEMPLATE, {
      planningInstructions: planning,
      query: question,
      completedSteps: completedListing(),
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
   * The steps to run next: the step at `cursor`, and — with `max_parallel_steps` > 1 — the
   * steps after it whose `depends_on` names only steps already done, up to the cap and `max_steps`.
   */
  function readyBatch(cursor: number): PlanStepView[] {
    const first = state.plan[cursor];
    if (!(p.max_parallel_steps > 1)) return [first];
    const done = new Set(state.plan.slice(0, cursor).map((s) => s.step_num));
    const room = Math.min(p.max_parallel_steps, p.max_steps - results.length);
    const batch = [first];
    for (let i = cursor + 1; i < state.plan.length && batch.length < room; i++) {
      const deps = state.plan[i].depends_on;
      if (deps === undefined || deps.some((d) => !done.has(d))) break;
      batch.push(state.plan[i]);
    }
    return batch;
  }

  /**
   * Independent steps at once: each attempt round runs the steps not yet done as concurrent
   * executor children (recorded in plan order), then verifies each; results go in plan order.
   */
  async function runBatch(batch: PlanStepView[]): Promise<{ observation: string; error?: string }[]> {
    const outcome = batch.map(() => ({ observation: '', error: undefined as string | undefined, done: false }));
    batch.forEach((step, i) => {
      step.status = 'running';
      const tool = step.primary_tools[0] ?? '';
      if (tool !== '' && !toolIds.includes(tool)) {
        outcome[i] = { observation: `Tool not found: ${tool}; the agent's tools: ${toolIds.join(', ') || 'none'}`, error: '', done: true };
        outcome[i].error = outcome[i].observation;
        step.attempts = 1;
      }
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
          text: actionInput(step, attempt, outcome[i].observation),
          tools: toolsNamed(run.tools, tool === '' ? [] : [tool]),
        };
      });
      const outcomes = await runSteps(run, requests, p.max_parallel_steps);
      for (const [k, i] of open.entries()) {
        const o = outcome[i];
        o.observation = outcomes[k].result;
        o.error = attemptError(outcomes[k]);
        if (o.error === undefined && batch[i].success_criteria.trim() !== '' && patched(STEP_VERIFIER_PATCH)) o.error = await verify(batch[i], o.observation);
        o.done = o.error === undefined;
      }
    }
    batch.forEach((step, i) => recordResult(step, outcome[i].observation, outcome[i].error));
    syncPlan();
    return outcome;
  }

  /** Re-planning after a batch: a failed step or a keyword in any of them, in plan order, then one viability check. */
  async function batchTrigger(batch: PlanStepView[], outcome: { observation: string; error?: string }[], last: number): Promise<Replan | undefined> {
    for (const [i, step] of batch.entries()) {
      const trigger = await replanTrigger(step, outcome[i].error === undefined, outcome[i].observation, last, i === batch.length - 1);
      if (trigger) return trigger;
    }
    return undefined;
  }

  /**
   * A fork from plan step `step`: the plan steps before it (done, in order), the executions
   * they took (which must come before any of a later step's), and the plan and results so far.
   */
  function forkPoint(step: number): ForkPoint {
    const done = state.plan.findIndex((s) => s.status !== 'completed' && s.status !== 'failed');
    const completed = done === -1 ? state.plan.length : done;
    const kept = Math.max(0, Math.min(step - 1, completed));
    const position = (label: string) => state.plan.findIndex((s) => s.step_num === Number(/^step (\d+)/.exec(label)?.[1]));
    const reused = (label: string) => {
      const at = position(label);
      return at >= 0 && at < kept;
    };
    const units = progress.completed_steps;
    const ahead = units.findIndex((u) => !reused(u.step));
    const steps = ahead === -1 ? units : units.slice(0, ahead);
    const point: ForkPoint = { completed, steps };
    if (units.slice(steps.length).some((u) => reused(u.step))) {
      return { ...point, refused: `the steps before step ${step} ran in one batch with later steps (max_parallel_steps): fork from the first step of that batch` };
    }
    if (kept === 0) return point;
    return {
      ...point,
      agent_state: {
        plan: state.plan.map((s, i) => (i < kept ? s : { ...s, status: 'pending', attempts: 0 })),
        cursor: kept,
        results: results.slice(0, kept),
        observations: observations.slice(0, kept),
        replans: replans.filter((r) => r.after_step < kept),
        unit: steps.length,
        plannerCalls: 0,
        viabilityCalls: 0,
        verificationCalls: 0,
      } satisfies PlanAndExecuteState,
    };
  }

  function metadata(stoppedAt?: number): Record<string, unknown> {
    return {
      agent_type: 'plan_and_execute',
      architecture: 'plan-and-execute: structured plan, guided ReAct execution per step, re-planning triggers, synthesised answer',
      planning: { plan: state.plan.map(({ status: _s, attempts: _a, ...s }) => s), replans },
      execution: { steps: results },
      summary: planStatistics(results),
      ...(stoppedAt !== undefined ? { stopped: `max_steps (${stoppedAt}) reached` } : {}),
    };
  }

  /** Asks for a plan (initial or adapted) until it parses. */
  async function planSteps(prompt: string, summary: string, firstNum: number): Promise<PlanStep[]> {
    const first = plannerCalls.next === 0;
    return askParsed(
      run,
      { model: 'planning', position: { role: 'planner', call: plannerCalls.next }, summary, prompt, withHistory: first, parameterDefaults: { temperature: PLANNING_TEMPERATURE } },
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
  async function verify(step: PlanStepView, observation: string): Promise<string | undefined> {
    const call = state.verificationCalls ?? 0;
    state.verificationCalls = call + 1;
    const raw = await ask(run, {
      model: 'planning',
      position: { role: 'task', kind: 'verification', call },
      summary: `planning model: verify step ${step.step_num}, attempt ${step.attempts}`,
      prompt: fill(STEP_VERIFICATION_TEMPLATE, { goal: step.goal, successCriteria: step.success_criteria, observation: preview(observation, 4_000) }),
    });
    const verdict = parseVerification(raw);
    if (!verdict.ok) {
      log.warn('step verification could not be read; taking the step as done', { error: verdict.error });
      return undefined;
    }
    return verdict.value.met ? undefined : `the success criteria are not met: ${verdict.value.reason || 'no reason given'}`;
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
    const raw = await ask(run, {
      model: 'planning',
      position: { role: 'task', kind: 'viability', call: state.viabilityCalls++ },
      summary: `planning model: viability after step ${step.step_num}`,
      prompt: fill(VIABILITY_TEMPLATE, { query: question, completedSteps: completedListing(), remainingSteps: stepListing(state.plan.slice(cursor + 1)) }),
    });
    const verdict = parseViability(raw);
    if (!verdict.ok) {
      log.warn('viability check could not be read; keeping the plan', { error: verdict.error });
      return undefined;
    }
    if (verdict.value.replan && verdict.value.confidence >= p.replan_confidence_threshold) {
      return { after_step: step.step_num, trigger: 'viability', reason: `viability check (confidence ${verdict.value.confidence}): ${verdict.value.reason}` };
    }
    return undefined;
  }

  function actionInput(step: PlanStepView, attempt: number, lastObservation: string): string {
    const recent = observations.slice(-OBSERVATION_WINDOW);
    return fill(STEP_ACTION_TEMPLATE, {
      executionInstructions: execution,
      query: question,
      stepNum: String(step.step_num),
      totalSteps: String(state.plan.length),
      goal: step.goal,
      tool: step.primary_tools[0] ?? 'none (reason from the results so far)',
      successCriteria: step.success_criteria || 'the goal is met',
      context: step.context ? `\nContext: ${step.context}` : '',
      previousResults:
        (recent.length > 0 ? `\n\nResults of previous steps:\n${recent.join('\n')}` : '') +
        (attempt > 1 ? `\n\nAttempt ${attempt}: the previous attempt did not succeed: ${preview(lastObservation, 300)}` : ''),
    });
  }

  function completedListing(): string {
    return results.map((r) => `${r.success ? '✅' : '❌'} ${r.step_num}. ${r.goal} [${r.tool_used || 'no tool'}]: ${preview(r.observation, 300)}`).join('\n') || 'none';
  }

  function syncPlan(): void {
    progress.plan_steps = state.plan;
    progress.plan = state.plan.filter((s) => s.status === 'pending' || s.status === 'running').map((s) => s.goal);
    run.showProgress();
  }
}

function stepView(s: PlanStep): PlanStepView {
  return { ...s, status: 'pending', attempts: 0 };
}

function stepListing(steps: readonly PlanStep[]): string {
  return steps.map((s) => `${s.step_num}. ${s.goal} [${s.primary_tools.join(', ') || 'no tool'}] — done when: ${s.success_criteria}`).join('\n') || 'none';
}

/** Why an attempt did not succeed, or undefined when it did. */
function attemptError(o: StepOutcome): string | undefined {
  if (!o.ok) return o.result;
  if (o.limit_reached) return 'the executor reached its iteration limit';
  if (o.tool_errors > 0 && o.tool_errors >= o.tool_calls) return 'every tool call returned an error';
  return undefined;
}
