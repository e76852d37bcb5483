/**
 * todo_list's executor child from before its iterations ran on the kernel's step runner: each
 * todo ran in a child `<run>/todo-<n>` that looped ReAct execution and the completion
 * assessment itself. Kept so runs recorded before (and such children still open during an
 * upgrade) replay and finish; new runs never start it (patch `todo-list-kernel-steps`).
 * Deprecate it when no run started before that patch is open.
 */
import { ActivityFailure, executeChild, log, workflowInfo } from '@temporalio/workflow';
import type { AgentTool, ModelSettings } from '../../core/activity-contract';
import type { MemoryIds } from '../../core/memory-ids';
import { completionPrompt, parseCompletion, todoExecutionText, toolsNamed, type TodoOutcome, type Variable } from '../../core/agent-types';
import { addUsage, ZERO_USAGE, type Usage } from '../../core/llm-types';
import { preview } from '../../core/text';
import type { TodoView } from '../definitions';
import { modelActivities } from '../kernel/activity-presets';
import type { RunContext } from '../kernel/context';
import { executionModelPrompt, responseFilter } from '../kernel/model-calls';
import { runReact, type ToolBinding } from '../kernel/react-executor';
import { modelForCall, modelForStep } from '../kernel/scripted-calls';
import { executorTools, recordStep, saveFailedStep } from '../kernel/steps';

export interface TodoExecutorInput {
  todo: TodoView;
  goal: string;
  execution_instructions: string;
  variables: Variable[];
  /** Executor position of the first iteration (iterations count on from it across the run). */
  first_unit: number;
  /** Iterations this todo may use. */
  max_iterations: number;
  /** The todo's tools and executor system prompt, inline (runs without prompt material)… */
  tools?: AgentTool[];
  system_prompt?: string;
  /** …or by reference to the run's prompt material. */
  material_id?: string;
  tool_refs?: ToolBinding[];
  model: ModelSettings;
  /** System prompt of the completion assessment (the executor's when absent, as in runs recorded before it). */
  assessment_system_prompt?: string;
  executor_max_iterations: number;
  message_history_limit: number;
  ids: MemoryIds;
  llm_task_queue?: string;
  /** The agent's custom `llm_response_filter`, applied to the execution model's answers. */
  response_filter?: string;
}

export interface TodoIteration {
  iteration: number;
  unit: number;
  ok: boolean;
  result: string;
  result_chars: number;
  completed: boolean;
  feedback: string;
}

export interface TodoExecutorOutput {
  completed: boolean;
  iterations: TodoIteration[];
  usage: Usage;
}

/** Runs one todo in a todo child, as runs recorded before the patch did, and records its iterations as steps. */
export async function runTodoInChild(run: RunContext, todo: TodoView, at: { index: number; goal: string; execution: string; variables: Variable[]; unit: number }): Promise<TodoOutcome> {
  const { agent, p, progress } = run;
  const childId = `${workflowInfo().workflowId}/todo-${at.index + 1}`;
  todo.executor_workflow_id = childId;
  progress.status = 'executing';
  progress.current_step = { index: at.unit, step: `todo ${todo.stepNo}: ${todo.description}`, executor_workflow_id: childId };
  run.showProgress();
  const out = await executeChild(todoExecutor, {
    workflowId: childId,
    staticSummary: preview(`todo ${todo.stepNo}: ${todo.description}`, 150),
    args: [
      {
        todo,
        goal: at.goal,
        execution_instructions: at.execution,
        variables: at.variables,
        first_unit: at.unit,
        // The run's iteration budget bounds each todo too.
        max_iterations: Math.min(todo.maxIterationsPerTodo, p.max_iterations - at.unit),
        ...executorTools(run, todo.availableToolIds.length > 0 ? toolsNamed(run.tools, todo.availableToolIds) : run.tools),
        model: agent.executor_llm,
        assessment_system_prompt: run.planningSystem,
        executor_max_iterations: p.executor_max_iterations,
        message_history_limit: p.executor_message_history_limit,
        ids: run.memoryIds,
        ...(run.input.llm_task_queue ? { llm_task_queue: run.input.llm_task_queue } : {}),
        ...responseFilter(run, 'execution'),
      },
    ],
  });
  progress.usage = addUsage(progress.usage, out.usage);
  for (const it of out.iterations) {
    recordStep(run, it.unit, `todo ${todo.stepNo}, iteration ${it.iteration}: ${todo.description}`, { ok: it.ok, result: it.result, result_chars: it.result_chars, executor_workflow_id: childId });
  }
  return { completed: out.completed, iterations: out.iterations.map((it) => ({ unit: it.unit, result: it.result })) };
}

/**
 * One todo: ReAct execution then the completion assessment (execution model), until the
 * assessment says COMPLETED or the todo's iterations are used up.
 */
export async function todoExecutor(input: TodoExecutorInput): Promise<TodoExecutorOutput> {
  const { todo } = input;
  const models = modelActivities(input.llm_task_queue);
  const iterations: TodoIteration[] = [];
  let usage = ZERO_USAGE;
  let feedback = '';
  for (let i = 0; i < input.max_iterations; i++) {
    const unit = input.first_unit + i;
    const text = todoExecutionText(todo, input.goal, input.execution_instructions, i + 1, feedback, input.variables);
    let result: string;
    let chars: number;
    let ok = true;
    try {
      const out = await runReact({
        step: text,
        stepIndex: unit,
        ...(input.material_id !== undefined ? { material_id: input.material_id, tool_refs: input.tool_refs } : { system_prompt: input.system_prompt, tools: input.tools }),
        model: modelForStep(input.model, unit),
        max_iteration: input.executor_max_iterations,
        message_history_limit: input.message_history_limit,
        ids: input.ids,
        ...(input.llm_task_queue ? { llm_task_queue: input.llm_task_queue } : {}),
        ...(input.response_filter ? { response_filter: input.response_filter } : {}),
      });
      usage = addUsage(usage, out.usage);
      result = out.result_preview;
      chars = out.result_chars;
    } catch (err) {
      // A failed iteration is not completed; the next one may do better.
      if (!(err instanceof ActivityFailure)) throw err;
      ok = false;
      result = await saveFailedStep(input.ids, unit, text, err, 'Iteration failed');
      chars = result.length;
    }
    let completed = false;
    feedback = 'the iteration failed';
    if (ok) {
      const position = { role: 'task', kind: 'completion', call: unit } as const;
      const answer = await executionModelPrompt(models, modelForCall(input.model, position), {
        summary: `execution model: completion of todo ${todo.stepNo}, iteration ${i + 1}`,
        system: input.assessment_system_prompt ?? input.system_prompt ?? '',
        position,
        prompt: completionPrompt(todo, input.execution_instructions, i + 1, result),
        ...(input.response_filter ? { response_filter: input.response_filter } : {}),
      });
      usage = addUsage(usage, answer.usage);
      const assessment = parseCompletion(answer.text);
      if (!assessment.ok) log.warn('completion assessment could not be read; the todo is not completed yet', { error: assessment.error });
      completed = assessment.ok && assessment.value.completed;
      feedback = assessment.ok ? assessment.value.feedback || 'not met yet' : 'the assessment was unclear';
    }
    iterations.push({ iteration: i + 1, unit, ok, result, result_chars: chars, completed, feedback: completed ? '' : feedback });
    if (completed) break;
  }
  return { completed: iterations.at(-1)?.completed ?? false, iterations, usage };
}
