/**
 * Prompt texts of the plan-execute-reflect agent (and plan_and_execute's default re-planning keywords).
 *
 * The seed texts (OpenSearch ML Commons `MLPlanExecuteAndReflectAgentRunner`) are kept verbatim,
 * including the tab-indented JSON examples of the response format. Templates use
 * `${parameters.x}` placeholders, filled by `renderTemplate` (core/template.ts).
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { oneLine } from './text';

/** What the planner is and how it must plan. First part of {@link DEFAULT_PLANNER_SYSTEM_PROMPT}. */
export const PLANNER_RESPONSIBILITY = `You are a thoughtful and analytical planner agent in a plan-execute-reflect framework. Your job is to design a clear, step-by-step plan for a given objective.

Instructions:
- Break the objective into an ordered list of atomic, self-contained Steps that, if executed, will lead to the final result or complete the objective.
- Each Step must state what to do, where, and which tool/parameters would be used. You do not execute tools, only reference them for planning.
- Use only the provided tools; do not invent or assume tools. If no suitable tool applies, use reasoning or observations instead.
- Base your plan only on the data and information explicitly provided; do not rely on unstated knowledge or external facts.
- If there is insufficient information to create a complete plan, summarize what is known so far and clearly state what additional information is required to proceed.
- Stop and summarize if the task is complete or further progress is unlikely.
- Avoid vague instructions; be specific about data sources, indexes, or parameters.
- Never make assumptions or rely on implicit knowledge.
- Respond only in JSON format.

Step examples:
Good example: "Use Tool to sample documents from index: 'my-index'"
Bad example: "Use Tool to sample documents from each index"
Bad example: "Use Tool to sample documents from all indices"`;

/** What the executor is and how it must carry out a step. The whole of {@link DEFAULT_EXECUTOR_SYSTEM_PROMPT}. */
export const EXECUTOR_RESPONSIBILITY = `You are a precise and reliable executor agent in a plan-execute-reflect framework. Your job is to execute the given instruction provided by the planner and return a complete, actionable result.

Instructions:
- Fully execute the given Step using the most relevant tools or reasoning.
- Include all relevant raw tool outputs (e.g., full documents from searches) so the planner has complete information; do not summarize unless explicitly instructed.
- Base your execution and conclusions only on the data and tool outputs available; do not rely on unstated knowledge or external facts.
- If the available data is insufficient to complete the Step, summarize what was obtained so far and clearly state the additional information or access required to proceed (do not guess).
- If unable to complete the Step, clearly explain what went wrong and what is needed to proceed.
- Avoid making assumptions and relying on implicit knowledge.
- Your response must be self-contained and ready for the planner to use without modification. Never end with a question.
- Break complex searches into simpler queries when appropriate.`;

/**
 * The JSON response contract of the planner (`{"steps": [...], "result": "..."}`).
 * Custom prompts can include it with `${parameters.plan_execute_reflect_response_format}`.
 */
export const PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT = `Response Instructions:
Only respond in JSON format. Always follow the given response instructions. Do not return any content that does not follow the response instructions. Do not add anything before or after the expected JSON.
Always respond with a valid JSON object that strictly follows the below schema:
{
\t"steps": array[string],
\t"result": string
}
Use "steps" to return an array of strings where each string is a step to complete the objective, leave it empty if you know the final result. Please wrap each step in quotes and escape any special characters within the string.
Use "result" return the final response when you have enough information, leave it empty if you want to execute more steps. Please escape any special characters within the result.
Here are examples of valid responses following the required JSON schema:

Example 1 - When you need to execute steps:
{
\t"steps": ["This is an example step", "this is another example step"],
\t"result": ""
}

Example 2 - When you have the final result:
{
\t"steps": [],
\t"result": "This is an example result\\n with escaped special characters"
}
Important rules for the response:
1. Do not use commas within individual steps
2. Do not add any content before or after the JSON
3. Only respond with a pure JSON object`;

/** How the planner must write its final result. Last part of {@link DEFAULT_PLANNER_SYSTEM_PROMPT}. */
export const FINAL_RESULT_RESPONSE_INSTRUCTIONS = `When you deliver your final result, include a comprehensive report. This report must:
1. List every analysis or step you performed.
2. Summarize the inputs, methods, tools, and data used at each step.
3. Include key findings from all intermediate steps — do NOT omit them.
4. Clearly explain how the steps led to your final conclusion. Only mention the completed steps.
5. Return the full analysis and conclusion in the 'result' field, even if some of this was mentioned earlier. Ensure that special characters are escaped in the 'result' field.
6. The final response should be fully self-contained and detailed, allowing a user to understand the full investigation without needing to reference prior messages and steps.`;

/** Default value of the `planner_prompt` parameter. */
export const DEFAULT_PLANNER_PROMPT = `For the given objective, generate a step-by-step plan composed of simple, self-contained steps. The final step should directly yield the final answer. Avoid unnecessary steps.`;

/** Default value of the `reflect_prompt` parameter. */
export const DEFAULT_REFLECT_PROMPT = `Update your plan based on the latest step results. If the task is complete, return the final answer. Otherwise, include only the remaining steps. Do not repeat previously completed steps.`;

/**
 * Default `planner_prompt_template`: the first planner call of a run without history.
 * Placeholders: `tools_prompt`, `planner_prompt`, `user_prompt`.
 */
export const DEFAULT_PLANNER_PROMPT_TEMPLATE = `\${parameters.tools_prompt}

\${parameters.planner_prompt}

Objective: \${parameters.user_prompt}

Remember: Respond only in JSON format following the required schema.`;

/**
 * Default `reflect_prompt_template`: every planner call after a step was executed.
 * Placeholders: `tools_prompt`, `planner_prompt`, `user_prompt`, `steps`, `completed_steps`,
 * `reflect_prompt`.
 */
export const DEFAULT_REFLECT_PROMPT_TEMPLATE = `\${parameters.tools_prompt}

\${parameters.planner_prompt}

Objective: \`\`\`\${parameters.user_prompt}\`\`\`

Original plan:
[\${parameters.steps}]

You have currently executed the following steps from the original plan:
[\${parameters.completed_steps}]

\${parameters.reflect_prompt}

Remember: Respond only in JSON format following the required schema.`;

/**
 * Default `planner_with_history_template`: the first planner call when the conversation
 * (`memory_id`) already has history. Placeholders: `tools_prompt`, `planner_prompt`,
 * `user_prompt`, `completed_steps`.
 */
export const DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE = `\${parameters.tools_prompt}

\${parameters.planner_prompt}

Objective: \`\`\`\${parameters.user_prompt}\`\`\`

You have currently executed the following steps:
[\${parameters.completed_steps}]

Remember: Respond only in JSON format following the required schema.`;

/**
 * Default `system_prompt` of the planner:
 * {@link PLANNER_RESPONSIBILITY}, {@link PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT} and
 * {@link FINAL_RESULT_RESPONSE_INSTRUCTIONS}, joined by newlines.
 */
export const DEFAULT_PLANNER_SYSTEM_PROMPT = [
  PLANNER_RESPONSIBILITY,
  PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT,
  FINAL_RESULT_RESPONSE_INSTRUCTIONS,
].join('\n');

/** Default `executor_system_prompt`: {@link EXECUTOR_RESPONSIBILITY}. */
export const DEFAULT_EXECUTOR_SYSTEM_PROMPT = EXECUTOR_RESPONSIBILITY;

/**
 * User prompt of the summary call made when `max_steps` is reached without a final result
 * (perflow's own text; the seed only names the behaviour). Sent to the planner model with
 * {@link MAX_STEPS_SUMMARY_SYSTEM_PROMPT}. Placeholders: `max_steps`, `user_prompt`,
 * `completed_steps`.
 */
export const MAX_STEPS_SUMMARY_PROMPT_TEMPLATE = `The step limit of \${parameters.max_steps} steps was reached before the objective was completed.

Objective: \`\`\`\${parameters.user_prompt}\`\`\`

You have executed the following steps:
[\${parameters.completed_steps}]

Write a concise summary of what these steps found, what remains unresolved, and what should be done next to complete the objective. Base the summary only on the step results above. Respond in plain text, not JSON.`;

/** System prompt of the max-steps summary call. */
export const MAX_STEPS_SUMMARY_SYSTEM_PROMPT =
  'You summarize the progress of a plan-execute-reflect agent that ran out of steps. Be factual, keep every key finding, and never invent results.';

/**
 * Text appended to the planner prompt when its previous answer could not be parsed.
 * Use {@link parseRetrySuffix} to fill in the parse error.
 */
export const PARSE_RETRY_SUFFIX_TEMPLATE = `

Your previous answer could not be parsed: \${parameters.parse_error}. Respond again with only a JSON object that follows the required schema: {"steps": array[string], "result": string}. Do not add anything before or after the JSON and do not wrap it in markdown.`;

/**
 * The retry instruction for a planner answer that could not be parsed.
 *
 * @param error - the one-line parse error, e.g. from `parsePlannerOutput`
 * @returns text to append to the planner prompt of the retried call
 */
export function parseRetrySuffix(error: string): string {
  const line = oneLine(error).replace(/\.+$/, '');
  return PARSE_RETRY_SUFFIX_TEMPLATE.replace('${parameters.parse_error}', () => line);
}

/**
 * The final response of a run that reached `max_steps` without a final result.
 *
 * @param maxSteps - the `max_steps` limit that was reached
 * @param summary - the planner's summary of the completed steps; when empty (the summary call
 *   failed or returned nothing) a plain message is returned instead
 * @param memoryId - the planner memory ID, named in the plain message so the run can be continued
 */
export function maxStepsReachedMessage(maxSteps: number, summary: string, memoryId?: string): string {
  const trimmed = summary.trim();
  const resume = memoryId ? ` To continue, run the agent again with memory_id ${memoryId}.` : '';
  if (trimmed !== '') {
    // ml-commons' wording (handleMaxStepsReached), then how to go on.
    return `Max Steps Limit (${maxSteps}) Reached. Here's a summary of the steps completed so far:\n\n${trimmed}\n\n${resume.trim()}`.trim();
  }
  return `Max Steps Limit (${maxSteps}) Reached.${resume}`;
}

/**
 * The final response of a run that used up its `token_budget` before a final result.
 *
 * @param budget - the token budget
 * @param used - tokens used by the run
 * @param summary - summary (or listing) of the completed steps
 * @param memoryId - the planner memory ID, to continue the conversation
 */
export function tokenBudgetReachedMessage(budget: number, used: number, summary: string, memoryId: string): string {
  return `Token Budget Reached (${used} of ${budget} tokens used). Here is a summary of the steps completed so far:\n\n${summary.trim()}\n\nTo continue, run the agent again with memory_id ${memoryId}.`;
}

/**
 * The final response of a run that reached its `max_cost_usd` (`budget_action` stop, or a person
 * who answered the budget wait with `reject --stop`).
 */
export function costBudgetReachedMessage(budget: number, cost: number, summary: string, memoryId: string, stopped?: { by: string; reason: string }): string {
  const who = stopped ? ` Stopped by ${stopped.by}: ${stopped.reason}.` : '';
  return `Cost Budget Reached ($${roundUsd(cost)} of max_cost_usd $${roundUsd(budget)} spent).${who} Here is a summary of the steps completed so far:\n\n${summary.trim()}\n\nTo continue, run the agent again with memory_id ${memoryId}.`;
}

/** The response of a run a person stopped while it waited at its tenant's daily dollar cap. */
export function tenantBudgetReachedMessage(tenant: string, cap: number, spent: number, summary: string, memoryId: string, stopped: { by: string; reason: string }): string {
  return `Tenant Budget Reached (tenant ${tenant}: $${roundUsd(spent)} of $${roundUsd(cap)} per UTC day spent). Stopped by ${stopped.by}: ${stopped.reason}. Here is a summary of the steps completed so far:\n\n${summary.trim()}\n\nTo continue, run the agent again with memory_id ${memoryId}.`;
}

/** Dollars as people read them in a message: 6 significant digits at most. */
function roundUsd(usd: number): string {
  return String(Number(usd.toPrecision(6)));
}

/** The response of a run a reviewer stopped by rejecting its plan (`perflow reject --stop`, or `max_plan_rejections` reached). */
export function planStoppedMessage(review: { reason: string; by: string }): string {
  return `Plan rejected by ${review.by}; the run stopped. Reason: ${review.reason}`;
}

/**
 * perflow's own addition to the planner's response instructions when `max_parallel_steps` > 1
 * (appended to the system prompt; the seed's texts stay as they are).
 */
export function parallelStepsInstructions(maxParallel: number): string {
  return `

Parallel steps: when some of the next steps do not depend on each other, you may group them in an inner array so that they run at the same time, e.g. {"steps": [["find A's revenue", "find B's revenue"], "compare them"], "result": ""}. Only the first entry of "steps" runs next: a group runs all of its steps (at most ${maxParallel} at once), a single string runs one step; then you see every result. Group only steps that need none of each other's results.`;
}

/** plan_and_execute's default `replan_keywords`: words in an observation that signal a missing prerequisite or a new requirement. */
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
