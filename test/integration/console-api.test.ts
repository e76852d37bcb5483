/**
 * The console's API over HTTP, as the page and scripts use it, against the test servers: every
 * route, its answers and its errors (unknown run, bad body, a decision the run does not wait
 * for, a foreign origin, a missing token), and the event stream as Server-Sent Events.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientConfigFromEnv, type PerflowClient, type RunEvent } from '../../client';
import { startConsole, type ConsoleServer } from '../../console/server';
import { useCli } from '../support/cli';
import { expectedResponse, typedAgent } from '../support/typed-agents';

jest.setTimeout(120_000);

const cli = useCli('console-api');
let server: ConsoleServer;
let guarded: ConsoleServer;
let agents: string;
const TOKEN = 'console-test-token';

beforeAll(async () => {
  agents = mkdtempSync(join(tmpdir(), 'perflow-console-agents-'));
  writeFileSync(join(agents, 'adder.json'), JSON.stringify(typedAgent('plan_execute_and_reflect', 2)));
  writeFileSync(join(agents, 'notes.txt'), 'not an agent');
  const config = clientConfigFromEnv(cli.env);
  const perflow: PerflowClient = { client: cli.harness.client, config, close: async () => undefined };
  server = await startConsole({ config, env: cli.env, port: 0, agentsDir: agents, perflow });
  guarded = await startConsole({ config, env: cli.env, port: 0, agentsDir: agents, perflow, token: TOKEN });
});
afterAll(async () => {
  await server?.close();
  await guarded?.close();
  rmSync(agents, { recursive: true, force: true });
});

// Answers are checked field by field: loosely typed on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, base = server.url): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  return { status: res.status, json: await res.json() };
}

/** The run's events as Server-Sent Events, read to the end of the stream. */
async function sse(id: string, headers: Record<string, string> = {}, query = ''): Promise<{ ids: number[]; names: string[]; events: RunEvent[] }> {
  const res = await fetch(`${server.url}/api/runs/${id}/events${query}`, { headers });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await res.text();
  const blocks = text.split('\n\n').filter((b) => b.includes('data:'));
  const field = (b: string, name: string) => b.split('\n').find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
  return {
    ids: blocks.map((b) => Number(field(b, 'id'))),
    names: blocks.map((b) => String(field(b, 'event'))),
    events: blocks.map((b) => JSON.parse(String(field(b, 'data'))) as RunEvent),
  };
}

async function waitFor<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await get();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the console API', () => {
  let waiting: string;

  it('starts a run from an offered agent file; bad bodies are 400s naming the field', async () => {
    expect((await call('GET', '/api/info')).json).toMatchObject({ namespace: cli.env.TEMPORAL_NAMESPACE, token_required: false });
    expect((await call('GET', '/api/agents')).json).toEqual([{ file: 'adder.json', name: 'kernel-plan-execute-and-reflect', type: 'plan_execute_and_reflect' }]);

    const started = await call('POST', '/api/runs', { agent: 'adder.json', question: 'add via the console', params: { plan_approval: 'first' } });
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({ workflow_id: expect.stringMatching(/^kernel-plan-execute-and-reflect-/), memory_id: expect.any(String), ui_url: expect.stringContaining('/workflows/') });
    waiting = started.json.workflow_id;

    const bad: Array<[unknown, RegExp]> = [
      [{ agent: 'adder.json' }, /^bad request body: question: /],
      [{ agent: 'adder.json', question: 'q', extra: 1 }, /^bad request body: unknown field extra$/],
      [{ agent: '../adder.json', question: 'q' }, /^agent "\.\.\/adder\.json" is not one of the console's agent files \(adder\.json\)/],
      [{ agent: { name: 'x', type: 'no_such_type' }, question: 'q' }, /^agent: /],
      [{ agent: 'adder.json', question: 'q', params: { max_steps: 'many' } }, /max_steps/],
      ['not json', /^bad request body: expected a JSON object$/],
    ];
    for (const [body, message] of bad) {
      const r = await call('POST', '/api/runs', body);
      expect([r.status, r.json.error]).toEqual([400, expect.stringMatching(message)]);
    }
  });

  it('shows the run, what it waits for, and answers decisions — a decision it does not wait for is a 409', async () => {
    const status = await waitFor('the plan to wait', () => call('GET', `/api/runs/${waiting}`), (r) => r.json.status === 'awaiting_approval');
    expect(status.json).toMatchObject({ workflow_id: waiting, question: 'add via the console', pending: [{ kind: 'plan', id: 'plan-1', plan: ['add 1', 'add 2'] }] });
    const listed = await waitFor('the list', () => call('GET', '/api/runs?status=running'), (r) => r.json.some((x: Json) => x.workflow_id === waiting && x.waiting_for === 'plan'));
    expect(listed.json.find((x: Json) => x.workflow_id === waiting)).toMatchObject({ agent: 'kernel-plan-execute-and-reflect', agent_type: 'plan_execute_and_reflect', status: 'running', question: 'add via the console', close_time: null });
    expect((await call('GET', '/api/runs?status=sleeping')).status).toBe(400);

    expect((await call('GET', `/api/runs/${waiting}/result`)).status).toBe(409);
    const notAwaited = await call('POST', `/api/runs/${waiting}/decisions`, { kind: 'approve_tool' });
    expect([notAwaited.status, notAwaited.json.error]).toEqual([409, expect.stringMatching(/did not accept the decideTool decision: no tool call is awaiting approval/)]);
    for (const [body, message] of [
      [{ kind: 'bless' }, /^bad request body: kind: /],
      [{ kind: 'reject' }, /^bad request body: reason: /],
      [{ kind: 'approve', steps: [] }, /^bad request body: steps: /],
    ] as const) {
      const r = await call('POST', `/api/runs/${waiting}/decisions`, body);
      expect([r.status, r.json.error]).toEqual([400, expect.stringMatching(message)]);
    }
    const approved = await call('POST', `/api/runs/${waiting}/decisions`, { kind: 'approve', steps: ['add 1', 'add 2'], by: 'console-user' });
    expect([approved.status, approved.json]).toEqual([200, expect.objectContaining({ workflow_id: waiting, kind: 'plan', action: 'edit', by: 'console-user' })]);

    const result = await waitFor('the result', () => call('GET', `/api/runs/${waiting}/result`), (r) => r.status === 200);
    expect(result.json).toMatchObject({ workflow_id: waiting, response: expectedResponse('plan_execute_and_reflect', 2) });
    const late = await call('POST', `/api/runs/${waiting}/decisions`, { kind: 'cancel' });
    expect([late.status, late.json.error]).toEqual([409, expect.stringMatching(/the run has ended \(completed\)/)]);
  });

  it('streams the run as Server-Sent Events: id the offset, event the type, Last-Event-ID resumes', async () => {
    const all = await sse(waiting);
    expect(all.ids).toEqual(all.events.map((_, i) => i));
    expect(all.names).toEqual(all.events.map((e) => e.type));
    expect(all.names[0]).toBe('run_started');
    expect(all.names).toContain('decision_pending');
    expect(all.names).toContain('model_delta');
    expect(all.names.at(-1)).toBe('run_finished');
    const resumed = await sse(waiting, { 'last-event-id': '4' });
    expect(resumed.ids[0]).toBe(5);
    expect(resumed.events).toEqual(all.events.slice(5));
    expect((await sse(waiting, {}, '?from=3')).ids[0]).toBe(3);
    // Reconnecting after the end gives nothing more, and the stream ends.
    expect((await sse(waiting, { 'last-event-id': String(all.ids.at(-1)) })).ids).toEqual([]);
    expect((await call('GET', '/api/runs/no-such-run/events')).status).toBe(404);
    expect((await call('GET', `/api/runs/${waiting}/events?from=soon`)).status).toBe(400);
  });

  it('forks from a step, diffs two runs, shows memory; unknown runs and memories are 404s', async () => {
    const fork = await call('POST', `/api/runs/${waiting}/fork`, { from_step: 2, question: 'add again via the console', params: { plan_approval: 'none' } });
    expect(fork.status).toBe(201);
    await waitFor('the fork', () => call('GET', `/api/runs/${fork.json.workflow_id}/result`), (r) => r.status === 200);
    const diff = await call('GET', `/api/diff?a=${waiting}&b=${fork.json.workflow_id}`);
    expect(diff.status).toBe(200);
    expect(diff.json).toMatchObject({ a: { workflow_id: waiting }, b: { workflow_id: fork.json.workflow_id } });
    expect((await call('POST', `/api/runs/${waiting}/fork`, { from_step: 0 })).status).toBe(400);
    expect((await call('GET', `/api/diff?a=${waiting}`)).status).toBe(400);
    expect((await call('GET', `/api/diff?a=${waiting}&b=no-such-run`)).json).toEqual({ error: 'no run no-such-run' });

    const status = await call('GET', `/api/runs/${waiting}`);
    const memory = await call('GET', `/api/memory/${status.json.memory_id}`);
    expect(memory.status).toBe(200);
    expect(JSON.stringify(memory.json)).toContain('add via the console');
    expect((await call('GET', '/api/memory/no-such-memory')).status).toBe(404);
    for (const path of ['/api/runs/no-such-run', '/api/runs/no-such-run/result']) {
      const r = await call('GET', path);
      expect([r.status, r.json.error]).toEqual([404, expect.stringMatching(/no run no-such-run/)]);
    }
    expect((await call('POST', '/api/runs/no-such-run/decisions', { kind: 'resume' })).status).toBe(404);
    expect((await call('POST', '/api/runs/no-such-run/decisions', { kind: 'raise_budget', usd: 1 })).status).toBe(404);
    const noCap = await call('POST', `/api/runs/${waiting}/decisions`, { kind: 'raise_budget', usd: 0 });
    expect([noCap.status, noCap.json.error]).toEqual([400, expect.stringMatching(/^bad request body: usd: /)]);
  });

  it('refuses state changes from a foreign origin, and every request without the token where there is one', async () => {
    const foreign = await call('POST', '/api/runs', { agent: 'adder.json', question: 'q' }, { origin: 'http://evil.example' });
    expect([foreign.status, foreign.json.error]).toEqual([403, expect.stringMatching(/^requests from http:\/\/evil\.example are refused/)]);
    const own = await call('POST', `/api/runs/${waiting}/decisions`, { kind: 'resume' }, { origin: server.url });
    expect(own.status).toBe(409); // past the origin check: the run has ended

    expect((await call('GET', '/api/info', undefined, {}, guarded.url)).status).toBe(401);
    expect((await call('GET', '/api/info', undefined, { authorization: 'Bearer wrong' }, guarded.url)).status).toBe(401);
    expect((await call('GET', '/api/info', undefined, { authorization: `Bearer ${TOKEN}` }, guarded.url)).json).toMatchObject({ token_required: true });
    const events = await fetch(`${guarded.url}/api/runs/${waiting}/events?token=${TOKEN}`);
    expect(events.status).toBe(200);
    await events.body?.cancel();
    await expect(startConsole({ config: clientConfigFromEnv(cli.env), env: cli.env, host: '0.0.0.0', port: 0 })).rejects.toThrow(/^--host 0\.0\.0\.0 would open the console to the network: set --token T \(or PERFLOW_CONSOLE_TOKEN\)$/);
  });
});

describe('the console API of evals', () => {
  const suite = (name: string) => ({
    name,
    cases: [
      { id: 'sum', question: 'add the numbers', checks: [{ contains: 'the total is 3' }, { tool_called: 'CalculatorTool' }] },
      { id: 'poem', question: 'add them as a poem', checks: [{ max_steps: 5 }, { contains: 'poem' }] },
    ],
  });
  let first: string;

  it('starts an eval from a suite file or a suite JSON; bad suites and bodies are 400s naming what to fix', async () => {
    writeFileSync(join(agents, 'adder3.json'), JSON.stringify({ ...typedAgent('plan_execute_and_reflect', 3), name: 'adder-v3' }));
    writeFileSync(join(agents, 'sums.json'), JSON.stringify({ ...suite('sums'), agent: 'adder.json' }));
    expect((await call('GET', '/api/suites')).json).toEqual([{ file: 'sums.json', name: 'sums' }]);
    expect((await call('GET', '/api/agents')).json.map((a: Json) => a.file)).toEqual(['adder.json', 'adder3.json']);

    const started = await call('POST', '/api/evals', { suite: 'sums.json', concurrency: 2 });
    expect([started.status, started.json]).toEqual([201, expect.objectContaining({ eval_id: expect.stringMatching(/^eval-sums-/), cases: 2, ui_url: expect.stringContaining('/workflows/') })]);
    first = started.json.eval_id;

    const bad: Array<[unknown, RegExp]> = [
      [{ suite: 'nope.json' }, /^suite "nope\.json" is not one of the console's suite files \(sums\.json\)/],
      [{ suite: 'sums.json', agent: '../adder.json' }, /^agent "\.\.\/adder\.json" is not one of the console's agent files/],
      [{ suite: { name: 'x', agent: 'adder.json', cases: [] } }, /^suite: cases: /],
      [{ suite: { ...suite('x'), agent: 'adder.json', cases: [{ id: 'a', question: 'q', checks: [{ contains: 1 }] }] } }, /^suite: cases\[0\]/],
      [{ suite: suite('no agent') }, /agent: the suite names no agent file/],
      [{ suite: 'sums.json', concurrency: 0 }, /^bad request body: concurrency: /],
      [{ suite: 'sums.json', extra: 1 }, /^bad request body: unknown field extra$/],
    ];
    for (const [body, message] of bad) {
      const r = await call('POST', '/api/evals', body);
      expect([r.status, r.json.error]).toEqual([400, expect.stringMatching(message)]);
    }
  });

  it('shows an eval while it runs, once it ends or once cancelled; lists evals; compares two with the run diff of changed cases', async () => {
    expect((await call('GET', `/api/evals/${first}`)).json).toMatchObject({ eval_id: first, suite: 'sums' });
    const done = await waitFor('the eval', () => call('GET', `/api/evals/${first}`), (r) => r.json.status === 'completed');
    expect(done.json).toMatchObject({ agent: 'kernel-plan-execute-and-reflect', passed: 1, failed: 1, pass_rate: 0.5, ended_at: expect.any(String) });
    expect(done.json.progress).toBeUndefined();
    const poem = done.json.cases.find((x: Json) => x.id === 'poem');
    expect(poem).toMatchObject({ passed: false, workflow_id: `${first}-poem`, checks: [{ passed: true }, { check: 'contains "poem"', passed: false }] });

    // The same suite inline, against the agent whose answer changed.
    const second = (await call('POST', '/api/evals', { suite: suite('sums'), agent: 'adder3.json' })).json.eval_id;
    await waitFor('the second eval', () => call('GET', `/api/evals/${second}`), (r) => r.json.status === 'completed');
    const listed = (await call('GET', '/api/evals')).json;
    expect(listed.slice(0, 2)).toEqual([
      { eval_id: second, suite: 'sums', agent: 'adder-v3', status: 'completed', passed: 0, failed: 2, pass_rate: 0, started_at: expect.any(String), ended_at: expect.any(String) },
      expect.objectContaining({ eval_id: first, passed: 1 }),
    ]);

    const cmp = await call('GET', `/api/evals/compare?a=${first}&b=${second}`);
    expect(cmp.json).toMatchObject({ a: first, b: second, improved: 0, regressed: 1, same: 1 });
    const sum = cmp.json.cases.find((x: Json) => x.id === 'sum');
    expect(sum).toMatchObject({ change: 'regressed', a: { passed: true }, b: { passed: false }, diff: { a: { workflow_id: `${first}-sum` }, b: { workflow_id: `${second}-sum` } } });
    expect(cmp.json.cases.find((x: Json) => x.id === 'poem').diff).toBeUndefined();

    // One whose cases wait for their plans: it runs until cancelled.
    const held = (await call('POST', '/api/evals', { suite: 'sums.json', params: { plan_approval: 'first' }, concurrency: 1 })).json.eval_id;
    const running = await waitFor('a case to run', () => call('GET', `/api/evals/${held}`), (r) => r.json.progress?.running === 1);
    expect(running.json).toMatchObject({ eval_id: held, status: 'running', cases: [], progress: { total: 2, done: 0, passed: 0, failed: 0, running: 1 } });
    const early = await call('GET', `/api/evals/compare?a=${first}&b=${held}`);
    expect([early.status, early.json.error]).toEqual([400, expect.stringMatching(/^eval \S+ is still running: compare it once it ends/)]);
    await cli.harness.client.workflow.getHandle(held).cancel();
    await waitFor('the cancelled eval', () => call('GET', `/api/evals/${held}`), (r) => r.json.status === 'cancelled');
    expect((await call('GET', `/api/evals/compare?a=${first}&b=${held}`)).json).toEqual({ error: `eval ${held} was cancelled: it has no result to compare` });

    expect((await call('GET', '/api/evals/no-such-eval')).json).toEqual({ error: 'no eval no-such-eval' });
    expect((await call('GET', '/api/evals/no-such-eval')).status).toBe(404);
    expect((await call('GET', `/api/evals/compare?a=${first}&b=no-such-eval`)).status).toBe(404);
    expect((await call('GET', `/api/evals/compare?a=${first}`)).status).toBe(400);
    expect((await call('GET', '/api/evals', undefined, {}, guarded.url)).status).toBe(401);
    expect((await call('POST', '/api/evals', { suite: 'sums.json' }, { origin: 'http://evil.example' })).status).toBe(403);
  });
});
