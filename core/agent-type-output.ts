/**
 * Parsing the model answers of the step_by_step, todo_list and plan_and_execute agents, and the
 * plan_and_execute bookkeeping (renumbering, statistics). Parsers never throw: a problem comes
 * back as one line, fit for a retry prompt or a failure message.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { z } from 'zod';
import { extractJson, type Parsed } from './json-in-text';
import { clip, oneLine } from './text';

export type { Parsed };

const intFrom = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number().int());
const optionalText = z.preprocess((v) => (v === null ? undefined : typeof v === 'number' ? String(v) : v), z.string().optional());

function zodProblem(error: z.ZodError, what: string): string {
  const first = error.issues[0];
  const path = first.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return `${what}${path}: ${oneLine(first.message)}`;
}

/** Parses a JSON array of items with `schema`; an object holding one array (`{"steps": [...]}`) is accepted too. */
function parseList<T>(raw: string, schema: z.ZodType<T>, what: string): Parsed<T[]> {
  const extracted = extractJson(raw, 'any');
  if (!extracted.ok) return extracted;
  let value = extracted.value;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const arrays = Object.values(value).filter(Array.isArray);
    if (arrays.length === 1) value = arrays[0];
  }
  if (!Array.isArray(value)) return { ok: false, error: `expected a JSON array of ${what}: "${clip(raw)}"` };
  if (value.length === 0) return { ok: false, error: `the list of ${what} is empty` };
  const parsed = z.array(schema).safeParse(value);
  if (!parsed.success) return { ok: false, error: zodProblem(parsed.error, what) };
  return { ok: true, value: parsed.data };
}

// ---------------------------------------------------------------------------------------------
// step_by_step

/** A step of a step_by_step plan (Axon Ivy `AiStep`). */
export const AiStep = z.object({
  stepNo: intFrom,
  name: z.string().min(1),
  analysis: optionalText,
  toolId: z.string().min(1),
  next: intFrom.optional().catch(undefined),
  previous: intFrom.optional().catch(undefined),
  resultName: optionalText,
  resultDescription: optionalText,
});
export type AiStep = z.infer<typeof AiStep>;

/** A step list whose tool IDs are checked against the agent's tools: an unknown one is "Tool not found". */
export function parseAiSteps(raw: string, toolIds: readonly string[]): Parsed<AiStep[]> | { ok: false; error: string; toolNotFound: string } {
  const parsed = parseList(raw, AiStep, 'steps');
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

// ---------------------------------------------------------------------------------------------
// todo_list

/** A todo of a todo_list plan (Axon Ivy `AiTodo`, planning fields). */
export const AiTodo = z.object({
  description: z.string().min(1),
  successCriteria: z.string().min(1),
  availableToolIds: z.array(z.string()).nullish().transform((v) => v ?? []),
  analysis: optionalText,
  stepNo: intFrom,
  resultName: optionalText,
  resultDescription: optionalText,
  maxIterationsPerTodo: intFrom.nullish().catch(undefined),
});
export type AiTodo = z.infer<typeof AiTodo>;

/** Parses the todo list; a missing or non-positive `maxIterationsPerTodo` becomes `defaultMax`, as TodoAgent sets it. */
export function parseTodos(raw: string, toolIds: readonly string[], defaultMax: number): Parsed<Array<AiTodo & { maxIterationsPerTodo: number }>> {
  const parsed = parseList(raw, AiTodo, 'todos');
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

// ---------------------------------------------------------------------------------------------
// plan_and_execute

/** A structured plan step (seed 003 `PlanStep`). */
export interface PlanStep {
  step_num: number;
  goal: string;
  primary_tools: string[];
  success_criteria: string;
  context?: string;
}

const PlanStepInput = z.object({
  step_num: intFrom.optional().catch(undefined),
  goal: z.string().min(1),
  primary_tools: z.preprocess((v) => (typeof v === 'string' ? [v] : v ?? []), z.array(z.string())),
  success_criteria: z.string().default(''),
  context: optionalText,
});

/** Parses a plan (a JSON array of steps), numbering steps that have no `step_num` by position from `firstNum`. */
export function parsePlanSteps(raw: string, firstNum = 1): Parsed<PlanStep[]> {
  const parsed = parseList(raw, PlanStepInput, 'plan steps');
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    value: parsed.value.map((s, i) => ({
      step_num: s.step_num ?? firstNum + i,
      goal: s.goal,
      primary_tools: s.primary_tools,
      success_criteria: s.success_criteria,
      ...(s.context !== undefined && s.context !== '' ? { context: s.context } : {}),
    })),
  };
}

/** Completed steps keep their numbers; the new steps follow them, numbered on, so numbers only grow. */
export function renumberAdapted(completed: readonly PlanStep[], adapted: readonly PlanStep[]): PlanStep[] {
  const start = completed.length === 0 ? 1 : Math.max(...completed.map((s) => s.step_num)) + 1;
  return [...completed, ...adapted.map((s, i) => ({ ...s, step_num: start + i }))];
}

/** The viability check's answer (trigger 3). */
export function parseViability(raw: string): Parsed<{ replan: boolean; confidence: number; reason: string }> {
  const extracted = extractJson(raw, 'object');
  if (!extracted.ok) return extracted;
  const parsed = z
    .object({
      replan: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() === 'true' : v), z.boolean()),
      confidence: z.preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number().min(0).max(1)),
      reason: z.string().default(''),
    })
    .safeParse(extracted.value);
  if (!parsed.success) return { ok: false, error: zodProblem(parsed.error, 'viability') };
  return { ok: true, value: parsed.data };
}

/** The first configured keyword found in an observation (case-insensitive), for trigger 2. */
export function findReplanKeyword(observation: string, keywords: readonly string[]): string | undefined {
  const text = observation.toLowerCase();
  return keywords.find((k) => k.trim() !== '' && text.includes(k.toLowerCase()));
}

/** One executed plan step (seed 003 `StepResult`). */
export interface StepResult {
  step_num: number;
  goal: string;
  success: boolean;
  tool_used: string;
  attempts: number;
  /** The observation, truncated to {@link OBSERVATION_METADATA_CHARS}. */
  observation: string;
  error?: string;
}

/** Longest observation kept in a run's metadata. */
export const OBSERVATION_METADATA_CHARS = 500;

/** The run statistics of seed 003: steps, successes, failures, success rate %, attempts, unique tools. */
export interface PlanStatistics {
  total_steps: number;
  successful_steps: number;
  failed_steps: number;
  /** Percentage with one decimal, 0 when no step ran. */
  success_rate: number;
  total_attempts: number;
  unique_tools: string[];
}

export function planStatistics(results: readonly StepResult[]): PlanStatistics {
  const ok = results.filter((r) => r.success).length;
  return {
    total_steps: results.length,
    successful_steps: ok,
    failed_steps: results.length - ok,
    success_rate: results.length === 0 ? 0 : Math.round((ok / results.length) * 1000) / 10,
    total_attempts: results.reduce((n, r) => n + r.attempts, 0),
    unique_tools: [...new Set(results.map((r) => r.tool_used).filter((t) => t !== ''))].sort(),
  };
}
