/**
 * `perflow eval` on real runs: a suite of each agent type scored by every kind of check (a
 * priced scripted model, a scripted judge), the exit codes of `--min-pass` and of a bad suite,
 * two evals compared case by case, and an eval whose worker is SIGKILLed mid-way completing
 * with every case run once; a case whose run fails fails alone; cancelling an eval cancels its runs;
 * a typed agent's output and a guardrail's stop checked by `output_valid`, `json_path` and `tripped`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { approvePlan, evalProgress, evalResult, evalSnapshot, getStatus, loadSuite, startEval, type EvalResult } from '../../client';
import type { AgentType } from '../../core/agent';
import { expectedResponse, typedAgent, AGENT_TYPES } from '../support/typed-agents';
import { nonEmptyLines, useCli } from '../support/cli';
import { useWorkerProcess } from '../support/spawn-worker';
import { final, plan } from '../support/harness';

jest.setTimeout(120_000);

const cli = useCli('eval');
const crash = useWorkerProcess('eval-crash');

const PRICE = { input_per_million: 1, output_per_million: 2 };
const judge = (verdict: string) => ({ interface: 'scripted', script: { planner: [], judge: [verdict] } });

/** A suite for an agent of `type`: case `good` passes every check, case `bad` fails most. */
function typedSuite(type: AgentType) {
  return {
    name: `suite ${type}`,
    agent: `${type}.json`,
    cases: [
      {
        id: 'good',
        question: 'add the numbers',
        checks: [
          { contains: expectedResponse(type, 2) },
          { tool_called: 'CalculatorTool' },
          { max_steps: 5 },
          { max_cost_usd: 1 },
          { judge: 'states the total', llm: judge(JSON.stringify({ pass: true, reason: 'it states the total' })) },
        ],
      },
      {
        id: 'bad',
        question: 'add the numbers again',
        checks: [{ tool_not_called: 'CalculatorTool' }, { max_tokens: 1 }, { max_cost_usd: 0.000000001 }, { judge: 'is a poem', llm: judge(JSON.stringify({ pass: false, reason: 'it is no poem' })) }, { not_contains: 'poem' }],
      },
    ],
  };
}

/** Writes a JSON file into the fixture's directory; returns its path. */
function file(name: string, value: unknown): string {
  const path = join(cli.dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

/** The runs tagged with the eval (PerflowEval), by workflow ID, polled until `count` are visible. */
async function runsOfEval(client: Client, evalId: string, count: number): Promise<Map<string, number>> {
  let seen = new Map<string, number>();
  for (let i = 0; i < 100; i++) {
    seen = new Map();
    for await (const w of client.workflow.list({ query: `PerflowEval = '${evalId}'` })) seen.set(w.workflowId, (seen.get(w.workflowId) ?? 0) + 1);
    if ([...seen.values()].reduce((a, b) => a + b, 0) >= count) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return seen;
}

describe('perflow eval', () => {
  it('scores a suite of each agent type on real runs (JSON, JUnit, PerflowEval, exit codes by --min-pass)', async () => {
    const runs = await Promise.all(
      AGENT_TYPES.map(async (type) => {
        const agent = typedAgent(type, 2);
        file(`${type}.json`, { ...agent, llm: { ...(agent.llm as object), price: PRICE } });
        const suite = file(`suite-${type}.json`, typedSuite(type));
        const junit = join(cli.dir, `${type}.xml`);
        // plan_execute_and_reflect with the default --min-pass (1.0): half passing exits 1.
        const minPass = type === 'plan_execute_and_reflect' ? [] : ['--min-pass', '0.5'];
        return { type, junit, result: await cli.perflow(['eval', suite, '--json', '--junit', junit, ...minPass]) };
      }),
    );
    for (const { type, junit, result } of runs) {
      expect({ type, code: result.code, stderr: result.stderr.includes('eval_id: ') }).toEqual({ type, code: type === 'plan_execute_and_reflect' ? 1 : 0, stderr: true });
      const doc = JSON.parse(result.stdout) as EvalResult;
      expect(doc).toMatchObject({ suite: `suite ${type}`, agent: `kernel-${type.replace(/_/g, '-')}`, status: 'completed', passed: 1, failed: 1, pass_rate: 0.5 });
      const [good, bad] = doc.cases;
      expect(good).toMatchObject({ id: 'good', workflow_id: `${doc.eval_id}-good`, status: 'completed', passed: true });
      expect(good.checks.every((c) => c.passed)).toBe(true);
      expect(good.checks.find((c) => c.check.startsWith('judge'))?.detail).toBe('it states the total');
      expect(good.steps).toBe(2);
      expect(good.usage.input_tokens).toBeGreaterThan(0);
      expect(good.cost_usd).toBeGreaterThan(0);
      expect(good.duration_ms).toBeGreaterThan(0);
      expect(bad.checks.map((c) => [c.check.split(' ')[0], c.passed])).toEqual([
        ['tool_not_called', false],
        ['max_tokens', false],
        ['max_cost_usd', false],
        ['judge', false],
        ['not_contains', true],
      ]);
      expect(bad.checks[3].detail).toBe('it is no poem');
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toContain('name="good"');
      expect(xml).toMatch(/name="bad"[^>]*>\s*<failure message="tool_not_called/);
      const tagged = await runsOfEval(cli.harness.client, doc.eval_id, 2);
      expect(new Map([...tagged])).toEqual(new Map([[`${doc.eval_id}-good`, 1], [`${doc.eval_id}-bad`, 1]]));
    }
  });

  it('refuses a bad suite or a bad case parameter in one line (exit 2) before anything starts', async () => {
    file('pe.json', typedAgent('plan_execute_and_reflect', 1));
    const badField = file('bad-field.json', { name: 'x', agent: 'pe.json', cases: [{ id: 'q1', question: 'q', checks: 'none' }] });
    const badParam = file('bad-param.json', { name: 'x', agent: 'pe.json', cases: [{ id: 'q1', question: 'q', checks: [{ contains: 'a' }] }, { id: 'q2', question: 'q', params: { max_steps: 'many' }, checks: [{ contains: 'a' }] }] });
    const [field, param, concurrency] = await Promise.all([
      cli.perflow(['eval', badField]),
      cli.perflow(['eval', badParam]),
      cli.perflow(['eval', badField, '--concurrency', '0']),
    ]);
    expect(field.code).toBe(2);
    expect(nonEmptyLines(field.stderr)).toEqual([expect.stringContaining('cases[0].checks')]);
    expect(param.code).toBe(2);
    expect(nonEmptyLines(param.stderr)).toEqual([expect.stringMatching(/bad-param\.json: cases\[1\] \(q2\): invalid agent parameters: parameters\.max_steps: /)]);
    expect(concurrency.code).toBe(2);
    expect(nonEmptyLines(concurrency.stderr)).toEqual(['perflow: --concurrency expects a whole number from 1 to 100, got "0"']);
  });

  it('compares two evals: one case improved, one regressed, one the same; list and show find them', async () => {
    const answering = (text: string) => ({ name: 'answers', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [final(text)] } } });
    const v1 = file('v1.json', answering('alpha gamma'));
    const v2 = file('v2.json', answering('beta gamma'));
    const suite = file('greek.json', {
      name: 'greek',
      cases: ['alpha', 'beta', 'gamma'].map((word) => ({ id: word, question: `say ${word}`, checks: [{ contains: word }] })),
    });
    const [a, b] = await Promise.all([v1, v2].map((agent) => cli.perflow(['eval', suite, '--agent', agent, '--json', '--min-pass', '0'])));
    const [ra, rb] = [a, b].map((r) => JSON.parse(r.stdout) as EvalResult);
    const [cmp, list, shown] = await Promise.all([
      cli.perflow(['eval', 'compare', ra.eval_id, rb.eval_id, '--json']),
      cli.perflow(['eval', 'list', '--json']),
      cli.perflow(['eval', 'show', ra.eval_id, '--json']),
    ]);
    const comparison = JSON.parse(cmp.stdout) as { a: string; b: string; cases: { id: string; change: string; a: { passed: boolean }; b: { passed: boolean }; diff?: unknown }[]; improved: number; regressed: number; same: number; fingerprints: { a: string[]; b: string[]; same: boolean } };
    expect(comparison).toMatchObject({ a: ra.eval_id, b: rb.eval_id, improved: 1, regressed: 1, same: 1 });
    // Each eval's cases ran one fingerprint (one agent, the same parameters); the two agents' scripts differ.
    expect(new Set(ra.cases.map((c) => c.fingerprint)).size).toBe(1);
    expect(comparison.fingerprints).toEqual({ a: [ra.cases[0].fingerprint], b: [rb.cases[0].fingerprint], same: false });
    expect(comparison.cases.map((c) => [c.id, c.change, c.a.passed, c.b.passed, c.diff !== undefined])).toEqual([
      ['alpha', 'regressed', true, false, true],
      ['beta', 'improved', false, true, true],
      ['gamma', 'same', true, true, false],
    ]);
    const listed = (JSON.parse(list.stdout) as { eval_id: string }[]).map((e) => e.eval_id);
    expect(listed).toEqual(expect.arrayContaining([ra.eval_id, rb.eval_id]));
    expect(JSON.parse(shown.stdout)).toEqual(ra);
    const [text, table] = await Promise.all([cli.perflow(['eval', 'compare', ra.eval_id, rb.eval_id]), cli.perflow(['eval', 'show', rb.eval_id])]);
    expect(text.stdout).toContain('1 improved, 1 regressed, 1 same');
    expect(text.stdout).toContain(`fingerprints differ: A ${ra.cases[0].fingerprint} | B ${rb.cases[0].fingerprint}`);
    expect((await cli.perflow(['eval', 'compare', ra.eval_id, ra.eval_id])).stdout).toContain(`both ran fingerprint ${ra.cases[0].fingerprint}`);
    expect(table.stdout).toMatch(/^alpha +FAIL .*contains "alpha": /m);
    expect(nonEmptyLines(table.stdout).at(-1)).toBe('pass rate: 2/3 (67%)');
  });

  it('writes a suite from recorded runs (not from evals\' case runs) with eval from-runs, and the suite runs', async () => {
    // Every run answers "delta"; the agent's own model judges (script.judge) when a check names no llm.
    const agent = file('recorded.json', { name: 'recorded', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [final('delta')], judge: [JSON.stringify({ pass: true, reason: 'agrees' })] } } });
    const earlier = await cli.perflow(['eval', file('recorded-suite.json', { name: 'recorded', cases: [{ id: 'e1', question: 'say delta', checks: [{ contains: 'delta' }] }] }), '--agent', agent, '--json']);
    expect(earlier.code).toBe(0);
    const questions = ['say delta, once', 'say delta, twice'];
    for (const question of questions) expect((await cli.perflow(['run', '--agent', agent, '--question', question, '--wait'])).code).toBe(0);
    const out = join(cli.dir, 'from-runs.json');
    const written = await cli.perflow(['eval', 'from-runs', '--agent', 'recorded', '--out', out]);
    expect(written).toMatchObject({ code: 0, stdout: expect.stringContaining(`wrote 2 cases to ${out}`) });
    const suite = JSON.parse(readFileSync(out, 'utf8')) as { cases: { question: string; reference: string }[] };
    expect(suite.cases.map((c) => [c.question, c.reference]).sort()).toEqual(questions.map((q) => [q, 'delta']));
    const ran = await cli.perflow(['eval', out, '--agent', agent, '--json']);
    expect(ran.code).toBe(0);
    const doc = JSON.parse(ran.stdout) as EvalResult;
    expect(doc).toMatchObject({ passed: 2, failed: 0 });
    expect(doc.cases.map((c) => c.checks)).toEqual(questions.map(() => [{ check: expect.stringMatching(/^judge /), passed: true, detail: 'agrees' }]));
  });

  it('completes an eval whose worker is SIGKILLed mid-way, every case run once', async () => {
    await crash.restart();
    const agent = file('slow.json', {
      name: 'slow',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner: [plan('wait'), final('waited')], executor: [[{ tool_calls: [{ name: 'SlowTool', input: { label: 'x', ms: 50 } }] }, { content: 'done' }]] } },
      tools: [{ type: 'SlowTool' }],
    });
    // c2 and c3 wait for a person to approve their plan: the kill lands while they run, with no activity in flight.
    const cases = ['c0', 'c1', 'c2', 'c3'].map((id, i) => ({ id, question: `wait ${i}`, ...(i >= 2 ? { params: { plan_approval: 'first' } } : {}), checks: [{ contains: 'waited' }, { tool_called: 'SlowTool' }] }));
    const suite = await loadSuite(file('slow-suite.json', { name: 'slow', cases }), { agent, extraToolTypes: ['SlowTool'] });
    const { evalId } = await startEval(crash.perflow, { suite, concurrency: 4 });
    const waiting = async () => {
      const p = await evalProgress(crash.client, evalId).catch(() => undefined);
      if (p?.done !== 2 || p.running !== 2) return false;
      const pending = await Promise.all(['c2', 'c3'].map((c) => getStatus(crash.client, `${evalId}-${c}`).then((s) => (s.pending ?? []).length, () => 0)));
      return pending.every((n) => n > 0);
    };
    for (let i = 0; i < 300 && !(await waiting()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await evalProgress(crash.client, evalId)).toEqual({ total: 4, done: 2, passed: 2, failed: 0, running: 2 });
    // The cases scored so far are there while it runs (its document has them once it ends).
    expect(await evalSnapshot(crash.perflow, evalId)).toMatchObject({ status: 'running', passed: 2, failed: 0, cases: [{ id: 'c0', passed: true }, { id: 'c1', passed: true }] });
    await crash.restart();
    await Promise.all(['c2', 'c3'].map((c) => approvePlan(crash.client, `${evalId}-${c}`, { by: 'test' })));
    const result = await evalResult(crash.perflow, evalId, { wait: true });
    expect(result).toMatchObject({ status: 'completed', passed: 4, failed: 0 });
    expect(result?.cases.map((c) => c.id)).toEqual(['c0', 'c1', 'c2', 'c3']);
    const runs = await runsOfEval(crash.client, evalId, 4);
    expect([...runs.entries()].sort()).toEqual(['c0', 'c1', 'c2', 'c3'].map((c) => [`${evalId}-${c}`, 1]));
  });

  it('cancels the runs still going when the eval is cancelled', async () => {
    const agent = file('waits.json', { name: 'waits', type: 'plan_execute_and_reflect', parameters: { plan_approval: 'first' }, llm: { interface: 'scripted', script: { planner: [plan('wait'), final('waited')], executor: [[{ content: 'done' }]] } } });
    const suite = await loadSuite(file('waits-suite.json', { name: 'waits', cases: [{ id: 'w', question: 'wait', checks: [{ contains: 'waited' }] }] }), { agent });
    const { evalId, handle } = await startEval(cli.harness.perflow, { suite });
    const run = cli.harness.client.workflow.getHandle(`${evalId}-w`);
    for (let i = 0; i < 300 && !((await getStatus(cli.harness.client, run.workflowId).catch(() => undefined))?.pending ?? []).length; i++) await new Promise((r) => setTimeout(r, 100));
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect((await run.describe()).status.name).toBe('CANCELLED');
    // Its stored result says it was cancelled, with no case scored.
    expect(await evalResult(cli.harness.perflow, evalId)).toMatchObject({ status: 'cancelled', cases: [], ended_at: expect.any(String) });
  });

  it('checks a typed answer (output_valid, json_path on the output) and a guardrail\'s stop (tripped), which a case may expect', async () => {
    const answering = (name: string, script: Record<string, unknown>, extra: Record<string, unknown>) =>
      file(`${name}.json`, { name, type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [final('three')], ...script } }, ...extra });
    const output_schema = { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'], additionalProperties: false };
    const typed = answering('typed-total', { output: ['{"total": 3}'] }, { output_schema });
    const guarded = answering('guarded', {}, { guardrails: { input: [{ not_contains: 'password', on_fail: 'stop' }] } });
    const [typedSuite, guardedSuite] = await Promise.all([
      loadSuite(file('typed-suite.json', { name: 'typed', cases: [{ id: 't', question: 'the total?', checks: [{ output_valid: true }, { json_path: '$.total', equals: 3 }, { tripped: false }] }] }), { agent: typed }),
      loadSuite(
        file('guarded-suite.json', {
          name: 'guarded',
          cases: [
            { id: 'refused', question: 'tell me the password', checks: [{ tripped: true }] },
            { id: 'refused-answer', question: 'the password, please', checks: [{ contains: 'three' }] },
            { id: 'allowed', question: 'the total?', checks: [{ tripped: false }, { contains: 'three' }, { output_valid: true }] },
          ],
        }),
        { agent: guarded },
      ),
    ]);
    const [t, g] = await Promise.all([typedSuite, guardedSuite].map(async (suite) => (await startEval(cli.harness.perflow, { suite })).handle.result()));
    expect(t.cases[0]).toMatchObject({ status: 'completed', passed: true });
    expect(t.cases[0].checks).toEqual([
      { check: 'output_valid true', passed: true, detail: 'output conforms to output_schema' },
      { check: 'json_path $.total equals 3', passed: true, detail: '$.total is 3' },
      { check: 'tripped false', passed: true, detail: 'no guardrail stopped the run' },
    ]);
    const reason = 'input guardrail not_contains "password": response contains "password"';
    const [refused, refusedAnswer, allowed] = g.cases;
    expect(refused).toMatchObject({ status: 'tripped', passed: true, error: reason, checks: [{ check: 'tripped true', passed: true, detail: 'the input guardrail not_contains "password" stopped the run: response contains "password"' }] });
    expect(refusedAnswer).toMatchObject({ status: 'tripped', passed: false, checks: [{ passed: false, detail: `run tripped: ${reason}` }] });
    expect(allowed.checks.map((c) => [c.passed, c.detail])).toEqual([
      [true, 'no guardrail stopped the run'],
      [true, 'response contains "three"'],
      [false, 'the agent has no output_schema'],
    ]);
  });

  it('scores a case whose run fails as a failed case, and the eval completes', async () => {
    const agent = file('no-answers.json', { name: 'no-answers', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } } });
    const suite = await loadSuite(file('fails-suite.json', { name: 'fails', cases: [{ id: 'f', question: 'anything?', checks: [{ contains: 'x' }, { max_steps: 3 }] }] }), { agent });
    const { handle } = await startEval(cli.harness.perflow, { suite });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', passed: 0, failed: 1 });
    const [c] = result.cases;
    expect(c).toMatchObject({ id: 'f', status: 'failed', passed: false, steps: 0 });
    expect(c.error).toContain('scripted model has no planner answer');
    expect(c.checks.map((k) => [k.check, k.passed])).toEqual([
      ['contains "x"', false],
      ['max_steps 3', true],
    ]);
  });
});
