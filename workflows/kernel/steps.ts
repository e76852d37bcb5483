/**
 * Step execution for every agent type: an executed step (or iteration, or attempt) is a ReAct
 * executor child workflow `<run>/step-<n>`; a step that fails is saved in memory as
 * `Step failed: …` (in one place: {@link saveFailedStep}) and reported to the agent, which may
 * re-plan around it.
 */
import { ActivityFailure, ChildWorkflowFailure, executeChild, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import type { AgentTool } from '../../core/activity-contract';
import { isAgentTool } from '../../core/agent-file/sub-agents';
import { stepTraceId } from '../../core/memory-ids';
import { addUsage } from '../../core/llm-types';
import { preview } from '../../core/text';

import type { MemoryIds } from '../../core/memory-ids';
import { reactExecutor, type ReactExecutorInput, type ReactExecutorOutput } from './react-executor';
import type { StepEvents } from './events';
import { memoryActivities } from './activity-presets';
import { causeMessage, type RunContext } from './context';
import { responseFilter } from './model-calls';
import { modelForStep } from './scripted-calls';
import { countStep } from './metrics';
import { askPerson, GuardrailTripped } from './guardrails';
import { tenantOf, withinBudget } from './dollar-budget';

/** One executed step. */
export interface StepOutcome {
  ok: boolean;
  /** The result (bounded preview; the whole result is in memory). */
  result: string;
  result_chars: number;
  tool_calls: number;
  tool_errors: number;
  limit_reached: boolean;
  executor_workflow_id: string;
}

export interface StepRequest {
  /** 0-based position among the run's executed steps (`<run>/step-<unit+1>`, the step's memory records). */
  unit: number;
  /** The step as progress shows it. */
  label: string;
  /** What the executor is asked to do. */
  text: string;
  tools: AgentTool[];
  /** The child's summary in the Temporal UI (default: the label). */
  summary?: string;
}

/** Executes one step in a ReAct executor child workflow and records it in the progress. */
export async function runStep(run: RunContext, step: StepRequest): Promise<StepOutcome> {
  await withinBudgetBeforeSteps(run);
  const outcome = await executeStep(run, step);
  recordStep(run, step.unit, step.label, outcome);
  return outcome;
}

/**
 * Executes independent steps as concurrent executor children, at most `cap` at once, and
 * records them in the order given (their units are consecutive), whatever order they end in.
 * A failed step is a failed step result; the others go on.
 */
export async function runSteps(run: RunContext, steps: StepRequest[], cap: number): Promise<StepOutcome[]> {
  if (steps.length === 1) return [await runStep(run, steps[0])];
  await withinBudgetBeforeSteps(run);
  const outcomes: StepOutcome[] = [];
  let next = 0;
  const lane = async () => {
    while (next < steps.length) {
      const i = next++;
      outcomes[i] = await executeStep(run, steps[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(cap, steps.length) }, lane));
  steps.forEach((step, i) => recordStep(run, step.unit, step.label, outcomes[i]));
  return outcomes;
}

/** Runs recorded before waited at their budget only before a model call of their own. */
const BUDGET_BEFORE_STEPS_PATCH = 'budget-before-steps';

/**
 * A run at its dollar budget takes `budget_action` before a step starts rather than cut the
 * step at its first model call (see `budget_usd`); runs without `max_cost_usd` add no command.
 */
async function withinBudgetBeforeSteps(run: RunContext): Promise<void> {
  if (run.p.max_cost_usd === undefined || !patched(BUDGET_BEFORE_STEPS_PATCH)) return;
  await withinBudget(run);
}

/** Runs one step's executor child; shows it among the running steps meanwhile. */
async function executeStep(run: RunContext, step: StepRequest): Promise<StepOutcome> {
  const { progress } = run;
  const ids = run.memoryIds;
  const executorWorkflowId = `${workflowInfo().workflowId}/step-${step.unit + 1}`;
  const running = { index: step.unit, step: step.label, executor_workflow_id: executorWorkflowId };
  progress.status = 'executing';
  progress.current_step = progress.current_step ?? running;
  if (progress.current_step !== running) progress.current_steps = [...(progress.current_steps ?? [progress.current_step]), running];
  run.showProgress();
  // The step's start goes to its executor, which writes it with its first text.
  const started = run.events.startStep(step.unit, step.label, step.text);
  let outcome: StepOutcome;
  try {
    const out: ReactExecutorOutput = await executeChild(reactExecutor, {
      workflowId: executorWorkflowId,
      staticSummary: step.summary ?? preview(step.label, 150),
      args: [executorInput(run, step, started)],
    }).catch((err: unknown) => {
      run.events.stepEnded(step.unit, true);
      throw err;
    });
    run.events.stepEnded(step.unit, false);
    progress.usage = addUsage(progress.usage, out.usage);
    // A tool_output guardrail withheld a tool's output: the run stops (guard ends it `tripped`), or a person decides whether it goes on without it.
    if (out.tripped?.on_fail === 'ask') await askPerson(run, out.tripped);
    else if (out.tripped) throw new GuardrailTripped(out.tripped);
    outcome = {
      ok: true,
      result: out.result_preview,
      result_chars: out.result_chars,
      tool_calls: out.tool_calls,
      tool_errors: out.tool_errors ?? 0,
      limit_reached: out.limit_reached ?? false,
      executor_workflow_id: executorWorkflowId,
    };
  } catch (err) {
    if (!(err instanceof ChildWorkflowFailure)) throw err;
    const result = await saveFailedStep(ids, step.unit, step.text, err, 'Step failed');
    outcome = { ok: false, result, result_chars: result.length, tool_calls: 0, tool_errors: 0, limit_reached: false, executor_workflow_id: executorWorkflowId };
  }
  run.events.stepFinished(step.unit, outcome.ok, outcome.result);
  if (progress.current_steps) {
    const rest = progress.current_steps.filter((c) => c.index !== step.unit);
    progress.current_steps = rest.length > 1 ? rest : undefined;
    progress.current_step = rest[0];
    run.showProgress();
  }
  return outcome;
}

/**
 * Saves a step whose execution failed as `<prefix>: <cause>` (the executor could not save it)
 * and returns that text. Cancellation is not a failed step: it is rethrown.
 */
export async function saveFailedStep(ids: MemoryIds, unit: number, text: string, err: ChildWorkflowFailure | ActivityFailure, prefix: string): Promise<string> {
  if (isCancellation(err)) throw err;
  const result = `${prefix}: ${causeMessage(err)}`;
  await memoryActivities.saveStep({ ids, stepIndex: unit, step: text, result });
  return result;
}

/** Adds an executed step to the progress (and its trace to the completed steps the planner reads). */
export function recordStep(run: RunContext, unit: number, label: string, outcome: Pick<StepOutcome, 'ok' | 'result' | 'result_chars' | 'executor_workflow_id'>): void {
  const { progress } = run;
  run.completedIds.push(stepTraceId(run.ids.parent_interaction_id, unit));
  progress.completed_steps.push({
    index: unit,
    step: label,
    result_preview: preview(outcome.result),
    result_chars: outcome.result_chars,
    ok: outcome.ok,
    executor_workflow_id: outcome.executor_workflow_id,
  });
  progress.steps_executed++;
  countStep(run.agent.type);
  if (!progress.current_steps) progress.current_step = undefined;
  if (!progress.current_step) progress.status = 'planning';
  run.showProgress();
}

/** The whole result of an executed step, from memory (for the run's response). */
export function fullResult(run: RunContext, unit: number): Promise<string> {
  return memoryActivities.stepResult({ ids: run.memoryIds, stepIndex: unit });
}

/** The input of a step's executor child: the one place it is built, for every agent type. */
export function executorInput(run: RunContext, step: Pick<StepRequest, 'unit' | 'text' | 'tools'>, started: StepEvents): ReactExecutorInput {
  const { agent, p } = run;
  return {
    step: step.text,
    stepIndex: step.unit,
    ...executorTools(run, step.tools),
    model: modelForStep(agent.executor_llm, step.unit),
    max_iteration: p.executor_max_iterations,
    message_history_limit: p.executor_message_history_limit,
    ids: run.memoryIds,
    ...(run.input.llm_task_queue ? { llm_task_queue: run.input.llm_task_queue } : {}),
    ...responseFilter(run, 'execution'),
    // Handed step_events, the child takes step memory and tool results by reference: those two flags go unsent.
    step_events: started,
    agent: agent.name,
    ...stepBudget(run),
    ...tenantOf(run),
    ...(run.input.sub_agent ? { agent_path: run.input.sub_agent.path } : {}),
    ...(agent.guardrails?.tool_output?.length ? { tool_guardrails: agent.guardrails.tool_output } : {}),
    ...(step.tools.some((t) => isAgentTool(t.ref)) ? { search_attributes: workflowInfo().typedSearchAttributes.getAll().map((a) => a.key.name), ...(run.input.perflow_version !== undefined ? { perflow_version: run.input.perflow_version } : {}) } : {}),
  };
}

/** The dollars a step may spend: the run's budget left (runs with `max_cost_usd` whose cost is known). */
function stepBudget(run: RunContext): Pick<ReactExecutorInput, 'budget_usd'> {
  const cap = run.human.budget.cap();
  const cost = run.progress.usage.cost_usd;
  if (cap === undefined || cost === null || cost === undefined) return {};
  return { budget_usd: Math.max(0, Math.round((cap - cost) * 1e12) / 1e12) };
}

/**
 * How an executor child gets its system prompt and tools: by reference to the run's prompt
 * material (names and refs only), or inline in runs without it.
 */
export function executorTools(run: RunContext, tools: AgentTool[]): Pick<ReactExecutorInput, 'material_id' | 'tool_refs' | 'system_prompt' | 'tools'> {
  if (run.materialId === undefined) return { system_prompt: run.executorSystem, tools };
  return { material_id: run.materialId, tool_refs: tools.map((t) => (t.spec.name === t.ref.type ? { ref: t.ref } : { name: t.spec.name, ref: t.ref })) };
}
