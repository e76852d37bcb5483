import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalSuiteError, MAX_SUITE_CASES, parseSuite } from '../../../core/eval/suite';

const suite = (cases: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'geo', ...extra, cases });
const one = (checks: unknown[], extra: Record<string, unknown> = {}) => suite([{ id: 'q1', question: 'Capital of France?', checks, ...extra }]);

/** The one-line message parseSuite throws for `json`. */
function problem(json: unknown): string {
  try {
    parseSuite(json, 'suite.json');
  } catch (e) {
    expect(e).toBeInstanceOf(EvalSuiteError);
    const message = (e as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('the suite was accepted');
}

describe('parseSuite', () => {
  it('accepts a suite with every check kind, case parameters and a reference', () => {
    const checks = [
      { contains: 'Paris' },
      { not_contains: 'Lyon' },
      { regex: '^paris', flags: 'i' },
      { equals: 'Paris' },
      { json_path: '$.city', equals: { name: 'Paris' } },
      { tool_called: 'search' },
      { tool_not_called: 'delete' },
      { max_steps: 3 },
      { max_tokens: 2000 },
      { max_cost_usd: 0.05 },
      { max_duration_ms: 60000 },
      { output_valid: true },
      { tripped: true },
      { tripped: false },
      { judge: 'names the capital' },
      { judge: 'is polite', llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini' } },
    ];
    const parsed = parseSuite(one(checks, { params: { max_steps: 4 }, reference: 'Paris.' }), 'suite.json');
    expect(parsed.cases[0].checks).toEqual(checks);
    expect(parsed.cases[0].reference).toBe('Paris.');
    expect(parsed.cases[0].params).toEqual({ max_steps: 4 });
    expect(parseSuite(suite([{ id: 'a', question: 'q', checks: [{ contains: 'x' }] }], { agent: 'agent.json', params: { x: 1 } }), 's').agent).toBe('agent.json');
  });

  it('names the file and the check path when a check has no known kind', () => {
    const cases: unknown[] = [1, 2].map((i) => ({ id: `q${i}`, question: 'q', checks: [{ contains: 'x' }] }));
    expect(problem(suite([...cases, { id: 'q3', question: 'q', checks: [{ contain: 'x' }] }])))
      .toBe('suite.json: cases[2].checks[0]: a check has exactly one of contains, not_contains, regex, not_regex, equals, json_path (with equals), tool_called, tool_not_called, max_steps, max_tokens, max_cost_usd, max_duration_ms, output_valid, tripped, judge (got "contain")');
    expect(problem(one([{ contains: 'a', regex: 'b' }]))).toContain('cases[0].checks[0]: a check has exactly one of contains');
    expect(problem(one([{ contains: 'a', regex: 'b' }]))).toContain('(got "contains", "regex")');
    expect(problem(one([{}]))).toContain('(got an empty object)');
    expect(problem(one(['contains Paris']))).toBe('suite.json: cases[0].checks[0]: expected a check object, e.g. {"contains": "Paris"}');
  });

  it('names a case id used twice and where it was first', () => {
    const c = (id: string) => ({ id, question: 'q', checks: [{ contains: 'x' }] });
    expect(problem(suite([c('q1'), c('q2'), c('q3'), c('q1')]))).toBe('suite.json: cases[3].id: "q1" is used by cases[0] too');
  });

  it('rejects an invalid regular expression and bad flags', () => {
    expect(problem(one([{ regex: '(' }]))).toBe('suite.json: cases[0].checks[0].regex: invalid regular expression: missing closing ): `(` (regex checks use RE2 syntax: no lookaround or backreferences)');
    expect(problem(one([{ regex: 'a', flags: 'q' }]))).toBe('suite.json: cases[0].checks[0].flags: invalid RegExp flags "q" (supported: i, m, s; g, u and d change nothing)');
    // Lookaround and backreferences need backtracking: refused, naming the syntax checks use.
    for (const regex of ['(?=a)b', '(a)\\1', '(?<!a)b']) expect(problem(one([{ regex }]))).toMatch(/\.regex: invalid regular expression: .*\(regex checks use RE2 syntax: no lookaround or backreferences\)$/);
  });

  it('wants positive integers for step, token and duration limits, and non-negative dollars', () => {
    expect(problem(one([{ contains: 'x' }, { max_steps: 0 }]))).toBe('suite.json: cases[0].checks[1].max_steps: expected a positive integer');
    expect(problem(one([{ max_tokens: 1.5 }]))).toBe('suite.json: cases[0].checks[0].max_tokens: expected a positive integer');
    expect(problem(one([{ max_duration_ms: '100' }]))).toBe('suite.json: cases[0].checks[0].max_duration_ms: expected a positive integer');
    expect(problem(one([{ max_cost_usd: -1 }]))).toBe('suite.json: cases[0].checks[0].max_cost_usd: expected a non-negative number of US dollars');
  });

  it('wants json_path with a value to compare and a path starting with $', () => {
    expect(problem(one([{ json_path: '$.a' }]))).toBe('suite.json: cases[0].checks[0].equals: is required with json_path (the value expected there)');
    expect(problem(one([{ json_path: 'a', equals: 1 }]))).toBe('suite.json: cases[0].checks[0].json_path: expected a JSONPath starting with "$"');
    expect(parseSuite(one([{ json_path: '$.a', equals: null }]), 's').cases[0].checks).toEqual([{ json_path: '$.a', equals: null }]);
  });

  it('wants output_valid true and tripped a boolean', () => {
    expect(problem(one([{ output_valid: false }]))).toBe("suite.json: cases[0].checks[0].output_valid: expected true (the check passes when the answer conforms to the agent's output_schema)");
    expect(problem(one([{ tripped: 'yes' }]))).toBe('suite.json: cases[0].checks[0].tripped: expected true (a guardrail stopped the run) or false (none did)');
    expect(problem(one([{ output_valid: true, schema: {} }]))).toBe('suite.json: cases[0].checks[0].schema: unknown field in a output_valid check');
  });

  it("validates a judge's llm block with the agent file's model schema", () => {
    expect(problem(one([{ judge: 'ok', llm: { interface: 'openai/v1/chat/completions' } }]))).toBe(
      'suite.json: cases[0].checks[0].llm.model: is required for interface "openai/v1/chat/completions"',
    );
    expect(problem(one([{ judge: '' }]))).toBe('suite.json: cases[0].checks[0].judge: expected the criteria the response is graded against');
  });

  it('rejects unknown fields in the suite, a case and a check', () => {
    expect(problem({ ...one([{ contains: 'x', ignore_case: true }], { tags: [] }), version: 2 })).toBe(
      'suite.json: cases[0].checks[0].ignore_case: unknown field in a contains check; cases[0].tags: unknown field; version: unknown field',
    );
  });

  it('says which case ids can be used in a workflow ID', () => {
    expect(problem(suite([{ id: 'capital of France', question: 'q', checks: [{ contains: 'x' }] }]))).toBe(
      'suite.json: cases[0].id: expected letters, digits, "-", "_" or "." only (the id becomes part of a workflow ID)',
    );
    expect(problem(suite([{ id: '', question: 'q', checks: [{ contains: 'x' }] }]))).toBe(
      'suite.json: cases[0].id: expected letters, digits, "-", "_" or "." only (the id becomes part of a workflow ID)',
    );
  });

  it('wants a name, between one and a thousand cases, and checks in each', () => {
    expect(problem({ cases: [] })).toBe('suite.json: name: is required; cases: expected at least one case');
    expect(problem(one([]))).toBe('suite.json: cases[0].checks: expected at least one check');
    expect(problem(suite([{ id: 'a', checks: [{ contains: 'x' }] }]))).toBe('suite.json: cases[0].question: is required');
    const many = Array.from({ length: MAX_SUITE_CASES + 1 }, (_, i) => ({ id: `c${i}`, question: 'q', checks: [{ contains: 'x' }] }));
    expect(problem(suite(many))).toBe('suite.json: cases: expected at most 1000 cases (one eval is one workflow; split the suite)');
    expect(problem([])).toBe('suite.json: expected a suite object {"name", "cases": [...]}');
  });
});

describe('the suite documentation (docs/evals.md)', () => {
  it('shows a suite that parses', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/evals.md'), 'utf8');
    const example = /## Suite files[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(parseSuite(JSON.parse(example ?? 'null'), 'docs/evals.md').cases.map((c) => c.id)).toEqual(['capital-fr', 'population-json']);
  });
});
