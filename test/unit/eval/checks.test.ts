import { casePassed, checkLabel, firstFailure, judgeRequest, JudgeVerdictError, parseJudgeVerdict, scoreCase, tripReason, type JudgeFn } from '../../../core/eval/checks';
import type { CaseObservation, EvalCheck } from '../../../core/eval/types';

const obs = (over: Partial<CaseObservation> = {}): CaseObservation => ({
  status: 'completed',
  response: 'The capital of France is Paris.',
  tools_called: ['SearchCollectionTool', 'calculator', 'SearchCollectionTool'],
  steps: 4,
  usage: { input_tokens: 1000, output_tokens: 234, cost_usd: 0.0123 },
  duration_ms: 1500,
  ...over,
});

/** A judge that passes when the response holds its criteria word, recording what it was asked. */
function fakeJudge(): JudgeFn & { asked: string[] } {
  const asked: string[] = [];
  const judge = (async (check, o) => {
    asked.push(check.judge);
    if (check.judge === 'explode') throw new Error('model unreachable');
    if (check.judge === 'mumble') return parseJudgeVerdict('I would rather not say.');
    const passed = o.response.includes(check.judge);
    return { passed, reason: passed ? `mentions ${check.judge}` : `does not mention ${check.judge}` };
  }) as JudgeFn & { asked: string[] };
  judge.asked = asked;
  return judge;
}

async function score(check: EvalCheck, o: CaseObservation = obs()) {
  const [r] = await scoreCase([check], o, fakeJudge());
  return r;
}

describe('scoreCase: each check kind passes and fails with a one-line reason', () => {
  it.each<[EvalCheck, string, EvalCheck, string]>([
    [{ contains: 'Paris' }, 'response contains "Paris"', { contains: 'Lyon' }, 'response has no "Lyon"'],
    [{ not_contains: 'Lyon' }, 'response has no "Lyon"', { not_contains: 'Paris' }, 'response contains "Paris"'],
    [{ regex: 'capital .* (Paris|Rome)' }, 'response matches at "capital of France is Paris"', { regex: '^paris' }, 'response does not match /^paris/'],
    [{ not_regex: '\\bLyon\\b', flags: 'i' }, 'response does not match /\\bLyon\\b/i', { not_regex: 'paris', flags: 'i' }, 'response matches at "Paris"'],
    [{ equals: '  The capital of France is Paris.\n' }, 'response equals "The capital of France is Paris."', { equals: 'Paris' }, 'response is "The capital of France is Paris.", not "Paris"'],
    [{ tool_called: 'SearchCollectionTool' }, 'SearchCollectionTool was called 2 times', { tool_called: 'web' }, 'web was not called (called: SearchCollectionTool, calculator)'],
    [{ tool_not_called: 'web' }, 'web was not called', { tool_not_called: 'calculator' }, 'calculator was called 1 time'],
    [{ max_steps: 4 }, '4 steps ≤ 4', { max_steps: 3 }, '4 steps > 3'],
    [{ max_tokens: 2000 }, 'tokens 1234 ≤ 2000', { max_tokens: 1000 }, 'tokens 1234 > 1000'],
    [{ max_cost_usd: 0.05 }, 'cost $0.0123 ≤ $0.05', { max_cost_usd: 0.01 }, 'cost $0.0123 > $0.01'],
    [{ max_duration_ms: 2000 }, 'duration 1500 ms ≤ 2000 ms', { max_duration_ms: 1000 }, 'duration 1500 ms > 1000 ms'],
    [{ judge: 'Paris' }, 'mentions Paris', { judge: 'Lyon' }, 'does not mention Lyon'],
  ])('%j', async (pass, passDetail, fail, failDetail) => {
    expect(await score(pass)).toEqual({ check: checkLabel(pass), passed: true, detail: passDetail });
    expect(await score(fail)).toEqual({ check: checkLabel(fail), passed: false, detail: failDetail });
  });

  it('regex runs in linear time: a catastrophic pattern on a long answer answers at once, as a backtracking engine would not', async () => {
    // JavaScript's RegExp takes exponential time on this (it would stall the worker that scores it).
    const long = await score({ regex: '^(a+)+$' }, obs({ response: `${'a'.repeat(100_000)}!` }));
    expect(long.passed).toBe(false);
    expect((await score({ regex: '(x+x+)+y' }, obs({ response: `${'x'.repeat(50_000)}y` }))).passed).toBe(true);
  });

  it('regex honours its flags', async () => {
    expect((await score({ regex: 'PARIS', flags: 'i' })).passed).toBe(true);
    expect((await score({ regex: 'PARIS' })).passed).toBe(false);
    expect((await score({ regex: '^second$', flags: 'm' }, obs({ response: 'first\nsecond' }))).passed).toBe(true);
    expect((await score({ regex: 'a.b', flags: 's' }, obs({ response: 'a\nb' }))).passed).toBe(true);
    expect((await score({ regex: 'a.b' }, obs({ response: 'a\nb' }))).passed).toBe(false);
  });

  it('json_path reads the whole response or the JSON in it, and compares deeply', async () => {
    const json = obs({ response: 'Here it is:\n```json\n{"city": {"name": "Paris", "tags": ["capital", 1]}, "n": [1, 2]}\n```' });
    expect(await score({ json_path: '$.city', equals: { tags: ['capital', 1], name: 'Paris' } }, json)).toMatchObject({
      passed: true,
      detail: '$.city is {"name":"Paris","tags":["capital",1]}',
    });
    expect(await score({ json_path: '$.n[*]', equals: [1, 2] }, json)).toMatchObject({ passed: true });
    expect(await score({ json_path: '$.city.name', equals: 'Lyon' }, json)).toMatchObject({ passed: false, detail: '$.city.name is "Paris", not "Lyon"' });
    expect(await score({ json_path: '$.city.zip', equals: 75000 }, json)).toMatchObject({ passed: false, detail: '$.city.zip matches nothing in the response' });
    expect(await score({ json_path: '$.a', equals: 1 }, obs({ response: '{"a": 1}' }))).toMatchObject({ passed: true, detail: '$.a is 1' });
    expect(await score({ json_path: '$.a', equals: [1, 2] }, obs({ response: 'Result: {"a": [1, 2]} as asked.' }))).toMatchObject({ passed: true, detail: '$.a is [1,2]' });
    expect(await score({ json_path: '$[1].b', equals: true }, obs({ response: 'Rows: [{"b": false}, {"b": true}]' }))).toMatchObject({ passed: true });
    const noJson = await score({ json_path: '$.a', equals: 1 });
    expect(noJson.passed).toBe(false);
    expect(noJson.detail).toMatch(/^response is not valid JSON/);
  });

  it('json_path reads the typed output when the run has one, not the response text', async () => {
    const typed = obs({ response: 'not JSON at all', output: { city: 'Paris', tags: ['capital'] } });
    expect(await score({ json_path: '$.city', equals: 'Paris' }, typed)).toMatchObject({ passed: true, detail: '$.city is "Paris"' });
    expect(await score({ json_path: '$.tags[0]', equals: 'capital' }, typed)).toMatchObject({ passed: true });
    expect(await score({ json_path: '$.zip', equals: 75000 }, typed)).toMatchObject({ passed: false, detail: '$.zip matches nothing in the output' });
    // The output wins over JSON in the response that says otherwise.
    expect(await score({ json_path: '$.city', equals: 'Lyon' }, obs({ response: '{"city": "Lyon"}', output: { city: 'Paris' } }))).toMatchObject({ passed: false, detail: '$.city is "Paris", not "Lyon"' });
    expect(await score({ json_path: '$', equals: null }, obs({ response: 'null?', output: null }))).toMatchObject({ passed: true, detail: '$ is null' });
  });

  it('output_valid validates the typed output against the agent\'s output_schema, failing with the first problem', async () => {
    const output_schema = { type: 'object', properties: { priority: { enum: ['low', 'urgent'] }, team: { type: 'string' } }, required: ['priority'] };
    const check: EvalCheck = { output_valid: true };
    expect(await score(check, obs({ output: { priority: 'low', team: 'ops' }, output_schema }))).toEqual({ check: 'output_valid true', passed: true, detail: 'output conforms to output_schema' });
    expect(await score(check, obs({ output: { priority: 'high', team: 7 }, output_schema }))).toEqual({
      check: 'output_valid true',
      passed: false,
      detail: 'output does not conform to output_schema: /priority: must be equal to one of the allowed values (["low","urgent"])',
    });
    expect(await score(check, obs({ output: { priority: 'low' } }))).toMatchObject({ passed: false, detail: 'the agent has no output_schema' });
    expect(await score(check, obs({ output_schema }))).toMatchObject({ passed: false, detail: 'the run gave no typed output' });
    expect(await score(check, obs({ status: 'failed', response: '', error: 'Output.Invalid', output_schema }))).toMatchObject({ passed: false, detail: 'run failed: Output.Invalid' });
  });

  it('tripped says whether a guardrail stopped the run; a tripped run fails its response checks with the reason', async () => {
    const stop = { place: 'input' as const, check: 'not_contains "password"', detail: 'response contains "password"' };
    const tripped = obs({ status: 'tripped', response: 'Stopped by the input guardrail', tripped: stop, steps: 0 });
    const checks: EvalCheck[] = [{ tripped: true }, { tripped: false }, { contains: 'Stopped' }, { output_valid: true }, { max_steps: 3 }];
    const results = await scoreCase(checks, tripped, fakeJudge());
    const stopped = 'the input guardrail not_contains "password" stopped the run: response contains "password"';
    const reason = 'run tripped: input guardrail not_contains "password": response contains "password"';
    expect(results).toEqual([
      { check: 'tripped true', passed: true, detail: stopped },
      { check: 'tripped false', passed: false, detail: stopped },
      { check: 'contains "Stopped"', passed: false, detail: reason },
      { check: 'output_valid true', passed: false, detail: reason },
      { check: 'max_steps 3', passed: true, detail: '0 steps ≤ 3' },
    ]);
    expect(tripReason(stop)).toBe(reason.replace('run tripped: ', ''));
    // A tripped run passes its case only when the case expects it, and every check passed.
    const expecting: EvalCheck[] = [{ tripped: true }, { max_steps: 3 }];
    expect(casePassed(tripped, [results[0], results[4]], expecting)).toBe(true);
    expect(casePassed(tripped, [results[4]], [{ max_steps: 3 }])).toBe(false);
    expect(casePassed(tripped, results, checks)).toBe(false);
    expect(casePassed(obs({ status: 'failed' }), [results[4]], [{ tripped: true }])).toBe(false);

    const untripped = await scoreCase([{ tripped: false }, { tripped: true }], obs(), fakeJudge());
    expect(untripped.map((r) => [r.passed, r.detail])).toEqual([
      [true, 'no guardrail stopped the run'],
      [false, 'no guardrail stopped the run'],
    ]);
  });

  it('fails max_cost_usd when the cost is unknown', async () => {
    expect(await score({ max_cost_usd: 100 }, obs({ usage: { input_tokens: 1, output_tokens: 1, cost_usd: null } }))).toMatchObject({
      passed: false,
      detail: 'cost unknown (a model has no price)',
    });
    expect((await score({ max_cost_usd: 100 }, obs({ usage: { input_tokens: 1, output_tokens: 1 } }))).passed).toBe(false);
  });

  it('scores every check, not only up to the first failure, and names the first failure', async () => {
    const checks: EvalCheck[] = [{ contains: 'Paris' }, { max_steps: 1 }, { contains: 'Lyon' }, { max_tokens: 5000 }];
    const results = await scoreCase(checks, obs(), fakeJudge());
    expect(results.map((r) => r.passed)).toEqual([true, false, false, true]);
    expect(firstFailure(results)).toEqual({ check: 'max_steps 1', passed: false, detail: '4 steps > 1' });
    expect(firstFailure(results.filter((r) => r.passed))).toBeUndefined();
    expect(casePassed(obs(), results)).toBe(false);
    expect(casePassed(obs(), results.filter((r) => r.passed))).toBe(true);
  });

  it("fails every response check of a run that did not complete with its error, and does not ask the judge", async () => {
    const failed = obs({ status: 'failed', response: '', error: 'LLM call failed: 401 Unauthorized', steps: 1 });
    const judge = fakeJudge();
    const checks: EvalCheck[] = [{ not_contains: 'Lyon' }, { json_path: '$.a', equals: 1 }, { judge: 'Paris' }, { max_steps: 3 }, { tool_not_called: 'web' }];
    const results = await scoreCase(checks, failed, judge);
    expect(results.slice(0, 3).map((r) => [r.passed, r.detail])).toEqual(Array(3).fill([false, 'run failed: LLM call failed: 401 Unauthorized']));
    expect(results.slice(3).map((r) => r.passed)).toEqual([true, true]);
    expect(judge.asked).toEqual([]);
    expect(casePassed(failed, results.slice(3))).toBe(false);
  });

  it('fails a judge check whose model gave no verdict, keeping the other results', async () => {
    const results = await scoreCase([{ judge: 'mumble' }, { contains: 'Paris' }], obs(), fakeJudge());
    expect(results).toEqual([
      {
        check: 'judge "mumble"',
        passed: false,
        detail: 'the judge gave no verdict (expected {"pass": true|false, "reason": "one line"}): judge answer contains no JSON object: "I would rather not say."',
      },
      { check: 'contains "Paris"', passed: true, detail: 'response contains "Paris"' },
    ]);
  });

  it("throws a judge's failed model call, so the caller's retries try again", async () => {
    await expect(scoreCase([{ contains: 'Paris' }, { judge: 'explode' }], obs(), fakeJudge())).rejects.toThrow('model unreachable');
  });
});

describe('checkLabel', () => {
  it('writes each check as one line', () => {
    expect(checkLabel({ contains: 'Paris' })).toBe('contains "Paris"');
    expect(checkLabel({ max_steps: 3 })).toBe('max_steps 3');
    expect(checkLabel({ judge: 'cites the source', llm: { interface: 'scripted', script: { planner: [], executor: [] } } })).toBe('judge "cites the source"');
    expect(checkLabel({ regex: 'a+b', flags: 'i' })).toBe('regex /a+b/i');
    expect(checkLabel({ json_path: '$.a', equals: { b: [1] } })).toBe('json_path $.a equals {"b":[1]}');
    expect(checkLabel({ contains: 'two\nlines' })).toBe('contains "two lines"');
    expect(checkLabel({ output_valid: true })).toBe('output_valid true');
    expect(checkLabel({ tripped: false })).toBe('tripped false');
  });
});

describe('the judge', () => {
  it('asks for a JSON verdict on the question, the response, the criteria and the reference', () => {
    const { system, prompt } = judgeRequest({ criteria: 'agrees with the reference answer', question: 'Capital?', response: 'Paris', reference: 'It is Paris.' });
    expect(system).toContain('{"pass": true or false, "reason": "one line saying why"}');
    for (const part of ['Question:\nCapital?', 'Response to grade:\nParis', 'Criteria:\nagrees with the reference answer', 'Reference answer (recorded earlier, taken as correct):\nIt is Paris.']) {
      expect(prompt).toContain(part);
    }
    expect(judgeRequest({ criteria: 'c', question: 'q', response: 'r' }).prompt).not.toContain('Reference answer');
  });

  it('reads a verdict with prose or fences around it', () => {
    expect(parseJudgeVerdict('{"pass": true, "reason": "names Paris"}')).toEqual({ passed: true, reason: 'names Paris' });
    expect(parseJudgeVerdict('Sure.\n```json\n{"pass": false, "reason": "says Lyon,\\nnot Paris"}\n```\nDone.')).toEqual({ passed: false, reason: 'says Lyon, not Paris' });
    expect(parseJudgeVerdict('Verdict: {"pass": "FAIL"}')).toEqual({ passed: false, reason: '(the judge gave no reason)' });
  });

  it('throws a clear error when the answer has no verdict', () => {
    expect(() => parseJudgeVerdict('I think it is fine.')).toThrow(JudgeVerdictError);
    expect(() => parseJudgeVerdict('I think it is fine.')).toThrow(/^the judge gave no verdict \(expected \{"pass": true\|false, "reason": "one line"\}\): judge answer contains no JSON object/);
    expect(() => parseJudgeVerdict('{"pass": "maybe", "reason": "unsure"}')).toThrow('the judge gave no verdict (expected {"pass": true|false, "reason": "one line"}): "pass" is "maybe" in');
  });
});
