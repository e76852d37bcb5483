import { compareEvals, tallyEval } from '../../../core/eval/results';
import { caseResult, evalResult } from './results-fixtures';

describe('tallyEval', () => {
  it('counts passed and failed cases and the pass rate', () => {
    expect(tallyEval([caseResult('a', true), caseResult('b', false), caseResult('c', true), caseResult('d', true)])).toEqual({ passed: 3, failed: 1, pass_rate: 0.75 });
    expect(tallyEval([])).toEqual({ passed: 0, failed: 0, pass_rate: 0 });
  });
});

describe('compareEvals', () => {
  const a = evalResult('eval-a', [
    caseResult('fixed', false),
    caseResult('broken', true),
    caseResult('stable', true, { usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.01 }, cost_usd: 0.01, duration_ms: 1000 }),
    caseResult('unpriced', false, { cost_usd: null }),
    caseResult('dropped', true),
  ]);
  const b = evalResult('eval-b', [
    caseResult('new', true),
    caseResult('stable', true, { usage: { input_tokens: 150, output_tokens: 30, cost_usd: 0.03 }, cost_usd: 0.03, duration_ms: 700 }),
    caseResult('broken', false),
    caseResult('fixed', true),
    caseResult('unpriced', false),
  ]);
  const cmp = compareEvals(a, b);

  it("calls each case improved, regressed, same, added or removed, in A's order then B's new cases", () => {
    expect(cmp.cases.map((c) => [c.id, c.change])).toEqual([
      ['fixed', 'improved'],
      ['broken', 'regressed'],
      ['stable', 'same'],
      ['unpriced', 'same'],
      ['dropped', 'removed'],
      ['new', 'added'],
    ]);
    expect(cmp).toMatchObject({ a: 'eval-a', b: 'eval-b', improved: 1, regressed: 1, same: 2, added: 1, removed: 1 });
  });

  it('gives B − A in tokens, dollars and milliseconds, and no cost delta when a cost is unknown', () => {
    const byId = new Map(cmp.cases.map((c) => [c.id, c]));
    expect(byId.get('stable')?.delta).toEqual({ tokens: 60, cost_usd: 0.02, duration_ms: -300 });
    expect(byId.get('unpriced')?.delta).toEqual({ tokens: 0, cost_usd: null, duration_ms: 0 });
    expect(byId.get('stable')?.a).toEqual({ passed: true, workflow_id: 'eval-1-stable', usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.01 }, cost_usd: 0.01, duration_ms: 1000, steps: 2 });
    expect(byId.get('dropped')).toEqual({ id: 'dropped', a: expect.objectContaining({ passed: true }), change: 'removed' });
    expect(byId.get('new')?.a).toBeUndefined();
    expect(byId.get('new')?.delta).toBeUndefined();
  });
});
