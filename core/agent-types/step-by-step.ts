/**
 * Axon Ivy's STEP_BY_STEP agent (IvyAgent): its prompts (seed texts verbatim) and the parsing
 * of its answers — structured steps and the YES/NO/COMPLETE decision.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { z } from 'zod';
import { extractJson, type Parsed } from '../json-in-text';
import { clip, oneLine } from '../text';
import { intFrom, lazySchema, optionalText, parseList } from './common';

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

/** Appended when a decision could not be read, to ask again. */
export function decisionRetrySuffix(error: string): string {
  return `\n\nYour previous answer could not be read (${oneLine(error)}). Answer again: give your reasoning, then the decision on its own line as "Decision: YES", "Decision: NO" or "Decision: COMPLETE" (with YES, the JSON array of steps to insert after it).`;
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


/** A step of a step_by_step plan (Axon Ivy `AiStep`). */
const aiStep = lazySchema(() =>
  z.object({
    stepNo: intFrom(),
    name: z.string().min(1),
    analysis: optionalText(),
    toolId: z.string().min(1),
    next: intFrom().optional().catch(undefined),
    previous: intFrom().optional().catch(undefined),
    resultName: optionalText(),
    resultDescription: optionalText(),
  }),
);
export type AiStep = z.infer<ReturnType<typeof aiStep>>;

/** A step list whose tool IDs are checked against the agent's tools: an unknown one is "Tool not found". */
export function parseAiSteps(raw: string, toolIds: readonly string[]): Parsed<AiStep[]> | { ok: false; error: string; toolNotFound: string } {
  const parsed = parseList(raw, aiStep(), 'steps');
  if (!parsed.ok) return parsed;
  const unknown = parsed.value.find((s) => !toolIds.includes(s.toolId));
  if (unknown) {
    return {
      ok: false,
      toolNotFound: unknown.toolId,
      error: `Tool not found: ${unknown.toolId} (step ${unknown.stepNo} "${clip(unknown.name, 60)}"); the agent's tools: ${toolIds.join(', ') || 'none'}`,
    };
  }
  return parsed;
}

export type StepDecision = 'YES' | 'NO' | 'COMPLETE';

/**
 * The decision of IvyAgent's execution prompt: the word after `Decision:`, else the first of
 * COMPLETE, YES, NO standing alone. With YES, the inserted steps (JSON array) if any.
 */
export function parseStepDecision(raw: string): Parsed<{ decision: StepDecision; steps: unknown[] }> {
  const labelled = /Decision\s*:\s*\**\s*(YES|NO|COMPLETE)\b/i.exec(raw);
  const bare = /\b(COMPLETE|YES|NO)\b/.exec(raw);
  const word = (labelled?.[1] ?? bare?.[1])?.toUpperCase() as StepDecision | undefined;
  if (!word) return { ok: false, error: `answer names no decision (YES, NO or COMPLETE): "${clip(raw)}"` };
  if (word !== 'YES') return { ok: true, value: { decision: word, steps: [] } };
  const json = extractJson(raw.slice(raw.indexOf('[') === -1 ? raw.length : raw.indexOf('[')), 'array');
  const steps = json.ok && Array.isArray(json.value) ? json.value : [];
  return { ok: true, value: { decision: 'YES', steps } };
}

/** Numbers adaptive steps as IvyAgent does, `stepNo + 1000` of the step that adapted the plan, skipping numbers in use. */
export function numberAdaptiveSteps(steps: readonly AiStep[], afterStepNo: number, taken: ReadonlySet<number>): AiStep[] {
  const used = new Set(taken);
  let n = afterStepNo + 1000;
  return steps.map((s) => {
    while (used.has(n)) n++;
    used.add(n);
    return { ...s, stepNo: n };
  });
}
