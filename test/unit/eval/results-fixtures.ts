/** Case and eval results for the eval tests. */
import { tallyEval } from '../../../core/eval/results';
import type { CaseResult, EvalResult } from '../../../core/eval/types';

export const caseResult = (id: string, passed: boolean, over: Partial<CaseResult> = {}): CaseResult => ({
  id,
  workflow_id: `eval-1-${id}`,
  status: 'completed',
  passed,
  checks: passed ? [{ check: 'contains "Paris"', passed: true, detail: 'response contains "Paris"' }] : [{ check: 'contains "Paris"', passed: false, detail: 'response has no "Paris"' }],
  usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.01 },
  cost_usd: 0.01,
  duration_ms: 1000,
  steps: 2,
  ...over,
});

export const evalResult = (evalId: string, cases: CaseResult[], over: Partial<EvalResult> = {}): EvalResult => ({
  eval_id: evalId,
  suite: 'geo',
  agent: 'geo-agent',
  status: 'completed',
  started_at: '2026-11-24T08:00:00.000Z',
  ended_at: '2026-11-24T08:00:12.500Z',
  ...tallyEval(cases),
  cases,
  ...over,
});
