/**
 * Axon Ivy's TODO_LIST agent (TodoAgent): its prompts (seed texts verbatim) and the parsing of
 * its answers — todos, completion and goal assessments.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { z } from 'zod';
import type { Parsed } from '../json-in-text';
import { clip } from '../text';
import { fill } from '../template';
import { intFrom, lazySchema, optionalText, parseList, type Variable } from './common';
import { carriedVariableListing, type EarlierVariables } from './step-by-step-state';

/** TodoAgent's DataMapping field explanations of an `AiTodo` (verbatim). */
export const AI_TODO_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['description', 'What needs to be accomplished'],
  ['successCriteria', 'How to determine completion'],
  ['availableToolIds', 'Tool IDs that can work on this todo'],
  ['analysis', 'Why this todo is necessary'],
  ['stepNo', 'Sequential number starting from 1'],
  ['resultName', 'Expected result name'],
  ['resultDescription', 'What result should contain'],
  ['maxIterationsPerTodo', 'Max iterations per todo (default 5)'],
];


/** TodoAgent's planning prompt (verbatim). */
export const TODO_PLANNING_TEMPLATE = `GOAL: {{goal}}

{{planningInstructions}}USER QUERY: {{query}}

Available tools: {{availableTools}}

TASK: Create todo list to achieve the goal. Each todo should be outcome-focused
with clear success criteria.
`;

/** TodoAgent's goal assessment after each completed todo (verbatim, then the answer format). */
export const GOAL_ASSESSMENT_TEMPLATE = `GOAL: {{goal}}
COMPLETED TODOS: {{completedTodos}}
CURRENT VARIABLES: {{currentVariables}}

Has the goal been achieved?
Decision: [GOAL_ACHIEVED | CONTINUE_NEEDED]
`;

/** The completion assessment of a todo iteration (`AiTodo.assessCompletion`). */
export const COMPLETION_ASSESSMENT_TEMPLATE = `TODO: {{description}}
SUCCESS CRITERIA: {{successCriteria}}

{{executionInstructions}}RESULT OF ITERATION {{iteration}}:
{{result}}

Does the result meet the success criteria?
Decision: [COMPLETED | NOT_COMPLETED]
If NOT_COMPLETED, say on the next line what is still missing.
`;

/** What the execution model is asked to do in one iteration of a todo. */
export const TODO_EXECUTION_TEMPLATE = `GOAL: {{goal}}

{{executionInstructions}}TODO {{stepNo}}: {{description}}
Why: {{analysis}}
Success criteria: {{successCriteria}}
Expected result "{{resultName}}": {{resultDescription}}
Iteration {{iteration}} of {{maxIterations}}.{{feedback}}

VARIABLES:
{{variables}}`;

/** A todo as its prompts need it. */
export interface TodoPromptFields {
  stepNo: number;
  description: string;
  successCriteria: string;
  analysis?: string;
  resultName?: string;
  resultDescription?: string;
  maxIterationsPerTodo: number;
}

/** The name a todo's result gets among the variables. */
export const todoResultName = (todo: Pick<TodoPromptFields, 'stepNo' | 'resultName'>) => todo.resultName ?? `todo${todo.stepNo}Result`;

/** What one iteration (1-based) of a todo asks the executor; `feedback` is why the previous one fell short. */
export function todoExecutionText(todo: TodoPromptFields, goal: string, executionInstructions: string, iteration: number, feedback: string, variables: readonly Variable[], earlier?: EarlierVariables): string {
  return fill(TODO_EXECUTION_TEMPLATE, {
    goal,
    executionInstructions,
    stepNo: String(todo.stepNo),
    description: todo.description,
    analysis: todo.analysis ?? '',
    successCriteria: todo.successCriteria,
    resultName: todoResultName(todo),
    resultDescription: todo.resultDescription ?? '',
    iteration: String(iteration),
    maxIterations: String(todo.maxIterationsPerTodo),
    feedback: feedback === '' ? '' : `\nThe previous iteration did not meet the success criteria: ${feedback}`,
    variables: carriedVariableListing(variables, earlier),
  });
}

/** The completion assessment of one iteration (1-based) of a todo. */
export function completionPrompt(todo: TodoPromptFields, executionInstructions: string, iteration: number, result: string): string {
  return fill(COMPLETION_ASSESSMENT_TEMPLATE, {
    description: todo.description,
    successCriteria: todo.successCriteria,
    executionInstructions,
    iteration: String(iteration),
    result,
  });
}

/** The implicit goal of a todo_list agent without a `goal`. */
export const todoListGoal = (query: string) => `Complete all todos successfully to answer the user query: ${query}`;


/** A todo of a todo_list plan (Axon Ivy `AiTodo`, planning fields). */
const aiTodo = lazySchema(() =>
  z.object({
    description: z.string().min(1),
    successCriteria: z.string().min(1),
    availableToolIds: z.array(z.string()).nullish().transform((v) => v ?? []),
    analysis: optionalText(),
    stepNo: intFrom(),
    resultName: optionalText(),
    resultDescription: optionalText(),
    maxIterationsPerTodo: intFrom().nullish().catch(undefined),
  }),
);
export type AiTodo = z.infer<ReturnType<typeof aiTodo>>;

/** Parses the todo list; a missing or non-positive `maxIterationsPerTodo` becomes `defaultMax`, as TodoAgent sets it. */
export function parseTodos(raw: string, toolIds: readonly string[], defaultMax: number): Parsed<Array<AiTodo & { maxIterationsPerTodo: number }>> {
  const parsed = parseList(raw, aiTodo(), 'todos');
  if (!parsed.ok) return parsed;
  for (const todo of parsed.value) {
    const unknown = todo.availableToolIds.find((id) => !toolIds.includes(id));
    if (unknown) return { ok: false, error: `Tool not found: ${unknown} (todo ${todo.stepNo}); the agent's tools: ${toolIds.join(', ') || 'none'}` };
  }
  return {
    ok: true,
    value: parsed.value.map((t) => ({ ...t, maxIterationsPerTodo: t.maxIterationsPerTodo && t.maxIterationsPerTodo > 0 ? t.maxIterationsPerTodo : defaultMax })),
  };
}

/** A completion assessment: COMPLETED or NOT_COMPLETED (YES / NO accepted), with what is missing. */
export function parseCompletion(raw: string): Parsed<{ completed: boolean; feedback: string }> {
  // The labelled decision first; a bare YES/NO only in capitals ("no" is a common word).
  const m =
    /Decision\s*:\s*\**\s*\[?\s*(NOT[_ ]COMPLETED|COMPLETED|YES|NO)\b/i.exec(raw) ??
    /\b(NOT[_ ]COMPLETED|COMPLETED)\b/i.exec(raw) ??
    /\b(YES|NO)\b/.exec(raw);
  if (!m) return { ok: false, error: `answer names no decision (COMPLETED or NOT_COMPLETED): "${clip(raw)}"` };
  const word = m[1].toUpperCase().replace(' ', '_');
  const completed = word === 'COMPLETED' || word === 'YES';
  return { ok: true, value: { completed, feedback: completed ? '' : raw.slice(m.index + m[0].length).replace(/^[\s\].:-]+/, '').trim() } };
}

/** TodoAgent's goal assessment: GOAL_ACHIEVED or CONTINUE_NEEDED. */
export function parseGoalDecision(raw: string): Parsed<'GOAL_ACHIEVED' | 'CONTINUE_NEEDED'> {
  const labelled = /Decision\s*:\s*\**\s*(GOAL_ACHIEVED|CONTINUE_NEEDED)\b/i.exec(raw);
  const m = labelled ?? /\b(GOAL_ACHIEVED|CONTINUE_NEEDED)\b/i.exec(raw);
  if (!m) return { ok: false, error: `answer names no decision (GOAL_ACHIEVED or CONTINUE_NEEDED): "${clip(raw)}"` };
  return { ok: true, value: m[1].toUpperCase() as 'GOAL_ACHIEVED' | 'CONTINUE_NEEDED' };
}

/** How a todo went: whether it was completed, and its iterations (executed steps) in order. */
export interface TodoOutcome {
  completed: boolean;
  iterations: Array<{ unit: number; result: string }>;
}
