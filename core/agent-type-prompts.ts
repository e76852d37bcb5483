/**
 * Prompt texts of the step_by_step and todo_list agents (Axon Ivy's IvyAgent and TodoAgent) and
 * of the plan_and_execute agent. Seed texts are kept verbatim (EXECUTION_PROMPT_TEMPLATE,
 * TODO_PLANNING_TEMPLATE, GOAL_ASSESSMENT_TEMPLATE, the DataMapping field explanations); the
 * answer-format lines perflow appends say how to answer so the answer can be parsed.
 *
 * Ivy templates use `{{name}}` placeholders, filled by {@link fill}.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */

/** Fills `{{name}}` placeholders in one pass; unknown names are left as they are. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => (Object.prototype.hasOwnProperty.call(values, key) ? values[key] : whole));
}

/** Instructions of one phase as the Ivy templates insert them: one per line, then a blank line; nothing when none. */
export function instructionBlock(instructions: readonly string[]): string {
  const lines = instructions.map((s) => s.trim()).filter((s) => s !== '');
  return lines.length === 0 ? '' : `${lines.join('\n')}\n\n`;
}

/** System prompt of the planning and assessment calls (each call states its own answer format). */
export const AGENT_TYPE_SYSTEM_PROMPT =
  'You are the planning and assessment model of a tool-using agent. Base every answer only on the information given, and answer exactly in the format the request asks for.';

/** The response of a run that used up `max_iterations` (Axon Ivy `maxIterations`) before it finished. */
export function maxIterationsReachedMessage(maxIterations: number, done: string, memoryId: string): string {
  const listing = done.trim() === '' ? '' : ` Here is what was done so far:\n\n${done.trim()}\n\n`;
  return `Max Iterations (${maxIterations}) Reached.${listing === '' ? ' ' : listing}To continue, run the agent again with memory_id ${memoryId}.`;
}

// ---------------------------------------------------------------------------------------------
// step_by_step (IvyAgent)

/** The planning prompt of a step_by_step agent (IvyAgent `buildPlanningPrompt`), for the planning model. */
export const STEP_PLANNING_TEMPLATE = `GOAL: {{goal}}

{{planningInstructions}}USER QUERY: {{query}}

Available tools: {{availableTools}}

TASK: Create a step-by-step plan to achieve the goal. Each step uses exactly one of the available tools, named by its ID; later steps may use the results of earlier ones.`;

/** IvyAgent's DataMapping field explanations of an `AiStep` (verbatim). */
export const AI_STEP_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['stepNo', 'Incremental integer, starts at 1'],
  ['name', 'Name of the step'],
  ['analysis', 'Analysis of the step'],
  ['toolId', 'Tool ID to execute the step'],
  ['next', 'ID of next step, -1 if final'],
  ['previous', 'ID of previous step, 0 if initial'],
  ['resultName', 'Expected result name'],
  ['resultDescription', 'Expected result description'],
];

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

/**
 * A DataMapping request: turn `query` into a JSON array of objects with the given fields, as
 * Axon Ivy's `DataMapping.asList(true)` does.
 */
export function dataMappingPrompt(fields: ReadonlyArray<readonly [string, string]>, query: string, toolIds: readonly string[]): string {
  return [
    'Convert the following into a JSON array of objects. Each object has these fields:',
    ...fields.map(([name, explanation]) => `- ${name}: ${explanation}`),
    '',
    `Valid tool IDs: ${toolIds.join(', ') || 'none'}`,
    'Respond with the JSON array only, nothing before or after it.',
    '',
    'INPUT:',
    query,
  ].join('\n');
}

/** IvyAgent's reasoning prompt after each step (verbatim). */
export const EXECUTION_PROMPT_TEMPLATE = `GOAL: {{goal}}

{{executionInstructions}}CURRENT SITUATION:
Original Query: {{originalQuery}}
Current Step: {{currentStepName}}
Latest Result: {{latestResult}}

ANALYSIS REQUIRED:
1. Is the goal achieved?
2. Should we continue with current plan or adapt it?
3. Are there execution instruction triggers?

Decision: [YES - update plan | NO - continue | COMPLETE - goal achieved]
`;

/** Appended to {@link EXECUTION_PROMPT_TEMPLATE}: the observation history and how to answer. */
export const EXECUTION_DECISION_FORMAT = `
OBSERVATION HISTORY:
{{observationHistory}}

REMAINING PLAN:
{{remainingSteps}}

Answer with your decision on its own line: "Decision: YES", "Decision: NO" or "Decision: COMPLETE".
With YES, also give the steps to insert next as a JSON array of objects with the fields stepNo, name, analysis, toolId, resultName and resultDescription (valid tool IDs: {{toolIds}}); the remaining plan continues after them.`;

/** What the execution model is asked to do for one step (the step's input to the ReAct executor). */
export const STEP_EXECUTION_TEMPLATE = `GOAL: {{goal}}

{{executionInstructions}}STEP {{stepNo}}: {{name}}
Analysis: {{analysis}}
Use the tool "{{toolId}}". Expected result "{{resultName}}": {{resultDescription}}

VARIABLES:
{{variables}}`;

// ---------------------------------------------------------------------------------------------
// todo_list (TodoAgent)

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

/** The implicit goal of a todo_list agent without a `goal`. */
export const todoListGoal = (query: string) => `Complete all todos successfully to answer the user query: ${query}`;

// ---------------------------------------------------------------------------------------------
// plan_and_execute

/** Words in an observation that signal a missing prerequisite or a new requirement. */
export const DEFAULT_REPLAN_KEYWORDS = [
  'not found',
  'does not exist',
  'no such',
  'missing',
  'prerequisite',
  'requires',
  'required first',
  'not available',
  'permission denied',
] as const;

/** The planning prompt of plan_and_execute (`get_execution_plan_prompt`). */
export const EXECUTION_PLAN_TEMPLATE = `You are planning how to answer a user query with tools. Break it into executable steps.

{{planningInstructions}}USER QUERY: {{query}}

AVAILABLE TOOLS:
{{availableTools}}

Respond with a JSON array only. Each element is one step:
{"goal": "what the step achieves", "primary_tools": ["the tool to use first", ...], "success_criteria": "how to tell the step is done", "context": "optional hints or constraints"}
Use only the available tools. Keep the plan short: the last step should yield what the answer needs.`;

/** The input of one step's guided ReAct execution (`_build_action_input_from_plan`). */
export const STEP_ACTION_TEMPLATE = `{{executionInstructions}}Original query: {{query}}

Current step ({{stepNum}} of {{totalSteps}}): {{goal}}
Use the tool "{{tool}}".
Success criteria: {{successCriteria}}{{context}}{{previousResults}}`;

/** The LLM viability check after a step (`PlanAdapter.should_replan`, trigger 3). */
export const VIABILITY_TEMPLATE = `USER QUERY: {{query}}

COMPLETED STEPS:
{{completedSteps}}

REMAINING PLAN:
{{remainingSteps}}

Given the results so far, will the remaining plan still achieve the goal?
Respond with a JSON object only: {"replan": true|false, "confidence": a number from 0 to 1 that re-planning is needed, "reason": "why"}`;

/** The re-planning prompt (`PlanAdapter.adapt_plan`). */
export const ADAPT_PLAN_TEMPLATE = `The plan for a user query has to change.

{{planningInstructions}}USER QUERY: {{query}}

COMPLETED STEPS (keep their work; do not repeat them):
{{completedSteps}}

ISSUE: {{issue}}

PLAN THAT NO LONGER WORKS (the unfinished part):
{{remainingSteps}}

AVAILABLE TOOLS:
{{availableTools}}

Write a new plan for the rest of the work that addresses the issue and continues toward the original goal. Respond with a JSON array only, each element {"goal", "primary_tools", "success_criteria", "context"}.`;

/** Final-answer synthesis from the step summaries (`react_final_answer_from_steps`). */
export const FINAL_ANSWER_TEMPLATE = `Answer the user query using the results of the executed plan.

USER QUERY: {{query}}

STEPS:
{{stepSummaries}}

OBSERVATIONS:
{{observations}}

Write the final answer for the user. Use only what the steps found; say plainly what could not be done.`;
