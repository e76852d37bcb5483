import { parseXML } from '@aws-sdk/xml-builder';
import { comparisonLines, evalTableLines, junitXml, progressBar, xmlEscape } from '../../../cli/eval-report';
import { compareEvals } from '../../../core/eval/results';
import { caseResult, evalResult } from './results-fixtures';

const failing = caseResult('q2', false, {
  checks: [
    { check: 'contains "Paris"', passed: true, detail: 'response contains "Paris"' },
    { check: 'max_steps 3', passed: false, detail: '4 steps > 3' },
    { check: 'judge "cites <the> source & says \'why\'"', passed: false, detail: 'no "source" given\u0007 at all' },
  ],
  steps: 4,
  usage: { input_tokens: 1000, output_tokens: 234, cost_usd: null },
  cost_usd: null,
  duration_ms: 2345,
});
const crashed = caseResult('q3', false, { status: 'failed', error: 'LLM call failed', checks: [{ check: 'max_steps 3', passed: true, detail: '1 step ≤ 3' }] });
const result = evalResult('eval-geo-1', [caseResult('q1', true), failing, crashed], { suite: 'geo <"capitals"> & co' });

describe('evalTableLines', () => {
  it('aligns one row per case with the first failing check and why, then the pass rate', () => {
    expect(evalTableLines(result)).toEqual([
      'case  result  steps  tokens  cost          duration  first failing check',
      'q1    PASS    2      120     $0.01         1.0 s',
      'q2    FAIL    4      1234    cost unknown  2.3 s     max_steps 3: 4 steps > 3',
      'q3    FAIL    2      120     $0.01         1.0 s     run failed: LLM call failed',
      'pass rate: 1/3 (33%)',
    ]);
  });
});

describe('comparisonLines', () => {
  it('lists each changed case with its deltas, then the summary', () => {
    const a = evalResult('eval-a', [caseResult('q1', false), caseResult('q2', true), caseResult('q3', true), caseResult('q4', true)]);
    const b = evalResult('eval-b', [
      caseResult('q1', true, { usage: { input_tokens: 150, output_tokens: 20, cost_usd: 0.02 }, cost_usd: 0.02, duration_ms: 2500 }),
      caseResult('q2', false, { usage: { input_tokens: 80, output_tokens: 20, cost_usd: null }, cost_usd: null, duration_ms: 500 }),
      caseResult('q3', true),
      caseResult('q5', true),
    ]);
    expect(comparisonLines(compareEvals(a, b))).toEqual([
      'A eval-a',
      'B eval-b',
      'improved\tq1\tFAIL → PASS\ttokens +50, cost +$0.01, duration +1.5 s',
      'regressed\tq2\tPASS → FAIL\ttokens -20, cost unknown, duration -0.5 s',
      'removed\tq4\tPASS → —\tonly in A',
      'added\tq5\t— → PASS\tonly in B',
      '1 improved, 1 regressed, 1 same, 1 added, 1 removed',
    ]);
    expect(comparisonLines(compareEvals(a, a)).slice(2)).toEqual(['no case changed', '0 improved, 0 regressed, 4 same']);
  });
});

describe('junitXml', () => {
  const xml = junitXml(result);
  type Node = Record<string, unknown> & { testcase: Array<Record<string, unknown>> };
  const suite = (parseXML(xml) as { testsuite: Node }).testsuite;

  it('parses back with the counts, the time and a testcase per case', () => {
    expect(suite).toMatchObject({ name: 'geo <"capitals"> & co', tests: '3', failures: '2', errors: '0', time: '12.500' });
    expect(suite.testcase.map((c) => [c.classname, c.name, c.time])).toEqual([
      ['geo <"capitals"> & co', 'q1', '1.000'],
      ['geo <"capitals"> & co', 'q2', '2.345'],
      ['geo <"capitals"> & co', 'q3', '1.000'],
    ]);
    expect(suite.testcase[0].failure).toBeUndefined();
    expect(suite.testcase[0]['system-out']).toBe('workflow: eval-1-q1');
  });

  it('gives a failed case its first failing check as the message and every failing check as the text, escaped', () => {
    expect(suite.testcase[1].failure).toEqual({
      message: 'max_steps 3: 4 steps > 3',
      type: 'EvalCheckFailed',
      '#text': 'max_steps 3: 4 steps > 3\njudge "cites <the> source & says \'why\'": no "source" given\uFFFD at all',
    });
    expect(suite.testcase[2].failure).toMatchObject({ message: 'run failed: LLM call failed', '#text': 'run failed: LLM call failed' });
    // XML 1.0 cannot hold control characters other than tab and line breaks, even escaped.
    expect(xml).not.toMatch(/[\0-\x08\x0B\x0C\x0E-\x1F]/);
  });

  it('escapes quotes, brackets, ampersands, line breaks in attributes and lone surrogates', () => {
    expect(xmlEscape(`a<b>&"c"'d'\n`, true)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;&#10;');
    expect(xmlEscape('x\u0000y\u001Fz\uD800 \uD83D\uDE00')).toBe('x\uFFFDy\uFFFDz\uFFFD \uD83D\uDE00');
    expect(xmlEscape('line\nbreak & <tag>')).toBe('line\nbreak &amp; &lt;tag&gt;');
  });

  it('sums the case durations while the eval has not ended', () => {
    const running = junitXml(evalResult('e', [caseResult('a', true), caseResult('b', true)], { ended_at: undefined, status: 'running' }));
    expect((parseXML(running) as { testsuite: { time: string } }).testsuite.time).toBe('2.000');
  });
});

describe('progressBar', () => {
  it('fills in proportion to what is done', () => {
    expect(progressBar(5, 10, 10)).toBe('[#####-----] 5/10');
    expect(progressBar(0, 3, 6)).toBe('[------] 0/3');
    expect(progressBar(3, 3, 6)).toBe('[######] 3/3');
    expect(progressBar(0, 0, 4)).toBe('[####] 0/0');
  });
});
