/**
 * The suite file of an eval: its schema and {@link parseSuite}, which turns a bad file into one
 * line naming the file and every bad field's path. Strict: unknown fields are errors, so a
 * misspelt check (`"contain"`) fails here rather than passing silently in every eval.
 *
 * Pure module (zod only).
 *
 * @module
 */
import { z } from 'zod';
import { requiredOr, isPlainObject } from '../agent-file/coerce';
import { ModelConfig } from '../agent-file/model';
import { fallbackError, toIssues, type AgentDefinitionIssue } from '../issues';
import type { EvalCheck, EvalSuite } from './types';
import { compileCheckRegex } from './regex';

/**
 * Most cases in one suite: an eval is one workflow whose history holds an event group per case
 * (start, result, score), and a thousand cases keep it well inside Temporal's history limits.
 */
export const MAX_SUITE_CASES = 1000;

/** Longest case id: it becomes part of the case run's workflow ID. */
export const MAX_CASE_ID_LENGTH = 100;

const CASE_ID = /^[A-Za-z0-9_.-]+$/;

/** The key that names each check kind (`json_path` pairs with `equals`). */
export const CHECK_KINDS = [
  'contains',
  'not_contains',
  'regex',
  'not_regex',
  'equals',
  'json_path',
  'tool_called',
  'tool_not_called',
  'max_steps',
  'max_tokens',
  'max_cost_usd',
  'max_duration_ms',
  'output_valid',
  'tripped',
  'judge',
] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** A suite file was rejected. The message is one line: the file, then every bad field's path and problem. */
export class EvalSuiteError extends Error {
  readonly issues: AgentDefinitionIssue[];

  constructor(where: string, issues: AgentDefinitionIssue[]) {
    super(`${where}: ${issues.map((i) => `${i.path === '(root)' ? '' : `${i.path}: `}${i.message}`).join('; ')}`);
    this.name = 'EvalSuiteError';
    this.issues = issues;
  }
}

const text = (what = 'a non-empty string') =>
  z.string({ error: requiredOr(`expected ${what}`) }).min(1, { error: `expected ${what}` });
const positiveInteger = z
  .number({ error: requiredOr('expected a positive integer') })
  .int({ error: 'expected a positive integer' })
  .positive({ error: 'expected a positive integer' });
const dollars = z
  .number({ error: requiredOr('expected a non-negative number of US dollars') })
  .nonnegative({ error: 'expected a non-negative number of US dollars' })
  .finite({ error: 'expected a non-negative number of US dollars' });
/** The schema of each check kind, chosen by the kind's key. */
const CHECK_SCHEMAS: Record<CheckKind, z.ZodType> = {
  contains: z.strictObject({ contains: text() }),
  not_contains: z.strictObject({ not_contains: text() }),
  regex: z
    .strictObject({
      regex: text('a regular expression (RE2 syntax: JavaScript\'s without lookaround or backreferences)'),
      /** RegExp flags, e.g. `i` to ignore case. */
      flags: z.string({ error: 'expected RegExp flags such as "i"' }).optional(),
    })
    .superRefine((c, ctx) => {
      const compiled = compileCheckRegex(c.regex, c.flags);
      if (!compiled.ok) ctx.addIssue({ code: 'custom', path: [compiled.field], message: compiled.problem });
    }),
  not_regex: z
    .strictObject({
      not_regex: text('a regular expression (RE2 syntax: JavaScript\'s without lookaround or backreferences)'),
      flags: z.string({ error: 'expected RegExp flags such as "i"' }).optional(),
    })
    .superRefine((c, ctx) => {
      const compiled = compileCheckRegex(c.not_regex, c.flags);
      if (!compiled.ok) ctx.addIssue({ code: 'custom', path: [compiled.field === 'regex' ? 'not_regex' : 'flags'], message: compiled.problem });
    }),
  equals: z.strictObject({ equals: z.string({ error: requiredOr('expected a string (use json_path with equals for other values)') }) }),
  json_path: z
    .strictObject({
      json_path: text('a JSONPath starting with "$"').startsWith('$', { error: 'expected a JSONPath starting with "$"' }),
      equals: z.unknown(),
    }),
  tool_called: z.strictObject({ tool_called: text('a tool name') }),
  tool_not_called: z.strictObject({ tool_not_called: text('a tool name') }),
  max_steps: z.strictObject({ max_steps: positiveInteger }),
  max_tokens: z.strictObject({ max_tokens: positiveInteger }),
  max_cost_usd: z.strictObject({ max_cost_usd: dollars }),
  max_duration_ms: z.strictObject({ max_duration_ms: positiveInteger }),
  output_valid: z.strictObject({
    output_valid: z.literal(true, { error: 'expected true (the check passes when the answer conforms to the agent\'s output_schema)' }),
  }),
  tripped: z.strictObject({ tripped: z.boolean({ error: requiredOr('expected true (a guardrail stopped the run) or false (none did)') }) }),
  judge: z.strictObject({ judge: text('the criteria the response is graded against'), llm: ModelConfig.optional() }),
};

const KINDS_LIST = CHECK_KINDS.map((k) => (k === 'json_path' ? 'json_path (with equals)' : k)).join(', ');

/** The kind of a check object: the one kind key it has (`equals` beside `json_path` belongs to it). */
export function checkKind(check: object): CheckKind | undefined {
  const keys = Object.keys(check).filter((k): k is CheckKind => (CHECK_KINDS as readonly string[]).includes(k));
  const kinds = keys.includes('json_path') ? keys.filter((k) => k !== 'equals') : keys;
  return kinds.length === 1 ? kinds[0] : undefined;
}

/** One check: exactly one kind key, then that kind's strict schema. */
export const EvalCheckSchema = z.unknown().transform((value, ctx): EvalCheck => {
  if (!isPlainObject(value)) {
    ctx.addIssue({ code: 'custom', message: 'expected a check object, e.g. {"contains": "Paris"}' });
    return z.NEVER;
  }
  const kind = checkKind(value);
  if (kind === undefined) {
    const keys = Object.keys(value);
    const got = keys.length === 0 ? 'an empty object' : keys.map((k) => JSON.stringify(k)).join(', ');
    ctx.addIssue({ code: 'custom', message: `a check has exactly one of ${KINDS_LIST} (got ${got})` });
    return z.NEVER;
  }
  const parsed = CHECK_SCHEMAS[kind].safeParse(value, { error: fallbackError });
  if (parsed.success) return parsed.data as EvalCheck;
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) ctx.addIssue({ code: 'custom', path: [...issue.path, key], message: `unknown field in a ${kind} check` });
    } else {
      const missingValue = kind === 'json_path' && issue.path[0] === 'equals';
      ctx.addIssue({ code: 'custom', path: issue.path, message: missingValue ? 'is required with json_path (the value expected there)' : issue.message });
    }
  }
  return z.NEVER;
});

const params = z.record(z.string(), z.unknown(), { error: 'expected an object of run parameters' });

export const EvalCaseSchema = z.strictObject({
  /** Names the case in reports; part of its run's workflow ID. */
  id: z
    .string({ error: requiredOr('expected a string') })
    .max(MAX_CASE_ID_LENGTH, { error: `expected at most ${MAX_CASE_ID_LENGTH} characters` })
    .regex(CASE_ID, { error: 'expected letters, digits, "-", "_" or "." only (the id becomes part of a workflow ID)' }),
  /** The question the agent is asked. */
  question: text('the question (a non-empty string)'),
  /** Run parameters of this case, over the suite's. */
  params: params.optional(),
  /** The answer a recorded run gave; judges see it. */
  reference: z.string({ error: 'expected a string' }).optional(),
  checks: z.array(EvalCheckSchema, { error: requiredOr('expected an array of checks') }).min(1, { error: 'expected at least one check' }),
});

export const EvalSuiteSchema = z.strictObject({
    name: text('the suite name (a non-empty string)'),
    /** The agent file, relative to the suite file. */
    agent: text('the path of an agent file').optional(),
    params: params.optional(),
    cases: z
      .array(EvalCaseSchema, { error: requiredOr('expected an array of cases') })
      .min(1, { error: 'expected at least one case' })
      .max(MAX_SUITE_CASES, {
        error: `expected at most ${MAX_SUITE_CASES} cases (one eval is one workflow; split the suite)`,
      }),
}, { error: 'expected a suite object {"name", "cases": [...]}' });

/** Case ids used twice, checked apart from the schema so they show beside other problems. */
function duplicateIds(json: unknown): AgentDefinitionIssue[] {
  if (!isPlainObject(json) || !Array.isArray(json.cases)) return [];
  const seen = new Map<string, number>();
  const issues: AgentDefinitionIssue[] = [];
  json.cases.forEach((c: unknown, i) => {
    if (!isPlainObject(c) || typeof c.id !== 'string') return;
    const first = seen.get(c.id);
    if (first === undefined) seen.set(c.id, i);
    else issues.push({ path: `cases[${i}].id`, message: `"${c.id}" is used by cases[${first}] too` });
  });
  return issues;
}

/**
 * The suite in `json` (a parsed suite file), or an {@link EvalSuiteError} naming `where` (the
 * file, e.g. `suite.json`) and every bad field's path, on one line.
 */
export function parseSuite(json: unknown, where: string): EvalSuite {
  const parsed = EvalSuiteSchema.safeParse(json, { error: fallbackError });
  const issues = [...(parsed.success ? [] : toIssues(parsed.error)), ...duplicateIds(json)];
  if (issues.length > 0 || !parsed.success) throw new EvalSuiteError(where, issues);
  return parsed.data as EvalSuite;
}
