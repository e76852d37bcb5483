import { parsePlannerOutput } from '../../../core/planner-output';

describe('parsePlannerOutput', () => {
  it('reads steps from plain JSON', () => {
    expect(parsePlannerOutput('{"steps": ["a", "b"], "result": ""}')).toEqual({ ok: true, steps: ['a', 'b'], result: '' });
  });

  it('reads a result from JSON in a markdown fence', () => {
    expect(parsePlannerOutput('```json\n{"steps": [], "result": "done\\nreport"}\n```')).toEqual({
      ok: true,
      steps: [],
      result: 'done\nreport',
    });
  });

  it('reads JSON surrounded by prose', () => {
    expect(parsePlannerOutput('Here is my plan: {"steps": ["look {up}"]} Hope it helps.')).toEqual({
      ok: true,
      steps: ['look {up}'],
      result: '',
    });
  });

  it('reads a fenced block that has prose inside the fence', () => {
    expect(parsePlannerOutput('```\nPlan:\n{"result": "42"}\n```')).toEqual({ ok: true, steps: [], result: '42' });
  });

  it('treats a missing field as empty', () => {
    expect(parsePlannerOutput('{"result": "x"}')).toEqual({ ok: true, steps: [], result: 'x' });
    expect(parsePlannerOutput('{"steps": ["s"]}')).toEqual({ ok: true, steps: ['s'], result: '' });
  });

  it('lets a non-empty result win over steps', () => {
    expect(parsePlannerOutput('{"steps": ["more"], "result": "final"}')).toEqual({ ok: true, steps: [], result: 'final' });
  });

  it('reports malformed JSON on one line', () => {
    const out = parsePlannerOutput('{"steps": ["a",\n "b"');
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.error).toMatch(/^planner output/);
      expect(out.error).not.toMatch(/\n/);
    }
  });

  it('reports an answer without any JSON object', () => {
    expect(parsePlannerOutput('I cannot help with that.')).toEqual({
      ok: false,
      error: 'planner output contains no JSON object: "I cannot help with that."',
    });
    expect(parsePlannerOutput('  ')).toEqual({ ok: false, error: 'planner output is empty' });
  });

  it('reports empty steps with an empty result', () => {
    expect(parsePlannerOutput('{"steps": [], "result": ""}')).toEqual({
      ok: false,
      error: 'planner returned neither steps nor a result',
    });
    expect(parsePlannerOutput('{"steps": ["  "], "result": " "}')).toEqual({
      ok: false,
      error: 'planner returned neither steps nor a result',
    });
  });

  it('reports fields of the wrong type', () => {
    expect(parsePlannerOutput('{"steps": "a"}')).toEqual({ ok: false, error: '"steps" must be an array of strings' });
    expect(parsePlannerOutput('{"steps": [1]}')).toEqual({ ok: false, error: '"steps" must be an array of strings' });
    expect(parsePlannerOutput('{"result": {"a": 1}}')).toEqual({ ok: false, error: '"result" must be a string' });
    expect(parsePlannerOutput('{"answer": "x"}')).toEqual({
      ok: false,
      error: 'planner output has neither a "steps" nor a "result" field',
    });
  });
});

describe('parsePlannerOutput with groups (max_parallel_steps > 1)', () => {
  const groups = { groups: true };
  it('reads the first group as the next batch and flattens the plan in order', () => {
    expect(parsePlannerOutput('{"steps": [["find A", "find B"], "compare"], "result": ""}', groups)).toEqual({ ok: true, steps: ['find A', 'find B', 'compare'], result: '', batch: 2 });
    expect(parsePlannerOutput('{"steps": ["one", ["two", "three"]], "result": ""}', groups)).toEqual({ ok: true, steps: ['one', 'two', 'three'], result: '', batch: 1 });
    expect(parsePlannerOutput('{"steps": [["", " "], ["x", " ", "y"]], "result": ""}', groups)).toEqual({ ok: true, steps: ['x', 'y'], result: '', batch: 2 });
  });

  it('keeps the seed parsing without groups, and names what is wrong with them', () => {
    expect(parsePlannerOutput('{"steps": [["a", "b"]]}')).toEqual({ ok: false, error: '"steps" must be an array of strings' });
    expect(parsePlannerOutput('{"steps": [["a", 1]]}', groups)).toEqual({ ok: false, error: '"steps" must be an array of strings and arrays of strings' });
    expect(parsePlannerOutput('{"steps": [], "result": "done"}', groups)).toEqual({ ok: true, steps: [], result: 'done' });
  });
});
