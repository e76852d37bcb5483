/**
 * Minimal stand-ins for cli/eval-report.ts (the eval table, comparison lines, JUnit XML and
 * progress bar) with its signatures, until it lands; removed then, with the imports pointed at it.
 */
import type { EvalComparison, EvalResult } from '../core/eval/types';
import { firstFailure } from '../core/eval/stand-in';
import { formatCost } from '../core/text';

export function evalTableLines(result: EvalResult): string[] {
  const rows = result.cases.map((c) => {
    const failed = firstFailure(c.checks);
    const verdict = c.passed ? 'pass' : `FAIL ${failed ? `${failed.check}: ${failed.detail}` : ''}`;
    return `${c.id}\t${verdict}\t${c.steps} steps\t${c.usage.input_tokens + c.usage.output_tokens} tokens\t${formatCost(c.cost_usd)}\t${c.duration_ms} ms`;
  });
  return [...rows, `pass rate ${(result.pass_rate * 100).toFixed(0)}% (${result.passed}/${result.cases.length})`];
}

export function comparisonLines(cmp: EvalComparison): string[] {
  return [...cmp.cases.map((c) => `${c.id}\t${c.change}`), `${cmp.improved} improved, ${cmp.regressed} regressed, ${cmp.same} same`];
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function junitXml(result: EvalResult): string {
  const cases = result.cases.map((c) => {
    const failed = firstFailure(c.checks);
    const body = c.passed ? '' : `<failure message="${xml(failed ? `${failed.check}: ${failed.detail}` : 'failed')}"/>`;
    return `  <testcase classname="${xml(result.suite)}" name="${xml(c.id)}" time="${c.duration_ms / 1000}">${body}</testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${xml(result.suite)}" tests="${result.cases.length}" failures="${result.failed}">\n${cases.join('\n')}\n</testsuite>\n`;
}

export function progressBar(done: number, total: number, width: number): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
}
