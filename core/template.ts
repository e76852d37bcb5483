/**
 * `${parameters.x}` templating and the texts that fill the planner templates.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import type { ChatMessage } from './llm-types';

/**
 * `${parameters.x}`, `${parameters.x:-default}` and the escaped `$${parameters.x}`, as
 * commons-text's StringSubstitutor reads them in ml-commons (prefix `${parameters.`, suffix `}`,
 * escape `$`, default delimiter `:-`).
 */
const SEED_PLACEHOLDER = /(\$?)\$\{parameters\.([A-Za-z0-9_.-]+)(?::-([^}]*))?\}/g;
const IVY_PLACEHOLDER = /\{\{(\w+)\}\}/g;

/**
 * Replaces each match of `placeholder` (its first group names the value) with that value, in
 * one pass, so substituted values are never scanned again (a step result that contains a
 * placeholder stays as it is). Placeholders whose value is missing or `undefined` are left
 * unchanged, like the seed's `StringSubstitutor`.
 */
function substitute(template: string, placeholder: RegExp, values: Record<string, string | undefined>): string {
  return template.replace(placeholder, (whole, key: string) => valueOf(values, key) ?? whole);
}

const valueOf = (values: Record<string, string | undefined>, key: string): string | undefined => (Object.prototype.hasOwnProperty.call(values, key) ? values[key] : undefined);

/**
 * Fills `${parameters.x}` placeholders in one pass. `${parameters.x:-d}` gives `d` when `x` has
 * no value; `$${parameters.x}` is the literal `${parameters.x}` (with `keepEscapes`, left as it
 * is, for a text that is rendered again later).
 */
function substituteSeed(template: string, params: Record<string, string | undefined>, keepEscapes: boolean, later: readonly string[] = []): string {
  return template.replace(SEED_PLACEHOLDER, (whole, escape: string, key: string, fallback: string | undefined) => {
    if (escape) return keepEscapes ? whole : whole.slice(1);
    // A value filled in a later pass keeps its placeholder (and its default) until then.
    if (later.includes(key)) return whole;
    return valueOf(params, key) ?? fallback ?? whole;
  });
}

/**
 * Replaces every `${parameters.x}` in `template` with `params[x]` (the seed's templates), with
 * StringSubstitutor's defaults (`${parameters.x:-d}`) and escapes (`$${parameters.x}`).
 *
 * @param template - text with `${parameters.x}` placeholders
 * @param params - values by parameter name
 * @returns the rendered text
 */
export function renderTemplate(template: string, params: Record<string, string | undefined>): string {
  return substituteSeed(template, params, false);
}

/** How deep parameter values may refer to each other (`a` → `b` → `c`…); deeper ones stay literal. */
export const MAX_PARAMETER_NESTING = 5;

/**
 * Parameter values with their own `${parameters.x}` placeholders filled from the other values
 * (seed 002: `${parameters.plan_execute_reflect_response_format}` in a custom prompt), pass by
 * pass up to {@link MAX_PARAMETER_NESTING}, so a cycle ends. Values named in `verbatim` (user
 * text such as the question) are neither filled nor rescanned.
 */
export function resolveParameterValues(params: Record<string, string>, verbatim: readonly string[] = []): Record<string, string> {
  let current = { ...params };
  for (let pass = 0; pass < MAX_PARAMETER_NESTING; pass++) {
    let changed = false;
    const next: Record<string, string> = {};
    // Verbatim values are inserted later, in one pass with the prompt: never scanned. Escapes stay
    // until the value is rendered for the last time, so a later pass cannot fill them.
    for (const [key, value] of Object.entries(current)) {
      const rendered = verbatim.includes(key) ? value : substituteSeed(value, current, true, [...verbatim, key]);
      if (rendered !== value) changed = true;
      next[key] = rendered;
    }
    current = next;
    if (!changed) break;
  }
  return current;
}

/** Fills the `{{name}}` placeholders of Axon Ivy's templates (and perflow's for the other agent types). */
export function fill(template: string, values: Record<string, string>): string {
  return substitute(template, IVY_PLACEHOLDER, values);
}

/** A step the executor has carried out, with its result. */
export interface CompletedStep {
  /** The step as the planner wrote it. */
  step: string;
  /** The executor's result for the step. */
  result: string;
}

/** How an executor step opens its chat: its earlier steps as question → answer turns, then the step. */
export function executorOpening(earlier: readonly CompletedStep[], step: string): ChatMessage[] {
  return [...earlier.flatMap(({ step: s, result }): ChatMessage[] => [{ role: 'user', content: s }, { role: 'assistant', content: result }]), { role: 'user', content: step }];
}

/**
 * How a plan_execute_and_reflect run renders its planner prompts: `ml-commons` as OpenSearch's
 * MLPlanExecuteAndReflectAgentRunner does (runs started since the `ml-commons-prompt-format`
 * patch), `perflow` as runs before it did.
 */
export type PromptFormat = 'perflow' | 'ml-commons';

/**
 * Formats completed steps for `${parameters.completed_steps}` (the template supplies the
 * surrounding brackets).
 *
 * `ml-commons` (its `completedSteps` list joined by `", "`): the conversation's earlier
 * exchanges first, each question and response as it is, then this run's steps from `<step-1>`:
 *
 * ```text
 * question 1, response 1, \n<step-1>\nthe step\n</step-1>\n, \n<step-1-result>\nits result\n</step-1-result>\n
 * ```
 *
 * `perflow`: one `<step-N>` / `<step-N-result>` block per entry, exchanges numbered as steps,
 * blocks joined by a newline. No steps give an empty string.
 *
 * @param steps - completed steps, oldest first: the earlier exchanges (`historyCount` of them), then this run's
 */
export function formatCompletedSteps(steps: readonly CompletedStep[], format: PromptFormat = 'perflow', historyCount = 0): string {
  if (format === 'ml-commons') {
    const history = steps.slice(0, historyCount).flatMap((s) => [s.step, s.result]);
    const own = steps.slice(historyCount).flatMap((s, i) => [`\n<step-${i + 1}>\n${s.step}\n</step-${i + 1}>\n`, `\n<step-${i + 1}-result>\n${s.result}\n</step-${i + 1}-result>\n`]);
    return [...history, ...own].join(', ');
  }
  return steps
    .map((s, i) => {
      const n = i + 1;
      return `<step-${n}>\n${s.step}\n</step-${n}>\n<step-${n}-result>\n${s.result}\n</step-${n}-result>`;
    })
    .join('\n');
}

/**
 * Formats the current plan for `${parameters.steps}` (the template supplies the brackets):
 * `ml-commons` joins the steps by `, ` as they are (`step1, step2`); `perflow` writes each as a
 * JSON string (`"step1", "step2"`).
 *
 * @param steps - the plan's steps
 */
export function formatSteps(steps: readonly string[], format: PromptFormat = 'perflow'): string {
  return format === 'ml-commons' ? steps.join(', ') : steps.map((s) => JSON.stringify(s)).join(', ');
}

/** The part of a tool the planner needs to see. */
export interface ToolSummary {
  /** Tool name, as the executor calls it. */
  name: string;
  /** What the tool does and when to use it. */
  description: string;
}

/**
 * Builds the text for `${parameters.tools_prompt}`.
 *
 * `ml-commons` (its `addToolsToPrompt`): a heading line, `Tool N - name: description` and a blank
 * line per tool, and a closing sentence that no other tools are available. `perflow`: a heading
 * and one `- name: description` line per tool, or a sentence saying that no tools are available.
 *
 * @param tools - the tools the executor can call
 */
export function buildToolsPrompt(tools: readonly ToolSummary[], format: PromptFormat = 'perflow'): string {
  if (format === 'ml-commons') {
    const listed = tools.map((t, i) => `Tool ${i + 1} - ${t.name}: ${t.description}\n\n`).join('');
    return `In this environment, you have access to the tools listed below. Use these tools to create your plan, and do not reference or use any tools not listed here.\n${listed}No other tools are available. Do not invent tools. Only use tools to create the plan.\n\n`;
  }
  if (tools.length === 0) {
    return 'No tools are available in this environment. Plan steps that can be completed by reasoning over the information provided.';
  }
  const lines = tools.map((t) => {
    const description = t.description.replace(/\s*[\r\n]+\s*/g, ' ').trim();
    return description === '' ? `- ${t.name}` : `- ${t.name}: ${description}`;
  });
  return [
    'In this environment, you have access to the tools listed below. Use only these tools to create your plan; do not reference or invent any other tools.',
    '',
    ...lines,
  ].join('\n');
}

/**
 * Every run parameter as a `${parameters.x}` value (non-strings as JSON), with their own
 * placeholders filled, plus `tools_prompt` and `user_prompt` (the question).
 */
export function templateParams(p: Readonly<Record<string, unknown>>, question: string, tools: readonly ToolSummary[], format: PromptFormat = 'perflow'): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(p)) {
    if (value !== undefined && value !== null) params[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  params.tools_prompt = buildToolsPrompt(tools, format);
  // The run's question, however it was given (--question, the run input or the parameter): seed 000's required parameter.
  const userText = { user_prompt: question, question };
  Object.assign(params, userText);
  // The templates are rendered as they are when a call is made.
  const templates = ['planner_prompt_template', 'reflect_prompt_template', 'planner_with_history_template'];
  const resolved = resolveParameterValues(params, [...Object.keys(userText), ...templates]);
  // The question goes into the other values last, in one pass: user text is never scanned for placeholders.
  for (const key of Object.keys(resolved)) {
    if (!(key in userText) && !templates.includes(key)) resolved[key] = renderTemplate(resolved[key], userText);
  }
  return resolved;
}

/** The most characters of a step result an assessment is shown; a longer one is cut, and the prompt says so. */
export const WHOLE_RESULT_CHARS = 50_000;

/**
 * Where a prompt built in a workflow wants the whole result of the run's executed step `unit`:
 * the model activity fills it from memory ({@link fillWholeResults}), so the history carries the
 * marker, not the result.
 */
export const wholeResultMarker = (unit: number): string => `⟦whole result of step ${unit + 1}⟧`;

/**
 * Replaces the markers of the results given (by unit) with the results, each cut at
 * {@link WHOLE_RESULT_CHARS} with a note saying how long it was, in one pass: text put in is
 * never scanned for markers.
 */
export function fillWholeResults(prompt: string, results: ReadonlyMap<number, string>): string {
  return prompt.replace(/⟦whole result of step (\d+)⟧/g, (marker, n: string) => {
    const result = results.get(Number(n) - 1);
    if (result === undefined) return marker;
    if (result.length <= WHOLE_RESULT_CHARS) return result;
    return `${result.slice(0, WHOLE_RESULT_CHARS)}\n…[cut: the result has ${result.length} characters; the first ${WHOLE_RESULT_CHARS} are shown]`;
  });
}

/**
 * Where a prompt built in a workflow lists a long run's steps that it no longer carries (moved
 * to memory at a continue-as-new, see `EarlierStepsRef`): the model activity puts the stored
 * text of that `kind` (an agent type's listing) there, so the prompt reads as it would have.
 */
export const earlierStepsMarker = (kind: string): string => `⟦earlier steps: ${kind}⟧`;

/** Replaces the markers of the kinds given with their texts, in one pass: text put in is never scanned for markers. */
export function fillEarlierSteps(prompt: string, texts: ReadonlyMap<string, string>): string {
  return prompt.replace(/⟦earlier steps: ([a-z_]+)⟧/g, (marker, kind: string) => texts.get(kind) ?? marker);
}
