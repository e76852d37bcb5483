/**
 * Axon Ivy's TODO_LIST agent (TodoAgent): the planning model writes outcome-focused todos with
 * success criteria; each todo runs in its own child workflow, iterating (ReAct execution, then
 * the completion assessment) until it is done or `maxIterationsPerTodo` is reached; after each
 * completed todo the goal assessment decides GOAL_ACHIEVED (stop) or CONTINUE_NEEDED.
 */
import { ActivityFailure, executeChild, log, patched, workflowInfo } from '@temporalio/workflow';
import type { AgentTool } from '../core/contract';
import type { ModelSettings } from '../core/contract';
import type { MemoryIds } from '../core/memory-ids';
import { instructionsOf } from '../core/agent-file/instructions';
import { parseCompletion, parseGoalDecision, parseTodos, type AiTodo } from '../core/agent-types';
import {
  AI_TODO_FIELDS,
  COMPLETION_ASSESSMENT_TEMPLATE,
  dataMappingPrompt,
  fill,
  GOAL_ASSESSMENT_TEMPLATE,
  instructionBlock,
  maxIterationsReachedMessage,
  TODO_EXECUTION_TEMPLATE,
  TODO_PLANNING_TEMPLATE,
  todoListGoal,
} from '../core/agent-types';
import { addUsage, ZERO_USAGE, type Usage } from '../core/llm-types';
import { preview } from '../core/text';
import type { RunInput, RunOutput, TodoView } from './definitions';
import { agentTypeSystemPrompt, toolListing, toolsNamed, variableListing, type Variable } from './agent-type-helpers';
import { modelActivities } from './kernel/activity-presets';
import { openRun } from './kernel/context';
import { checkpoint, finish, guard } from './kernel/lifecycle';
import { ask, askParsed, executionModelPrompt, responseFilter } from './kernel/model-calls';
import { modelForCall, modelForStep } from './kernel/scripted-calls';
import { executorTools, fullResult, recordStep, saveFailedStep } from './kernel/steps';
import { runReact, type ToolBinding } from './react-executor';

/** What a todo_list run carries across continue-as-new. */
interface TodoListState {
  todos: TodoView[];
  variables: Variable[];
  /** The todo to run next. */
  next: number;
  /** Iterations executed so far. */
  unit: number;
  goalCalls: number;
  /** The last iteration of the last completed todo, whose whole result is the response. */
  lastDone?: { unit: number };
  /** What the last goal assessment decided (absent before the first). */
  goalAchieved?: boolean;
}

/** TodoAgent verifies the goal once more when the todos ran out without achieving it; runs recorded before did not. */
const FINAL_GOAL_VERIFICATION_PATCH = 'todo-list-final-goal-verification';

export async function todoList(input: RunInput<TodoListState>): Promise<RunOutput> {
  const run = await openRun(input, (p) => ({ maxUnits: p.max_iterations, planningSystem: agentTypeSystemPrompt(p) }));
  const { agent, question, p, progress } = run;
  const goal = agent.goal ?? todoListGoal(question);
  const toolIds = run.tools.map((t) => t.spec.name);
  const execution = instructionBlock(instructionsOf(agent, 'execution'));
  const state: TodoListState = run.carried?.agent_state ?? { todos: [], variables: [{ name: 'query', value: question }], next: 0, unit: 0, goalCalls: 0 };
  const { todos: views, variables } = state;
  progress.todos = views;
  progress.variables = variables.map((v) => v.name);

  return guard(run, async () => {
    if (!run.carried) await plan();
    syncPlan();
    for (; state.next < views.length; state.next++) {
      const i = state.next;
      const todo = views[i];
      if (state.unit >= p.max_iterations) {
        return finish(run, maxIterationsReachedMessage(p.max_iterations, doneListing(), run.ids.memory_id), metadata());
      }
      const ended = await checkpoint(run, { state: () => state, metadata });
      if (ended) return ended;
      const unit = state.unit;
      const childId = `${workflowInfo().workflowId}/todo-${i + 1}`;
      todo.currentStatus = 'in_progress';
      todo.executor_workflow_id = childId;
      progress.status = 'executing';
      progress.current_step = { index: unit, step: `todo ${todo.stepNo}: ${todo.description}`, executor_workflow_id: childId };
      syncPlan();
      const out = await executeChild(todoExecutor, {
        workflowId: childId,
        staticSummary: preview(`todo ${todo.stepNo}: ${todo.description}`, 150),
        args: [
          {
            todo,
            goal,
            execution_instructions: execution,
            variables,
            first_unit: unit,
            // The run's iteration budget bounds each todo too.
            max_iterations: Math.min(todo.maxIterationsPerTodo, p.max_iterations - unit),
            ...executorTools(run, todo.availableToolIds.length > 0 ? toolsNamed(run.tools, todo.availableToolIds) : run.tools),
            model: agent.executor_llm,
            assessment_system_prompt: run.planningSystem,
            executor_max_iterations: p.executor_max_iterations,
            message_history_limit: p.executor_message_history_limit,
            ids: run.memoryIds,
            ...(input.llm_task_queue ? { llm_task_queue: input.llm_task_queue } : {}),
            ...responseFilter(run, 'execution'),
          },
        ],
      });
      progress.usage = addUsage(progress.usage, out.usage);
      for (const it of out.iterations) {
        recordStep(run, it.unit, `todo ${todo.stepNo}, iteration ${it.iteration}: ${todo.description}`, { ok: it.ok, result: it.result, result_chars: it.result_chars, executor_workflow_id: childId });
      }
      state.unit += out.iterations.length;
      todo.iterations = out.iterations.length;
      todo.isCompleted = out.completed;
      todo.currentStatus = out.completed ? 'completed' : 'failed';
      const lastIteration = out.iterations.at(-1);
      if (lastIteration) variables.push({ name: todo.resultName ?? `todo${todo.stepNo}Result`, value: lastIteration.result });
      progress.variables = variables.map((v) => v.name);
      syncPlan();
      if (!out.completed || !lastIteration) continue;
      state.lastDone = { unit: lastIteration.unit };

      if (await assessGoal(`after todo ${todo.stepNo}`)) break;
    }
    // The todos ran out without the goal achieved: TodoAgent's final goal verification.
    if (!state.goalAchieved && patched(FINAL_GOAL_VERIFICATION_PATCH)) {
      const achieved = await assessGoal('final verification');
      log.info(`todo_list final goal verification: ${achieved ? 'GOAL_ACHIEVED' : 'CONTINUE_NEEDED'}`);
    }
    const response = state.lastDone ? await fullResult(run, state.lastDone.unit) : `No todo was completed.\n${doneListing()}`;
    return finish(run, response, metadata());
  });

  async function plan(): Promise<void> {
    const planningPrompt = fill(TODO_PLANNING_TEMPLATE, {
      goal,
      planningInstructions: instructionBlock(instructionsOf(agent, 'planning')),
      query: question,
      availableTools: toolListing(run.tools),
    });
    const todos = await askParsed(
      run,
      {
        model: 'planning',
        position: { role: 'planner', call: 0 },
        summary: 'planning model: todos',
        prompt: dataMappingPrompt(AI_TODO_FIELDS, planningPrompt, toolIds),
        withHistory: true,
      },
      (raw) => parseTodos(raw, toolIds, p.max_iterations_per_todo),
      'the todo list',
      { next: 0 },
    );
    views.push(...[...todos].sort((a, b) => a.stepNo - b.stepNo).map(todoView));
  }

  /** The goal assessment (execution model): GOAL_ACHIEVED or CONTINUE_NEEDED; an unreadable answer counts as not achieved. */
  async function assessGoal(when: string): Promise<boolean> {
    const raw = await ask(run, {
      model: 'execution',
      position: { role: 'task', kind: 'goal', call: state.goalCalls++ },
      summary: `execution model: goal assessment ${when}`,
      takesFeedback: true,
      prompt: fill(GOAL_ASSESSMENT_TEMPLATE, {
        goal,
        completedTodos: views.filter((t) => t.isCompleted).map((t) => `${t.stepNo}. ${t.description}`).join('; '),
        currentVariables: variableListing(variables),
      }),
    });
    const decision = parseGoalDecision(raw);
    if (!decision.ok) log.warn('goal assessment could not be read; continuing with the todos', { error: decision.error });
    state.goalAchieved = decision.ok && decision.value === 'GOAL_ACHIEVED';
    return state.goalAchieved;
  }

  function syncPlan(): void {
    progress.plan = views.filter((t) => t.currentStatus === 'pending' || t.currentStatus === 'in_progress').map((t) => t.description);
    run.showProgress();
  }

  function doneListing(): string {
    return views
      .filter((t) => t.currentStatus !== 'pending')
      .map((t) => `- todo ${t.stepNo} (${t.currentStatus}): ${t.description}`)
      .join('\n');
  }

  function metadata(): Record<string, unknown> {
    return {
      agent_type: 'todo_list',
      goal,
      ...(state.goalAchieved !== undefined ? { goal_achieved: state.goalAchieved } : {}),
      todos: views,
      variables: variables.map((v) => ({ name: v.name, value: preview(v.value, 500) })),
    };
  }
}

function todoView(t: AiTodo & { maxIterationsPerTodo: number }): TodoView {
  return { ...t, currentStatus: 'pending', isCompleted: false, iterations: 0 };
}

export interface TodoExecutorInput {
  todo: TodoView;
  goal: string;
  execution_instructions: string;
  variables: Array<{ name: string; value: string }>;
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
    const text = fill(TODO_EXECUTION_TEMPLATE, {
      goal: input.goal,
      executionInstructions: input.execution_instructions,
      stepNo: String(todo.stepNo),
      description: todo.description,
      analysis: todo.analysis ?? '',
      successCriteria: todo.successCriteria,
      resultName: todo.resultName ?? `todo${todo.stepNo}Result`,
      resultDescription: todo.resultDescription ?? '',
      iteration: String(i + 1),
      maxIterations: String(todo.maxIterationsPerTodo),
      feedback: feedback === '' ? '' : `\nThe previous iteration did not meet the success criteria: ${feedback}`,
      variables: variableListing(input.variables),
    });
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
        prompt: fill(COMPLETION_ASSESSMENT_TEMPLATE, {
          description: todo.description,
          successCriteria: todo.successCriteria,
          executionInstructions: input.execution_instructions,
          iteration: String(i + 1),
          result,
        }),
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
