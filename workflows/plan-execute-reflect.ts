/**
 * The seed's plan-execute-reflect loop: the planner writes a plan, a ReAct executor child
 * carries out its first step, the planner re-evaluates with the completed steps, until it
 * returns a result or `max_steps` is reached. Everything else is the run kernel's.
 */
import type { PlannerPromptRef } from '../core/activity-contract';
import { parsePlannerOutput } from '../core/planner-output';
import { maxStepsReachedMessage, parallelStepsInstructions, planStoppedMessage } from '../core/prompts';
import { preview } from '../core/text';
import type { RunInput, RunOutput } from './definitions';
import { completedStepRefs, openRun } from './kernel/context';
import { checkpoint, finish, guard, summarizeSteps } from './kernel/lifecycle';
import { finishAnswer } from './kernel/typed-output';
import { askParsed } from './kernel/model-calls';
import { runSteps } from './kernel/steps';
import { plannerCalls } from './kernel/call-positions';
import { showPlan } from './kernel/agent-type-run';

type TemplateKey = 'planner_prompt_template' | 'reflect_prompt_template' | 'planner_with_history_template';

/** The input of every agent type's workflow (the name this workflow gave it first). */
export type PlanExecuteReflectInput = RunInput;

export async function planExecuteReflect(input: RunInput): Promise<RunOutput> {
  // With max_parallel_steps > 1 the planner is told it may group independent steps.
  const run = await openRun(input, (p) => ({
    maxUnits: p.max_steps,
    planningSystem: p.max_parallel_steps > 1 ? p.system_prompt + parallelStepsInstructions(p.max_parallel_steps) : p.system_prompt,
  }));
  const { progress, p } = run;
  // The planner renders its prompt in the activity from the completed steps' IDs (claim check).
  // history_count 0 goes without saying (the activity reads it so), as in every call of a run without earlier exchanges.
  const format = run.promptFormat === 'ml-commons' ? { format: run.promptFormat, ...(run.historyCount > 0 ? { history_count: run.historyCount } : {}) } : {};
  const promptRef = (key: TemplateKey): PlannerPromptRef =>
    run.materialId !== undefined
      ? { template_key: key, steps: progress.plan, ...completedStepRefs(run), ...format }
      : { template: p[key], params: run.params, steps: progress.plan, ...completedStepRefs(run), ...format };
  const planner = plannerCalls(input, progress.steps_executed);
  const defaultForkPoint = run.forkPoint;
  run.forkPoint = (step) => planner.forkPoint(defaultForkPoint(step), step);

  return guard(run, async () => {
    for (;;) {
      if (progress.steps_executed >= p.max_steps) {
        return finish(run, maxStepsReachedMessage(p.max_steps, await summarizeSteps(run), run.ids.memory_id));
      }
      const ended = await checkpoint(run, planner.carried());
      if (ended) return ended;

      progress.status = 'planning';
      const template: TemplateKey =
        progress.steps_executed > 0 ? 'reflect_prompt_template' : run.completedIds.length > 0 ? 'planner_with_history_template' : 'planner_prompt_template';
      const what = progress.steps_executed === 0 ? 'initial plan' : `reflect after step ${progress.steps_executed}`;
      const parsed = await askParsed(
        run,
        { model: 'planning', position: { role: 'planner', call: planner.counter.next }, summary: `planner: ${what}`, render: promptRef(template) },
        (raw) => {
          // Runs started before max_parallel_steps existed parse as they did (no groups).
          const out = parsePlannerOutput(raw, { groups: p.max_parallel_steps !== undefined });
          return out.ok ? { ok: true, value: out } : out;
        },
        'planner answer',
        planner.counter,
      );
      if (parsed.result !== '') return finishAnswer(run, parsed.result);

      // A person may approve, edit or reject the plan first (plan_approval).
      const review = await run.human.reviewPlan(parsed.steps);
      if (review.action === 'stop') return finish(run, planStoppedMessage(review));
      if (review.action === 'replan') continue;
      showPlan(run, review.steps);
      // The planner's first group of independent steps (an edited plan runs step by step).
      const grouped = review.steps === parsed.steps && p.max_parallel_steps > 1 ? (parsed.batch ?? 1) : 1;
      const batch = review.steps.slice(0, Math.min(grouped, p.max_steps - progress.steps_executed));
      const first = progress.steps_executed;
      await runSteps(
        run,
        batch.map((step, i) => ({ unit: first + i, label: step, text: step, tools: run.tools, summary: `step ${first + i + 1}: ${preview(step, 150)}` })),
        p.max_parallel_steps,
      );
      planner.stepsDone(first, progress.steps_executed);
    }
  });
}
