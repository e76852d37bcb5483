/** The CLI's views of evals: the result table, a comparison, JUnit XML for CI, and a progress bar. */
import { firstFailure } from '../core/eval/checks';
import type { CaseComparison, CaseResult, EvalComparison, EvalResult } from '../core/eval/types';
import { clip, formatCost, formatSeconds } from '../core/text';

/** Rows as aligned columns (two spaces apart; the last column is not padded). */
export function alignRows(rows: readonly string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd());
}

const tokensOf = (c: Pick<CaseResult, 'usage'>) => c.usage.input_tokens + c.usage.output_tokens;

/** Why a case failed, one line: its first failing check and why, or how its run ended. */
export function caseFailure(c: CaseResult): string {
  const first = firstFailure(c.checks);
  if (first) return `${first.check}: ${first.detail}`;
  return c.status === 'completed' ? '' : `run ${c.status}${c.error ? `: ${c.error}` : ''}`;
}

/** `pass rate: 9/10 (90%)`. */
export const passRateLine = (r: Pick<EvalResult, 'passed' | 'cases' | 'pass_rate'>) =>
  `pass rate: ${r.passed}/${r.cases.length} (${Math.round(r.pass_rate * 100)}%)`;

/** `perflow eval`: one row per case (the first failing check and why last, as it is the widest), then the pass rate. */
export function evalTableLines(result: EvalResult): string[] {
  const rows = [
    ['case', 'result', 'steps', 'tokens', 'cost', 'duration', 'first failing check'],
    ...result.cases.map((c) => [
      c.id,
      c.passed ? 'PASS' : 'FAIL',
      String(c.steps),
      String(tokensOf(c)),
      formatCost(c.cost_usd),
      formatSeconds(c.duration_ms),
      c.passed ? '' : clip(caseFailure(c), 120),
    ]),
  ];
  return [...alignRows(rows), passRateLine(result)];
}

const signed = (n: number, text: string) => (n > 0 ? `+${text}` : n < 0 ? `-${text}` : text);
const passFail = (s?: CaseComparison['a']) => (s === undefined ? '—' : s.passed ? 'PASS' : 'FAIL');

/** The summary line of a comparison: `2 improved, 1 regressed, 7 same` (and added / removed when any). */
export function comparisonSummary(cmp: EvalComparison): string {
  const parts = [`${cmp.improved} improved`, `${cmp.regressed} regressed`, `${cmp.same} same`];
  if (cmp.added) parts.push(`${cmp.added} added`);
  if (cmp.removed) parts.push(`${cmp.removed} removed`);
  return parts.join(', ');
}

/** One case of a comparison: its change, pass/fail in A → B, and B − A in tokens, cost and duration. */
export function comparisonCaseLine(c: CaseComparison): string {
  const deltas = c.delta
    ? [
        `tokens ${signed(c.delta.tokens, String(Math.abs(c.delta.tokens)))}`,
        c.delta.cost_usd === null ? 'cost unknown' : `cost ${signed(c.delta.cost_usd, formatCost(Math.abs(c.delta.cost_usd)))}`,
        `duration ${signed(c.delta.duration_ms, formatSeconds(Math.abs(c.delta.duration_ms)))}`,
      ].join(', ')
    : c.change === 'added'
      ? 'only in B'
      : 'only in A';
  return `${c.change}\t${c.id}\t${passFail(c.a)} → ${passFail(c.b)}\t${deltas}`;
}

/** `perflow eval compare A B`: the evals, one line per case that changed, then the summary. */
export function comparisonLines(cmp: EvalComparison): string[] {
  const changed = cmp.cases.filter((c) => c.change !== 'same');
  const f = cmp.fingerprints;
  const fingerprints = f ? [f.same ? `both ran fingerprint ${f.a.join(', ')}` : `fingerprints differ: A ${f.a.join(', ')} | B ${f.b.join(', ')}`] : [];
  return [`A ${cmp.a}`, `B ${cmp.b}`, ...fingerprints, ...(changed.length === 0 ? ['no case changed'] : changed.map(comparisonCaseLine)), comparisonSummary(cmp)];
}

/** `[#####-----] 5/10`: one line for a terminal. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total <= 0 ? width : Math.min(width, Math.max(0, Math.round((width * done) / total)));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
}

// ---------------------------------------------------------------------------------------------
// JUnit XML

/**
 * Text safe in XML 1.0: the five special characters escaped, and characters XML cannot hold
 * (control characters other than tab and line breaks, lone surrogates) replaced by U+FFFD.
 */
export function xmlEscape(s: string, attribute = false): string {
  const safe = s.replace(/[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  const escaped = safe.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  // In attributes, quotes end the value and a raw line break would be read back as a space.
  return attribute ? escaped.replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;') : escaped;
}

const attr = (s: string) => `"${xmlEscape(s, true)}"`;
const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * The eval as JUnit XML: one `<testsuite>` named after the suite, one `<testcase>` per case
 * (classname the suite, name the case id, time its run's), a failed case with a `<failure>`
 * whose message is its first failing check and whose text lists every failing one. The
 * suite's time is the eval's wall-clock time when it has ended, else the sum of its cases'.
 */
export function junitXml(result: EvalResult): string {
  const wall = result.ended_at ? Date.parse(result.ended_at) - Date.parse(result.started_at) : NaN;
  const total = Number.isFinite(wall) ? wall : result.cases.reduce((sum, c) => sum + c.duration_ms, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name=${attr(result.suite)} tests="${result.cases.length}" failures="${result.failed}" errors="0" skipped="0" time="${seconds(total)}" timestamp=${attr(result.started_at)}>`,
    `  <properties><property name="eval_id" value=${attr(result.eval_id)}/><property name="agent" value=${attr(result.agent)}/></properties>`,
  ];
  for (const c of result.cases) {
    lines.push(`  <testcase classname=${attr(result.suite)} name=${attr(c.id)} time="${seconds(c.duration_ms)}">`);
    if (!c.passed) {
      const failing = c.checks.filter((k) => !k.passed).map((k) => `${k.check}: ${k.detail}`);
      const body = failing.length > 0 ? failing : [caseFailure(c)];
      lines.push(`    <failure message=${attr(caseFailure(c))} type="EvalCheckFailed">${xmlEscape(body.join('\n'))}</failure>`);
    }
    lines.push(`    <system-out>${xmlEscape(`workflow: ${c.workflow_id}`)}</system-out>`, '  </testcase>');
  }
  lines.push('</testsuite>');
  return `${lines.join('\n')}\n`;
}
