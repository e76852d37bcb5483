/**
 * Scoring a case: every check of a case against what its run showed, each with a one-line
 * detail saying why it passed or failed; and the judge's prompt and verdict.
 *
 * Not for workflow code: `json_path` uses jsonpath-plus, whose Node build imports `vm`, and
 * `output_valid` validates with Ajv (loaded on its first use).
 *
 * @module
 */
import { JSONPath } from 'jsonpath-plus';
import { extractJson } from '../json-in-text';
import { outputProblems } from '../output-schema';
import { clip, oneLine } from '../text';
import { checkKind } from './suite';
import type { CaseObservation, CheckResult, EvalCheck } from './types';
import { compileCheckRegex } from './regex';

/** A judge check. */
export type JudgeCheck = Extract<EvalCheck, { judge: string }>;

/** Grades a response against a judge check's criteria (a model call; scripted in tests). */
export type JudgeFn = (check: JudgeCheck, obs: CaseObservation) => Promise<JudgeVerdict>;

export interface JudgeVerdict {
  passed: boolean;
  /** Why, one line. */
  reason: string;
}

const quote = (s: string) => JSON.stringify(s);
const show = (v: unknown) => clip(JSON.stringify(v) ?? 'undefined');
/** Dollars to three significant digits: a check's detail must tell $0.0123 from a $0.01 limit. */
const dollars = (n: number) => `$${Number(n.toPrecision(3))}`;
const tokensOf = (obs: CaseObservation) => obs.usage.input_tokens + obs.usage.output_tokens;

/** A check as one line: `contains "Paris"`, `max_steps 3`, `judge "cites the source"`. */
export function checkLabel(check: EvalCheck): string {
  const c = check as Record<string, unknown>;
  const kind = checkKind(check);
  if (kind === undefined) return clip(JSON.stringify(check));
  if (kind === 'json_path') return `json_path ${String(c.json_path)} equals ${show(c.equals)}`;
  if (kind === 'regex' || kind === 'not_regex') return `${kind} /${String(c[kind])}/${typeof c.flags === 'string' ? c.flags : ''}`;
  const value = c[kind];
  return `${kind} ${typeof value === 'string' ? quote(clip(value)) : String(value)}`;
}

/** Deep equality of JSON values (object key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const result = (check: EvalCheck, passed: boolean, detail: string): CheckResult => ({ check: checkLabel(check), passed, detail: oneLine(detail) });
/** `value` within `limit`, with a detail such as `4 steps > 3` from `shown` = [value, limit] as written. */
const atMost = (value: number, limit: number, [shownValue, shownLimit]: [string, string]): [boolean, string] => [
  value <= limit,
  `${shownValue} ${value <= limit ? '≤' : '>'} ${shownLimit}`,
];

/**
 * The value `path` selects in the run's typed answer when it has one, else in the response's
 * JSON: one match is that value, several are their list.
 */
function scoreJsonPath(check: Extract<EvalCheck, { json_path: string }>, obs: CaseObservation): [boolean, string] {
  const { response } = obs;
  const where = obs.output !== undefined ? 'output' : 'response';
  // The first bracket decides: prose around {"a": [1]} must not yield the inner array.
  const parsed = obs.output !== undefined ? { ok: true as const, value: obs.output } : extractJson(response, response[response.search(/[[{]/)] === '{' ? 'object' : 'any', 'response');
  if (!parsed.ok) return [false, parsed.error];
  let found: unknown[];
  try {
    // jsonpath-plus gives undefined for a falsy whole (null, 0, false, ""): only `$` selects anything there.
    found = (JSONPath({ path: check.json_path, json: parsed.value as object, wrap: true }) as unknown[] | undefined) ?? (check.json_path.trim() === '$' ? [parsed.value] : []);
  } catch (e) {
    return [false, `${check.json_path} is not a valid JSONPath: ${(e as Error).message}`];
  }
  if (found.length === 0) return [false, `${check.json_path} matches nothing in the ${where}`];
  const value = found.length === 1 ? found[0] : found;
  return sameJson(value, check.equals)
    ? [true, `${check.json_path} is ${show(value)}`]
    : [false, `${check.json_path} is ${show(value)}, not ${show(check.equals)}`];
}

/** Whether the run's typed answer conforms to the agent's `output_schema`, with the validator's first problem when not. */
function scoreOutputValid(obs: CaseObservation): [boolean, string] {
  if (obs.output_schema === undefined) return [false, 'the agent has no output_schema'];
  if (obs.output === undefined) return [false, 'the run gave no typed output'];
  const problems = outputProblems(obs.output_schema, obs.output);
  return problems === undefined ? [true, 'output conforms to output_schema'] : [false, `output does not conform to output_schema: ${problems.problems[0] ?? problems.path}`];
}

/** A check on the run's answer (its response text, or its typed output); the run completed. */
function scoreResponse(check: EvalCheck, obs: CaseObservation): [boolean, string] {
  const { response } = obs;
  if ('json_path' in check) return scoreJsonPath(check, obs);
  if ('output_valid' in check) return scoreOutputValid(obs);
  if ('contains' in check) {
    return response.includes(check.contains) ? [true, `response contains ${quote(check.contains)}`] : [false, `response has no ${quote(check.contains)}`];
  }
  if ('not_contains' in check) {
    return response.includes(check.not_contains)
      ? [false, `response contains ${quote(check.not_contains)}`]
      : [true, `response has no ${quote(check.not_contains)}`];
  }
  if ('regex' in check) {
    // Linear time whatever the pattern (core/eval/regex.ts); the suite was checked when it was read.
    const compiled = compileCheckRegex(check.regex, check.flags);
    if (!compiled.ok) return [false, compiled.problem];
    const m = compiled.regex.firstMatch(response);
    return m !== undefined ? [true, `response matches at ${quote(clip(m, 40))}`] : [false, `response does not match /${check.regex}/${check.flags ?? ''}`];
  }
  if ('not_regex' in check) {
    const compiled = compileCheckRegex(check.not_regex, check.flags);
    if (!compiled.ok) return [false, compiled.problem];
    const m = compiled.regex.firstMatch(response);
    return m === undefined ? [true, `response does not match /${check.not_regex}/${check.flags ?? ''}`] : [false, `response matches at ${quote(clip(m, 40))}`];
  }
  if ('equals' in check) {
    return response.trim() === check.equals.trim()
      ? [true, `response equals ${quote(clip(check.equals))}`]
      : [false, `response is ${quote(clip(response.trim()))}, not ${quote(clip(check.equals))}`];
  }
  throw new Error(`not a response check: ${JSON.stringify(check)}`);
}

/** A check on what the run did (tools, steps, tokens, cost, time, a guardrail's stop): scored whether or not it completed. */
function scoreRun(check: EvalCheck, obs: CaseObservation): [boolean, string] | undefined {
  const calls = (name: string) => obs.tools_called.filter((t) => t === name).length;
  const times = (n: number) => (n === 1 ? '1 time' : `${n} times`);
  if ('tool_called' in check) {
    const n = calls(check.tool_called);
    const others = obs.tools_called.length === 0 ? 'no tool was called' : `called: ${[...new Set(obs.tools_called)].join(', ')}`;
    return n > 0 ? [true, `${check.tool_called} was called ${times(n)}`] : [false, `${check.tool_called} was not called (${others})`];
  }
  if ('tool_not_called' in check) {
    const n = calls(check.tool_not_called);
    return n > 0 ? [false, `${check.tool_not_called} was called ${times(n)}`] : [true, `${check.tool_not_called} was not called`];
  }
  if ('max_steps' in check) return atMost(obs.steps, check.max_steps, [obs.steps === 1 ? '1 step' : `${obs.steps} steps`, String(check.max_steps)]);
  if ('max_tokens' in check) return atMost(tokensOf(obs), check.max_tokens, [`tokens ${tokensOf(obs)}`, String(check.max_tokens)]);
  if ('max_cost_usd' in check) {
    const cost = obs.usage.cost_usd;
    if (cost === null || cost === undefined) return [false, 'cost unknown (a model has no price)'];
    return atMost(cost, check.max_cost_usd, [`cost ${dollars(cost)}`, dollars(check.max_cost_usd)]);
  }
  if ('max_duration_ms' in check) return atMost(obs.duration_ms, check.max_duration_ms, [`duration ${obs.duration_ms} ms`, `${check.max_duration_ms} ms`]);
  if ('tripped' in check) {
    const stop = obs.tripped;
    const what = stop ? `the ${stop.place} guardrail ${stop.check} stopped the run: ${stop.detail}` : 'no guardrail stopped the run';
    return [check.tripped === (stop !== undefined), what];
  }
  return undefined;
}

/** Why a guardrail stopped a run, one line: `input guardrail not_contains "password": response contains "password"`. */
export const tripReason = (stop: NonNullable<CaseObservation['tripped']>): string => `${stop.place} guardrail ${stop.check}: ${stop.detail}`;

/**
 * Every check of a case scored against its run (all of them, not only up to the first failure),
 * in the suite's order. A run that did not complete (a guardrail's stop included) fails each
 * response check (text, JSON, typed output, judge) with its error; checks of what it did are
 * scored as usual. A judge whose model gave no verdict ({@link JudgeVerdictError}) fails its
 * check with why; any other error of the judge (a model call that failed) is thrown, so the
 * caller's retries (an activity's) try again.
 */
export async function scoreCase(checks: readonly EvalCheck[], obs: CaseObservation, judge: JudgeFn): Promise<CheckResult[]> {
  const completed = obs.status === 'completed';
  const notCompleted = `run ${obs.status}: ${obs.error ?? (obs.tripped ? tripReason(obs.tripped) : 'no response')}`;
  return Promise.all(
    checks.map(async (check): Promise<CheckResult> => {
      const run = scoreRun(check, obs);
      if (run) return result(check, ...run);
      if (!completed) return result(check, false, notCompleted);
      if ('judge' in check) {
        try {
          const verdict = await judge(check, obs);
          return result(check, verdict.passed, verdict.reason);
        } catch (e) {
          if (!(e instanceof JudgeVerdictError)) throw e;
          return result(check, false, e.message);
        }
      }
      return result(check, ...scoreResponse(check, obs));
    }),
  );
}

/**
 * A case passes when every check passed and its run completed, or a guardrail stopped it and
 * the case expects that (a `{"tripped": true}` among its `expected` checks).
 */
export const casePassed = (obs: Pick<CaseObservation, 'status'>, results: readonly CheckResult[], expected: readonly EvalCheck[] = []): boolean =>
  (obs.status === 'completed' || (obs.status === 'tripped' && expected.some((c) => 'tripped' in c && c.tripped))) && results.every((c) => c.passed);

/** The first failing check, for one-line reports. */
export const firstFailure = (checks: readonly CheckResult[]): CheckResult | undefined => checks.find((c) => !c.passed);

// ---------------------------------------------------------------------------------------------
// the judge

/** What a judge model is asked. `reference` is a recorded answer the response should agree with. */
export function judgeRequest(input: { criteria: string; question: string; response: string; reference?: string }): { system: string; prompt: string } {
  const system = [
    'You grade an AI agent\'s response to a question against stated criteria.',
    'Judge only whether the response meets the criteria; be strict and do not reward length or style.',
    'Answer with JSON only, no other text: {"pass": true or false, "reason": "one line saying why"}.',
  ].join(' ');
  const parts = [
    `Question:\n${input.question}`,
    ...(input.reference !== undefined ? [`Reference answer (recorded earlier, taken as correct):\n${input.reference}`] : []),
    `Response to grade:\n${input.response}`,
    `Criteria:\n${input.criteria}`,
    'Does the response meet the criteria? Answer {"pass": true|false, "reason": "one line"}.',
  ];
  return { system, prompt: parts.join('\n\n') };
}

const VERDICT_SHAPE = 'expected {"pass": true|false, "reason": "one line"}';

/** A judge model's answer held no verdict. */
export class JudgeVerdictError extends Error {
  constructor(problem: string) {
    super(`the judge gave no verdict (${VERDICT_SHAPE}): ${problem}`);
    this.name = 'JudgeVerdictError';
  }
}

/** The verdict in a judge model's answer (prose or fences around the JSON are fine). */
export function parseJudgeVerdict(text: string): JudgeVerdict {
  const parsed = extractJson(text, 'object', 'judge answer');
  if (!parsed.ok) throw new JudgeVerdictError(parsed.error);
  const v = parsed.value as Record<string, unknown>;
  const raw = v.pass ?? v.passed;
  const passed = typeof raw === 'string' ? ({ true: true, pass: true, false: false, fail: false } as Record<string, boolean>)[raw.trim().toLowerCase()] : raw;
  if (typeof passed !== 'boolean') throw new JudgeVerdictError(`"pass" is ${show(raw)} in "${clip(text)}"`);
  const reason = typeof v.reason === 'string' && v.reason.trim() !== '' ? clip(v.reason, 300) : '(the judge gave no reason)';
  return { passed, reason };
}
