/**
 * Axon Ivy's TODO_LIST agent (TodoAgent): the planning model writes outcome-focused todos with
 * success criteria; each todo iterates — a step on the kernel's step runner, then the
 * completion assessment — until it is done or `maxIterationsPerTodo` is reached; after each
 * completed todo the goal assessment decides GOAL_ACHIEVED (stop) or CONTINUE_NEEDED.
 */
import { log, patched } from '@temporalio/workflow';
import {
  AI_TODO_FIELDS,
  carriedVariableListing,
  completionPrompt,
  dataMappingPrompt,
  fill,
  foldVariables,
  GOAL_ASSESSMENT_TEMPLATE,
  maxIterationsReachedMessage,
  parseCompletion,
  parseGoalDecision,
  parseTodos,
  todoExecutionText,
  todoListGoal,
  todoResultName,
  TODO_PLANNING_TEMPLATE,
  toolListing,
  toolsNamed,
  variablesMetadata,
  type AiTodo,
  type EarlierVariables,
  type TodoOutcome,
  type Variable,
} from '../core/agent-types';
import { wholeResultMarker } from '../core/template';
import type { RunInput, RunOutput, TodoView } from './definitions';
import { addVariable, openAgentTypeRun, showPlan } from './kernel/agent-type-run';
import { CARRIED_STEPS, checkpoint, finish, guard } from './kernel/lifecycle';
import { finishAnswer } from './kernel/typed-output';
import { askJudgment, askParsed } from './kernel/model-calls';
import { counterOf } from './kernel/call-positions';
import { fullResult, runStep } from './kernel/steps';
import { runTodoInChild } from './legacy/todo-executor';

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
  /** Completion assessments asked again after an unreadable answer, so far (the scripted model's position). */
  completionRetries?: number;
  /** A long run's earliest todo results, no longer carried in its variables (memory holds them). */
  earlier?: EarlierVariables;
}

/** TodoAgent verifies the goal once more when the todos ran out without achieving it; runs recorded before did not. */
const FINAL_GOAL_VERIFICATION_PATCH = 'todo-list-final-goal-verification';
/** A todo's iterations run on the kernel's step runner; runs recorded before ran each todo in a child of its own. */
const KERNEL_STEPS_PATCH = 'todo-list-kernel-steps';
/** Runs recorded before carried every todo's result in their variables across continue-as-new. */
const EARLIER_RESULTS_PATCH = 'todo-list-earlier-results';

export async function todoList(input: RunInput<TodoListState>): Promise<RunOutput> {
  const { run, state, toolIds, planning, execution } = await openAgentTypeRun<TodoListState>(input, (p) => p.max_iterations, ({ question }) => ({
    todos: [],
    variables: [{ name: 'query', value: question }],
    next: 0,
    unit: 0,
    goalCalls: 0,
  }));
  const { agent, question, p, progress } = run;
  const goal = agent.goal ?? todoListGoal(question);
  const { todos: views, variables } = state;
  progress.todos = views;
  addVariable(run, variables);

  return guard(run, async () => {
    if (!run.carried) await plan();
    syncPlan();
    for (; state.next < views.length; state.next++) {
      const todo = views[state.next];
      if (state.unit >= p.max_iterations) {
        return finish(run, maxIterationsReachedMessage(p.max_iterations, doneListing(), run.ids.memory_id), metadata());
      }
      const ended = await checkpoint(run, { state: () => state, fold, metadata });
      if (ended) return ended;
      todo.currentStatus = 'in_progress';
      syncPlan();
      const at = { index: state.next, goal, execution, variables, unit: state.unit };
      const out = patched(KERNEL_STEPS_PATCH) ? await runTodo(todo) : await runTodoInChild(run, todo, at);
      state.unit += out.iterations.length;
      todo.iterations = out.iterations.length;
      todo.isCompleted = out.completed;
      todo.currentStatus = out.completed ? 'completed' : 'failed';
      const lastIteration = out.iterations.at(-1);
      if (lastIteration) addVariable(run, variables, { name: todoResultName(todo), value: lastIteration.result });
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
    return finishAnswer(run, response, metadata());
  });

  async function plan(): Promise<void> {
    const planningPrompt = fill(TODO_PLANNING_TEMPLATE, { goal, planningInstructions: planning, query: question, availableTools: toolListing(run.tools) });
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

  /**
   * One todo's iterations, each an executed step followed by the completion assessment
   * (execution model), until it is COMPLETED or its iterations — bounded by the run's — are used up.
   */
  async function runTodo(todo: TodoView): Promise<TodoOutcome> {
    const tools = todo.availableToolIds.length > 0 ? toolsNamed(run.tools, todo.availableToolIds) : run.tools;
    const iterations: TodoOutcome['iterations'] = [];
    const budget = Math.min(todo.maxIterationsPerTodo, p.max_iterations - state.unit);
    let feedback = '';
    for (let i = 0; i < budget; i++) {
      const unit = state.unit + i;
      const outcome = await runStep(run, {
        unit,
        label: `todo ${todo.stepNo}, iteration ${i + 1}: ${todo.description}`,
        text: todoExecutionText(todo, goal, execution, i + 1, feedback, variables, state.earlier),
        tools,
      });
      todo.executor_workflow_id = outcome.executor_workflow_id;
      iterations.push({ unit, result: outcome.result });
      if (!outcome.ok) {
        feedback = 'the iteration failed';
        continue;
      }
      const assessment = await askJudgment(
        run,
        {
          model: 'execution',
          position: { role: 'task', kind: 'completion', call: unit },
          summary: `execution model: completion of todo ${todo.stepNo}, iteration ${i + 1}`,
          // The assessment judges the whole result (read from memory by the activity).
          prompt: completionPrompt(todo, execution, i + 1, wholeResultMarker(unit)),
          wholeResults: { [unit]: outcome.result },
        },
        parseCompletion,
        { next: unit },
        {
          kind: 'completion',
          fallback: { completed: false, feedback: 'the assessment was unclear' },
          assumed: `todo ${todo.stepNo} is not completed yet`,
          retry: { position: () => ({ role: 'task', kind: 'completion_retry', call: counterOf(state, 'completionRetries').next++ }) },
        },
      );
      if (assessment.completed) return { completed: true, iterations };
      feedback = assessment.feedback || 'not met yet';
    }
    return { completed: false, iterations };
  }

  /** The goal assessment (execution model): GOAL_ACHIEVED or CONTINUE_NEEDED; an answer unreadable even when asked again counts as not achieved. */
  async function assessGoal(when: string): Promise<boolean> {
    const decision = await askJudgment(
      run,
      {
        model: 'execution',
        position: { role: 'task', kind: 'goal', call: 0 },
        summary: `execution model: goal assessment ${when}`,
        takesFeedback: true,
        prompt: fill(GOAL_ASSESSMENT_TEMPLATE, {
          goal,
          completedTodos: views.filter((t) => t.isCompleted).map((t) => `${t.stepNo}. ${t.description}`).join('; '),
          currentVariables: carriedVariableListing(variables, state.earlier),
        }),
      },
      parseGoalDecision,
      counterOf(state, 'goalCalls'),
      { kind: 'goal', fallback: 'CONTINUE_NEEDED' as const, assumed: 'CONTINUE_NEEDED (the goal is not achieved yet)' },
    );
    state.goalAchieved = decision === 'GOAL_ACHIEVED';
    return state.goalAchieved;
  }

  function syncPlan(): void {
    showPlan(run, views.filter((t) => t.currentStatus === 'pending' || t.currentStatus === 'in_progress').map((t) => t.description));
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
      variables: variablesMetadata(variables),
      // A long run's earliest results are in memory (`perflow memory`), counted here.
      ...(state.earlier ? { earlier_variables: state.earlier.variables } : {}),
    };
  }

  /** Before a continue-as-new: a long run carries the question and its latest CARRIED_STEPS results only. */
  function fold(): Promise<void> {
    if (variables.length - 1 > CARRIED_STEPS && patched(EARLIER_RESULTS_PATCH)) state.earlier = { variables: (state.earlier?.variables ?? 0) + foldVariables(variables, CARRIED_STEPS) };
    return Promise.resolve();
  }
}

function todoView(t: AiTodo & { maxIterationsPerTodo: number }): TodoView {
  return { ...t, currentStatus: 'pending', isCompleted: false, iterations: 0 };
}
