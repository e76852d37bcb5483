/**
 * What the step_by_step, todo_list and plan_and_execute agents share in their model contract:
 * `{{name}}` templates, instruction blocks, their system prompt, the max-iterations message,
 * Axon Ivy's DataMapping request, and the parsing of JSON lists of items.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { z } from 'zod';
import type { ResolvedParameters } from '../agent';
import type { AgentTool } from '../activity-contract';
import { extractJson, type Parsed } from '../json-in-text';
import { DEFAULT_PLANNER_SYSTEM_PROMPT } from '../prompts';
import { clip, oneLine, preview } from '../text';

export { fill } from '../template';

export type { Parsed };

/**
 * A schema built on its first use and kept. All workflows of a worker share these modules
 * (SHARED_WORKFLOW_MODULES in workers/workflow-source.ts) and the SDK freezes what they export,
 * while zod writes into a schema on its first parse: so no schema is built at module scope.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): () => T {
  let schema: T | undefined;
  return () => (schema ??= build());
}

export const intFrom = lazySchema(() => z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number().int()));
export const optionalText = lazySchema(() => z.preprocess((v) => (v === null ? undefined : typeof v === 'number' ? String(v) : v), z.string().optional()));

export function zodProblem(error: z.ZodError, what: string): string {
  const first = error.issues[0];
  const path = first.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return `${what}${path}: ${oneLine(first.message)}`;
}

/** Parses a JSON array of items with `schema`; an object holding one array (`{"steps": [...]}`) is accepted too. */
export function parseList<T>(raw: string, schema: z.ZodType<T>, what: string): Parsed<T[]> {
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

/** Instructions of one phase as the Ivy templates insert them: one per line, then a blank line; nothing when none. */
export function instructionBlock(instructions: readonly string[]): string {
  const lines = instructions.map((s) => s.trim()).filter((s) => s !== '');
  return lines.length === 0 ? '' : `${lines.join('\n')}\n\n`;
}

/** System prompt of the planning and assessment calls (each call states its own answer format). */
export const AGENT_TYPE_SYSTEM_PROMPT =
  'You are the planning and assessment model of a tool-using agent. Base every answer only on the information given, and answer exactly in the format the request asks for.';

/** The seed planner's system prompt asks for {"steps","result"}; these agents ask per call, so they use their own unless the agent sets one. */
export function agentTypeSystemPrompt(p: ResolvedParameters): string {
  return p.system_prompt === DEFAULT_PLANNER_SYSTEM_PROMPT ? AGENT_TYPE_SYSTEM_PROMPT : p.system_prompt;
}

/** Tools of the agent by name (the tool IDs of step_by_step and todo_list plans). */
export function toolsNamed(tools: AgentTool[], names: readonly string[]): AgentTool[] {
  return tools.filter((t) => names.includes(t.spec.name));
}

/** The tool list of a planning prompt: one `name: description` per line. */
export function toolListing(tools: AgentTool[]): string {
  return tools.length === 0 ? 'none' : tools.map((t) => `${t.spec.name}: ${t.spec.description}`).join('\n');
}

/** A named result (Axon Ivy's variables): the query, then each step's or todo's result. */
export interface Variable {
  name: string;
  value: string;
}

/** Variables as the Ivy prompts show them: `- name: value`, one per line. */
export function variableListing(variables: readonly Variable[]): string {
  return variables.map((v) => `- ${v.name}: ${preview(v.value, 1_000)}`).join('\n');
}

/** Variables as a run's output metadata shows them (values clipped). */
export function variablesMetadata(variables: readonly Variable[]): Array<{ name: string; value: string }> {
  return variables.map((v) => ({ name: v.name, value: preview(v.value, 500) }));
}

/** Appended when an assessment is asked again after an answer that could not be read. */
export function assessmentRetrySuffix(error: string): string {
  return `\n\nYour previous answer could not be read (${oneLine(error)}). Answer again, exactly in the format asked for above.`;
}

/** The response of a run that used up `max_iterations` (Axon Ivy `maxIterations`) before it finished. */
export function maxIterationsReachedMessage(maxIterations: number, done: string, memoryId: string): string {
  const listing = done.trim() === '' ? '' : ` Here is what was done so far:\n\n${done.trim()}\n\n`;
  return `Max Iterations (${maxIterations}) Reached.${listing === '' ? ' ' : listing}To continue, run the agent again with memory_id ${memoryId}.`;
}

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
