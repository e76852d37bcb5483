/** An eval's tally, and two evals compared case by case. Pure module. */
import type { CaseComparison, CaseResult, EvalComparison, EvalResult } from './types';

/** Passed and failed cases and the pass rate (passed / cases; 0 for no cases). */
export function tallyEval(cases: readonly Pick<CaseResult, 'passed'>[]): Pick<EvalResult, 'passed' | 'failed' | 'pass_rate'> {
  const passed = cases.filter((c) => c.passed).length;
  return { passed, failed: cases.length - passed, pass_rate: cases.length === 0 ? 0 : passed / cases.length };
}

const side = (c: CaseResult): NonNullable<CaseComparison['a']> => ({
  passed: c.passed,
  workflow_id: c.workflow_id,
  usage: c.usage,
  cost_usd: c.cost_usd,
  duration_ms: c.duration_ms,
  steps: c.steps,
});

const tokens = (c: CaseResult) => c.usage.input_tokens + c.usage.output_tokens;

/**
 * Eval B against eval A, per case id (A's order, then cases only B has): `improved` (failed in
 * A, passed in B), `regressed` (the reverse), `same` (both passed or both failed), `added` /
 * `removed` (only in B / only in A). Deltas are B − A; the cost delta is null when either cost
 * is unknown.
 */
export function compareEvals(a: EvalResult, b: EvalResult): EvalComparison {
  const inB = new Map(b.cases.map((c) => [c.id, c]));
  const inA = new Set(a.cases.map((c) => c.id));
  const cases: CaseComparison[] = a.cases.map((ca) => {
    const cb = inB.get(ca.id);
    if (cb === undefined) return { id: ca.id, a: side(ca), change: 'removed' };
    const change = ca.passed === cb.passed ? 'same' : cb.passed ? 'improved' : 'regressed';
    // Rounded to a nanodollar: the difference of two float sums would show 0.019999999999999997.
    const cost = ca.cost_usd === null || cb.cost_usd === null ? null : Math.round((cb.cost_usd - ca.cost_usd) * 1e9) / 1e9;
    return {
      id: ca.id,
      a: side(ca),
      b: side(cb),
      change,
      delta: { tokens: tokens(cb) - tokens(ca), cost_usd: cost, duration_ms: cb.duration_ms - ca.duration_ms },
    };
  });
  for (const cb of b.cases) if (!inA.has(cb.id)) cases.push({ id: cb.id, b: side(cb), change: 'added' });
  const count = (change: CaseComparison['change']) => cases.filter((c) => c.change === change).length;
  return {
    a: a.eval_id,
    b: b.eval_id,
    cases,
    improved: count('improved'),
    regressed: count('regressed'),
    same: count('same'),
    added: count('added'),
    removed: count('removed'),
    ...fingerprintsOf(a, b),
  };
}

/** The fingerprints of both evals' case runs, when both recorded them. */
function fingerprintsOf(a: EvalResult, b: EvalResult): Pick<EvalComparison, 'fingerprints'> {
  const of = (e: EvalResult) => [...new Set(e.cases.flatMap((c) => (c.fingerprint !== undefined ? [c.fingerprint] : [])))].sort();
  const [fa, fb] = [of(a), of(b)];
  if (fa.length === 0 || fb.length === 0) return {};
  return { fingerprints: { a: fa, b: fb, same: fa.join() === fb.join() } };
}
