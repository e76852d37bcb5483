/**
 * Minimal stand-ins for the pure eval functions (suite.ts, checks.ts, results.ts), with their
 * signatures, until those modules land; removed then, with the imports pointed at them.
 */
import type { CaseComparison, CaseObservation, CaseResult, CheckResult, EvalCase, EvalCheck, EvalComparison, EvalResult, EvalSuite } from './types';

export class EvalSuiteError extends Error {}

const fail = (where: string, path: string, why: string): never => {
  throw new EvalSuiteError(`${where}: ${path}: ${why}`);
};
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const CHECK_KINDS = ['contains', 'not_contains', 'regex', 'equals', 'json_path', 'tool_called', 'tool_not_called', 'max_steps', 'max_tokens', 'max_cost_usd', 'max_duration_ms', 'judge'];

export function parseSuite(json: unknown, where: string): EvalSuite {
  if (!isObject(json)) return fail(where, '(root)', 'expected an object');
  if (typeof json.name !== 'string' || json.name === '') fail(where, 'name', 'expected a non-empty string');
  if (json.agent !== undefined && typeof json.agent !== 'string') fail(where, 'agent', 'expected a path');
  if (json.params !== undefined && !isObject(json.params)) fail(where, 'params', 'expected an object');
  if (!Array.isArray(json.cases)) return fail(where, 'cases', 'expected an array');
  const ids = new Set<string>();
  (json.cases as unknown[]).forEach((c, i) => {
    const at = `cases[${i}]`;
    if (!isObject(c)) return fail(where, at, 'expected an object');
    if (typeof c.id !== 'string' || !/^[A-Za-z0-9._-]+$/.test(c.id)) fail(where, `${at}.id`, 'expected letters, digits, ".", "_" or "-"');
    if (ids.has(c.id as string)) fail(where, `${at}.id`, `"${String(c.id)}" is used by an earlier case`);
    ids.add(c.id as string);
    if (typeof c.question !== 'string' || c.question === '') fail(where, `${at}.question`, 'expected a non-empty string');
    if (!Array.isArray(c.checks)) return fail(where, `${at}.checks`, 'expected an array');
    (c.checks as unknown[]).forEach((k, j) => {
      if (!isObject(k) || !CHECK_KINDS.some((kind) => kind in k)) fail(where, `${at}.checks[${j}]`, `expected one of ${CHECK_KINDS.join(', ')}`);
    });
  });
  return json as unknown as EvalSuite;
}

export function checkLabel(check: EvalCheck): string {
  const [kind, value] = Object.entries(check)[0];
  if ('json_path' in check) return `json_path ${check.json_path} equals ${JSON.stringify(check.equals)}`;
  return `${kind} ${JSON.stringify(value)}`;
}

const tokens = (o: CaseObservation) => o.usage.input_tokens + o.usage.output_tokens;

export async function scoreCase(
  checks: EvalCheck[],
  obs: CaseObservation,
  judge: (check: Extract<EvalCheck, { judge: string }>, obs: CaseObservation) => Promise<{ passed: boolean; reason: string }>,
): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const check of checks) {
    const r = (passed: boolean, detail: string) => out.push({ check: checkLabel(check), passed, detail });
    if ('judge' in check) {
      const v = await judge(check, obs);
      r(v.passed, v.reason);
    } else if ('contains' in check) r(obs.response.includes(check.contains), 'in the response');
    else if ('not_contains' in check) r(!obs.response.includes(check.not_contains), 'in the response');
    else if ('regex' in check) r(new RegExp(check.regex).test(obs.response), 'the response');
    else if ('json_path' in check) r(false, 'json_path is not in the stand-in');
    else if ('equals' in check) r(obs.response.trim() === check.equals, 'the response');
    else if ('tool_called' in check) r(obs.tools_called.includes(check.tool_called), `tools called: ${obs.tools_called.join(', ') || 'none'}`);
    else if ('tool_not_called' in check) r(!obs.tools_called.includes(check.tool_not_called), `tools called: ${obs.tools_called.join(', ') || 'none'}`);
    else if ('max_steps' in check) r(obs.steps <= check.max_steps, `${obs.steps} steps`);
    else if ('max_tokens' in check) r(tokens(obs) <= check.max_tokens, `${tokens(obs)} tokens`);
    else if ('max_cost_usd' in check) r(obs.usage.cost_usd != null && obs.usage.cost_usd <= check.max_cost_usd, `cost ${obs.usage.cost_usd}`);
    else if ('max_duration_ms' in check) r(obs.duration_ms <= check.max_duration_ms, `${obs.duration_ms} ms`);
  }
  return out;
}

export function judgeRequest(o: { criteria: string; question: string; response: string; reference?: string }): { system: string; prompt: string } {
  return {
    system: 'You grade an answer against criteria. Reply with PASS or FAIL, then one line saying why.',
    prompt: `Question: ${o.question}\nCriteria: ${o.criteria}\n${o.reference ? `Reference: ${o.reference}\n` : ''}Answer: ${o.response}`,
  };
}

export function parseJudgeVerdict(text: string): { passed: boolean; reason: string } {
  const m = /^\s*(PASS|FAIL)\b[\s:.-]*(.*)$/is.exec(text);
  if (!m) return { passed: false, reason: `the judge's answer has no PASS or FAIL: ${text.slice(0, 200)}` };
  return { passed: m[1].toUpperCase() === 'PASS', reason: m[2].trim().split('\n')[0] };
}

export const firstFailure = (checks: CheckResult[]): CheckResult | undefined => checks.find((c) => !c.passed);

export function tallyEval(cases: readonly Pick<CaseResult, 'passed'>[]): { passed: number; failed: number; pass_rate: number } {
  const passed = cases.filter((c) => c.passed).length;
  return { passed, failed: cases.length - passed, pass_rate: cases.length === 0 ? 0 : passed / cases.length };
}

export function compareEvals(a: EvalResult, b: EvalResult): EvalComparison {
  const pick = (c: CaseResult) => ({ passed: c.passed, workflow_id: c.workflow_id, usage: c.usage, cost_usd: c.cost_usd, duration_ms: c.duration_ms, steps: c.steps });
  const byId = new Map(a.cases.map((c) => [c.id, c]));
  const cases: CaseComparison[] = b.cases.map((cb) => {
    const ca = byId.get(cb.id);
    if (!ca) return { id: cb.id, b: pick(cb), change: 'added' };
    const change = ca.passed === cb.passed ? 'same' : cb.passed ? 'improved' : 'regressed';
    return {
      id: cb.id,
      a: pick(ca),
      b: pick(cb),
      change,
      delta: {
        tokens: cb.usage.input_tokens + cb.usage.output_tokens - ca.usage.input_tokens - ca.usage.output_tokens,
        cost_usd: ca.cost_usd === null || cb.cost_usd === null ? null : cb.cost_usd - ca.cost_usd,
        duration_ms: cb.duration_ms - ca.duration_ms,
      },
    };
  });
  const bIds = new Set(b.cases.map((c) => c.id));
  for (const ca of a.cases) if (!bIds.has(ca.id)) cases.push({ id: ca.id, a: pick(ca), change: 'removed' });
  const count = (k: string) => cases.filter((c) => c.change === k).length;
  return { a: a.eval_id, b: b.eval_id, cases, improved: count('improved'), regressed: count('regressed'), same: count('same') };
}

export type { EvalCase };
