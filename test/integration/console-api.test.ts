/**
 * The console's API over HTTP, as the page and scripts use it, against the test servers: every
 * route, its answers and its errors (unknown run, bad body, a decision the run does not wait
 * for), the event stream as Server-Sent Events, and what guards it: the token, the Host
 * allow-list, the origin check, the security headers, inline agent files, the limits. Over 300
 * lines on purpose: one file, one set of console servers for every route.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Message } from '@ag-ui/core';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientConfigFromEnv, perflowClient, type RunEvent } from '../../client';
import { agentFromJson } from '../../client/run';
import { createSchedule, deleteSchedule } from '../../client/schedules';
import { startConsole, type ConsoleServer } from '../../console/server';
import { readTokenScopes } from '../../console/token-scopes';
import { useCli } from '../support/cli';
import { TEST_POLICY } from '../support/harness';
import { expectedResponse, typedAgent } from '../support/typed-agents';

jest.setTimeout(120_000);

// The worker lets agent files start `sh`, so the inline attack below is real where the console lets it through.
const cli = useCli('console-api', { policy: { ...TEST_POLICY, mcpCommands: [...TEST_POLICY.mcpCommands, 'sh'] } });
let server: ConsoleServer;
let guarded: ConsoleServer;
let agents: string;
const TOKEN = 'console-test-token';

beforeAll(async () => {
  agents = mkdtempSync(join(tmpdir(), 'perflow-console-agents-'));
  writeFileSync(join(agents, 'adder.json'), JSON.stringify(typedAgent('plan_execute_and_reflect', 2)));
  writeFileSync(join(agents, 'notes.txt'), 'not an agent');
  const { perflow } = cli.harness;
  const { config } = perflow;
  // `server` makes its own token and takes inline agent files; `guarded` is a console as started by default, with a given token.
  server = await startConsole({ config, port: 0, agentsDir: agents, perflow, allowInlineAgents: true });
  guarded = await startConsole({ config, port: 0, agentsDir: agents, perflow, token: TOKEN, maxEventStreams: 2 });
});
afterAll(async () => {
  await server?.close();
  await guarded?.close();
  rmSync(agents, { recursive: true, force: true });
});

// Answers are checked field by field: loosely typed on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** `server`'s token, as a script sends it. */
const auth = () => ({ authorization: `Bearer ${server.token}` });

/** A request to the API of `base` (`server`'s carries its token unless `headers` has an authorization). */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, base = server.url): Promise<{ status: number; json: Json }> {
  const token = base === server.url && !('authorization' in headers) ? auth() : {};
  const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...token, ...headers }, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  return { status: res.status, json: await res.json() };
}

/** The run's events as Server-Sent Events, read to the end of the stream. */
async function sse(id: string, headers: Record<string, string> = {}, query = ''): Promise<{ ids: number[]; names: string[]; events: RunEvent[] }> {
  const res = await fetch(`${server.url}/api/runs/${id}/events${query}`, { headers: { ...auth(), ...headers } });
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
    expect((await call('GET', '/api/info')).json).toMatchObject({ namespace: cli.env.TEMPORAL_NAMESPACE, token_required: true });
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

    // A second message to its conversation while it waits: refused naming it, or queued behind it.
    const memory_id = status.json.memory_id as string;
    const busy = await call('POST', '/api/runs', { agent: 'adder.json', question: 'and then?', params: { memory_id } });
    expect([busy.status, busy.json.error]).toEqual([409, `memory ${memory_id} is busy: run ${waiting} is still going; wait for it, or send the message with on-busy enqueue (it runs after) or interrupt (it stops the running one)`]);
    expect((await call('POST', '/api/runs', { agent: 'adder.json', question: 'and then?', params: { memory_id }, on_busy: 'later' })).status).toBe(400);
    const queued = await call('POST', '/api/runs', { agent: 'adder.json', question: 'and then?', params: { memory_id }, on_busy: 'enqueue' });
    expect(queued.status).toBe(201);
    expect((await call('GET', `/api/runs/${queued.json.workflow_id}`)).json).toMatchObject({ status: 'queued', waiting_for: [waiting], memory_id });

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
    const after = await waitFor('the queued run', () => call('GET', `/api/runs/${queued.json.workflow_id}/result`), (r) => r.status === 200);
    expect(after.json.response).toBe(expectedResponse('plan_execute_and_reflect', 2));
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

  it('refuses state changes from a foreign origin, and every request without the token', async () => {
    const foreign = await call('POST', '/api/runs', { agent: 'adder.json', question: 'q' }, { origin: 'http://evil.example' });
    expect([foreign.status, foreign.json.error]).toEqual([403, expect.stringMatching(/^requests from http:\/\/evil\.example are refused/)]);
    const crossSite = await call('GET', '/api/runs', undefined, { 'sec-fetch-site': 'cross-site' });
    expect([crossSite.status, crossSite.json.error]).toEqual([403, expect.stringMatching(/^requests from other sites are refused/)]);
    const own = await call('POST', `/api/runs/${waiting}/decisions`, { kind: 'resume' }, { origin: server.url });
    expect(own.status).toBe(409); // past the origin check: the run has ended

    // The generated token: 32 URL-safe characters (192 bits), in the URL to open.
    expect(server.token).toMatch(/^[\w-]{32}$/);
    expect([server.tokenGenerated, server.openUrl]).toEqual([true, `${server.url}/?token=${server.token}`]);
    expect((await call('GET', '/api/info', undefined, { authorization: '' })).status).toBe(401);
    for (const given of [{}, { authorization: 'Bearer wrong' }, { authorization: `Bearer ${TOKEN}x` }, { authorization: `Bearer ${TOKEN.slice(0, -1)}` }, { authorization: TOKEN }] as Record<string, string>[]) {
      const r = await call('GET', '/api/info', undefined, given, guarded.url);
      expect([r.status, r.json.error]).toEqual([401, expect.stringMatching(/^this console needs its token: Authorization: Bearer TOKEN/)]);
    }
    expect((await call('GET', '/api/info', undefined, { authorization: `Bearer ${TOKEN}` }, guarded.url)).json).toMatchObject({ token_required: true });
    expect(guarded.tokenGenerated).toBe(false);
    // The query form only where a browser cannot set a header: the event stream.
    const events = await fetch(`${guarded.url}/api/runs/${waiting}/events?token=${TOKEN}`);
    expect(events.status).toBe(200);
    await events.body?.cancel();
    expect((await fetch(`${guarded.url}/api/runs/${waiting}/events`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/api/runs/${waiting}?token=${TOKEN}`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/api/runs?token=${TOKEN}`, { method: 'GET' })).status).toBe(401);

    // Without a token only on loopback, and only when asked for by name.
    const config = clientConfigFromEnv(cli.env);
    await expect(startConsole({ config, host: '0.0.0.0', port: 0, unsafeNoToken: true })).rejects.toThrow(/^--unsafe-no-token is refused with --host 0\.0\.0\.0: off loopback the console needs a token/);
    const open = await startConsole({ config, port: 0, agentsDir: agents, unsafeNoToken: true });
    try {
      expect([open.token, open.openUrl]).toEqual([undefined, `${open.url}/`]);
      expect((await call('GET', '/api/info', undefined, {}, open.url)).json).toMatchObject({ token_required: false });
    } finally {
      await open.close();
    }
  });
});

/** A raw request with a `Host` header of our choosing (fetch sets its own). */
function withHost(url: string, path: string, host: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(`${url}${path}`, { method, headers: { ...headers, host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the console as a trust boundary', () => {
  it('answers only to its own host names (DNS rebinding), whatever the token', async () => {
    const port = new URL(guarded.url).port;
    const bearer = { authorization: `Bearer ${TOKEN}` };
    for (const host of [`attacker.example:${port}`, 'attacker.example', `127.0.0.1.nip.io:${port}`, `localhost.attacker.example:${port}`]) {
      for (const path of ['/api/info', '/']) {
        const r = await withHost(guarded.url, path, host, bearer);
        expect([host, path, r.status]).toEqual([host, path, 403]);
        expect(JSON.parse(r.body).error).toMatch(/^requests for host ".*" are refused: this server answers only to its own names \(add one with --allowed-host NAME\)$/);
      }
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `10.1.2.3:${port}`]) expect((await withHost(guarded.url, '/api/info', host, bearer)).status).toBe(200);
    const named = await startConsole({ config: clientConfigFromEnv(cli.env), port: 0, agentsDir: agents, token: TOKEN, allowedHosts: ['console.example.com'] });
    try {
      expect((await withHost(named.url, '/api/info', 'Console.Example.com:443', bearer)).status).toBe(200);
      expect((await withHost(named.url, '/api/info', 'other.example.com', bearer)).status).toBe(403);
    } finally {
      await named.close();
    }
    await expect(startConsole({ config: clientConfigFromEnv(cli.env), port: 0, allowedHosts: ['http://x.example:80'] })).rejects.toThrow(/^--allowed-host expects a host name/);
  });

  it('sends the security headers with the page, its files and every API answer', async () => {
    for (const [path, headers] of [['/', {}], ['/page/app.js', {}], ['/api/info', { authorization: `Bearer ${TOKEN}` }], ['/api/info', {}], ['/api/nothing', {}]] as const) {
      const res = await fetch(`${guarded.url}${path}`, { headers });
      expect([path, res.headers.get('x-frame-options'), res.headers.get('x-content-type-options'), res.headers.get('referrer-policy')]).toEqual([path, 'DENY', 'nosniff', 'no-referrer']);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/(^|; )default-src 'self'(;|$)/);
      expect(csp).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
      expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/); // the page's import map, and no other inline script
    }
  });

  it('refuses an inline agent file or suite unless started with allowInlineAgents: the MCP command in it never runs', async () => {
    const pwned = join(agents, 'pwned');
    const attack = (file: string) => ({
      name: 'inline-attack',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner: ['{"steps": [], "result": "done"}'] } },
      mcp_servers: [{ name: 'p', command: 'sh', args: ['-c', `id > ${file}`] }],
    });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const refused = await call('POST', '/api/runs', { agent: attack(pwned), question: 'x' }, bearer, guarded.url);
    expect([refused.status, refused.json.error]).toEqual([403, "an inline agent file is refused: name one of the console's agent files (GET /api/agents), or start the console with --allow-inline-agents"]);
    expect((await call('POST', '/api/runs/any/fork', { from_step: 1, agent: attack(pwned) }, bearer, guarded.url)).status).toBe(403);
    const suite = { name: 's', agent: 'adder.json', cases: [{ id: 'a', question: 'q', checks: [{ contains: 'x' }] }] };
    const inlineSuite = await call('POST', '/api/evals', { suite }, bearer, guarded.url);
    expect([inlineSuite.status, inlineSuite.json.error]).toEqual([403, expect.stringMatching(/^an inline suite is refused: .*--allow-inline-agents$/)]);

    // The same body where inline agent files are allowed: the workers run the command (the attack is real).
    const accepted = await call('POST', '/api/runs', { agent: attack(`${pwned}-allowed`), question: 'x' });
    expect(accepted.status).toBe(201);
    try {
      await waitFor('the MCP command to run', async () => existsSync(`${pwned}-allowed`), (ran) => ran);
    } finally {
      await cli.harness.client.workflow.getHandle(accepted.json.workflow_id).terminate('test cleanup').catch(() => undefined);
    }
    expect(existsSync(pwned)).toBe(false);
  });

  it("refuses an agent file the workers' declared policy refuses, in one line, before any run starts", async () => {
    // The console is told what the workers allow (PERFLOW_ALLOW_*): `sh` is not among their commands.
    const { workerPolicy } = clientConfigFromEnv({ ...process.env, ...cli.env, PERFLOW_ALLOW_MCP_COMMANDS: 'node', PERFLOW_ALLOW_HOSTS: 'hooks.example.com' });
    expect(workerPolicy).toBeDefined();
    const config = { ...cli.harness.perflow.config, workerPolicy };
    const perflow = perflowClient(cli.harness.client, config);
    const policed = await startConsole({ config, port: 0, agentsDir: agents, perflow, token: TOKEN, allowInlineAgents: true });
    const pwned = join(agents, 'policed-pwned');
    try {
      const agent = { name: 'policed-attack', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: ['{"steps": [], "result": "done"}'] } }, mcp_servers: [{ name: 'p', command: 'sh', args: ['-c', `id > ${pwned}`] }] };
      const refused = await call('POST', '/api/runs', { agent, question: 'x' }, { authorization: `Bearer ${TOKEN}` }, policed.url);
      expect(refused.status).toBe(403);
      expect(refused.json.error).toBe('MCP server "p": command "sh" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_MCP_COMMANDS=sh)');
      const listed = await call('GET', '/api/runs?agent=policed-attack', undefined, { authorization: `Bearer ${TOKEN}` }, policed.url);
      expect(listed.json).toEqual([]);
      expect(existsSync(pwned)).toBe(false);
      // A webhook on a host the workers do not allow: refused, no run, and the listener hears nothing.
      const heard: string[] = [];
      const listener = createServer((req, res) => {
        heard.push(req.url ?? '');
        res.end();
      });
      await new Promise<void>((ok) => listener.listen(0, '127.0.0.1', ok));
      try {
        const hooked = await call('POST', '/api/runs', { agent: 'adder.json', question: 'x', webhook: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/steal` }, { authorization: `Bearer ${TOKEN}` }, policed.url);
        expect(hooked.status).toBe(403);
        expect(hooked.json.error).toBe('webhook: host "127.0.0.1" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=127.0.0.1)');
        await new Promise((r) => setTimeout(r, 500));
        expect(heard).toEqual([]);
      } finally {
        listener.close();
      }
    } finally {
      await policed.close();
      await perflow.close();
    }
  });

  it('bounds bodies (413), texts (400 naming the field) and event streams (429)', async () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const big = await call('POST', '/api/runs', { agent: 'adder.json', question: 'x'.repeat(2 * 1024 * 1024) }, bearer, guarded.url);
    expect([big.status, big.json.error]).toEqual([413, 'the request body is larger than 1048576 bytes (1 MiB)']);
    const long = await call('POST', '/api/runs', { agent: 'adder.json', question: 'x'.repeat(20_001) }, bearer, guarded.url);
    expect([long.status, long.json.error]).toEqual([400, expect.stringMatching(/^bad request body: question: /)]);
    for (const [body, field] of [
      [{ kind: 'guide', text: 'g'.repeat(10_001) }, 'text'],
      [{ kind: 'reject', reason: 'r'.repeat(2_001) }, 'reason'],
      [{ kind: 'approve', steps: ['s'.repeat(2_001)] }, 'steps.0'],
      [{ kind: 'approve', steps: Array.from({ length: 101 }, () => 's') }, 'steps'],
    ] as const) {
      const r = await call('POST', '/api/runs/any/decisions', body, bearer, guarded.url);
      expect([r.status, r.json.error]).toEqual([400, expect.stringMatching(new RegExp(`^bad request body: ${field.replace('.', '\\.')}: `))]);
    }

    // A run that stays open (its plan waits), watched by as many streams as the console serves.
    const started = await call('POST', '/api/runs', { agent: 'adder.json', question: 'held', params: { plan_approval: 'first' } }, bearer, guarded.url);
    const id = started.json.workflow_id as string;
    const open: Response[] = [];
    try {
      for (let i = 0; i < 2; i++) open.push(await fetch(`${guarded.url}/api/runs/${id}/events`, { headers: bearer }));
      expect(open.map((r) => r.status)).toEqual([200, 200]);
      const third = await call('GET', `/api/runs/${id}/events`, undefined, bearer, guarded.url);
      expect([third.status, third.json.error]).toEqual([429, 'this console serves at most 2 event streams at once: close one and retry']);
      await open.shift()!.body!.cancel();
      const again = await waitFor('a stream slot', async () => fetch(`${guarded.url}/api/runs/${id}/events`, { headers: bearer }), (r) => r.status === 200 || (void r.body?.cancel(), false));
      open.push(again);
    } finally {
      for (const r of open) await r.body?.cancel();
      await cli.harness.client.workflow.getHandle(id).terminate('test cleanup').catch(() => undefined);
    }
  });

  it('reads memory and evals through its one MongoDB client', async () => {
    // The connects of the memory reads (the worker of this process may open clients of its own meanwhile).
    const original = MongoClient.prototype.connect;
    const stacks: string[] = [];
    const connects = jest.spyOn(MongoClient.prototype, 'connect').mockImplementation(function (this: MongoClient) {
      stacks.push(new Error().stack ?? '');
      return original.call(this);
    });
    try {
      const bearer = { authorization: `Bearer ${TOKEN}` };
      for (let i = 0; i < 3; i++) {
        expect((await call('GET', `/api/memory/no-such-memory-${i}`, undefined, bearer, guarded.url)).status).toBe(404);
        expect((await call('GET', '/api/evals', undefined, bearer, guarded.url)).status).toBe(200);
      }
      // The console's client connected once, when it started: no request opens another.
      expect(stacks.filter((stack) => /client[\\/]stores\.ts/.test(stack))).toEqual([]);
    } finally {
      connects.mockRestore();
    }
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

describe('tenant tokens (perflow console --tokens FILE)', () => {
  const ACME = 'token-of-tenant-acme-0001';
  const BETA = 'token-of-tenant-beta-0002';
  const OPS = 'token-of-the-operator-0003';
  let scoped: ConsoleServer;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const callAs = (token: string, method: string, path: string, body?: unknown) => call(method, path, body, as(token), scoped.url);

  beforeAll(async () => {
    const file = join(agents, '..', `tokens-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ [ACME]: { tenant: 'acme' }, [BETA]: { tenant: 'beta' }, [OPS]: { tenant: '*' } }));
    const { perflow } = cli.harness;
    scoped = await startConsole({ config: perflow.config, port: 0, agentsDir: agents, perflow, tokens: await readTokenScopes(file) });
    rmSync(file);
  });
  afterAll(async () => {
    await scoped?.close();
  });

  it("a tenant lists, shows and changes only its own schedules; another's answers as an unknown one does; the operator sees both", async () => {
    const { perflow } = cli.harness;
    const agent = agentFromJson(typedAgent('plan_execute_and_reflect', 1), 'adder.json');
    const ids = { acme: `acme-nightly-${process.pid}`, beta: `beta-nightly-${process.pid}` };
    // Paused, hourly: nothing fires while the test looks at them.
    await createSchedule(perflow, { id: ids.acme, agent, question: 'the nightly sum', every: '1h', tenant: 'acme', paused: true, note: 'set up paused' });
    await createSchedule(perflow, { id: ids.beta, agent, question: 'the nightly sum', every: '1h', tenant: 'beta', paused: true });
    try {
      const listed = await waitFor('both schedules listed', () => callAs(OPS, 'GET', '/api/schedules'), (r) => [ids.acme, ids.beta].every((id) => (r.json as Array<{ id: string }>).some((x) => x.id === id)));
      expect((listed.json as Array<{ id: string; tenant?: string }>).filter((x) => Object.values(ids).includes(x.id)).map((x) => [x.id, x.tenant])).toEqual(expect.arrayContaining([[ids.acme, 'acme'], [ids.beta, 'beta']]));
      const mine = (await callAs(ACME, 'GET', '/api/schedules')).json as Array<{ id: string; paused: boolean; note?: string; next_runs: string[] }>;
      expect(mine.map((x) => x.id)).toContain(ids.acme);
      expect(mine.map((x) => x.id)).not.toContain(ids.beta);
      expect(mine.find((x) => x.id === ids.acme)).toMatchObject({ paused: true, note: 'set up paused' });

      // Beta's, asked for by acme: 404 for each route, and nothing changed.
      for (const [method, path] of [['GET', ''], ['POST', '/unpause'], ['POST', '/trigger'], ['DELETE', '']] as const) {
        const r = await callAs(ACME, method, `/api/schedules/${ids.beta}${path}`);
        expect([method, path, r.status, r.json.error]).toEqual([method, path, 404, expect.stringMatching(new RegExp(`^no schedule ${ids.beta} in namespace `))]);
      }
      expect((await callAs(BETA, 'GET', `/api/schedules/${ids.beta}`)).json).toMatchObject({ id: ids.beta, paused: true, actions_taken: 0 });

      // Acme's own: unpaused and paused again with a note, then deleted.
      expect((await callAs(ACME, 'POST', `/api/schedules/${ids.acme}/unpause`)).json).toMatchObject({ paused: false });
      const paused = await callAs(ACME, 'POST', `/api/schedules/${ids.acme}/pause`, { note: 'holiday week' });
      expect(paused.json).toMatchObject({ id: ids.acme, paused: true, note: 'holiday week', tenant: 'acme' });
      expect((await callAs(ACME, 'POST', `/api/schedules/${ids.acme}/pause`, { note: 7 })).status).toBe(400);
      expect((await callAs(ACME, 'DELETE', `/api/schedules/${ids.acme}`)).json).toEqual({ id: ids.acme, deleted: true });
      expect((await callAs(OPS, 'GET', `/api/schedules/${ids.acme}`)).status).toBe(404);
    } finally {
      for (const id of Object.values(ids)) await deleteSchedule(perflow, id).catch(() => undefined);
    }
  });

  it("a tenant sees and acts on its own runs and memory only (another's answer as unknown ones do); its runs are its own whatever tenant_id they name; the operator sees all", async () => {
    expect((await callAs('token-nobody-has-000000', 'GET', '/api/runs')).status).toBe(401);
    expect((await callAs(ACME, 'GET', '/api/info')).json).toMatchObject({ token_required: true, tenant: 'acme' });
    expect((await callAs(OPS, 'GET', '/api/info')).json).toMatchObject({ tenant: null });

    // Started with acme's token, naming beta: the run is acme's.
    const started = await callAs(ACME, 'POST', '/api/runs', { agent: 'adder.json', question: 'add for acme', params: { tenant_id: 'beta' } });
    expect(started.status).toBe(201);
    const id: string = started.json.workflow_id;
    await cli.harness.client.workflow.getHandle(id).result();
    expect((await cli.harness.client.workflow.getHandle(id).describe()).memo?.tenant_id).toBe('acme');

    // beta: 404 everywhere, in the words an unknown run gets.
    const unknown = await callAs(BETA, 'GET', '/api/runs/no-such-run');
    expect(unknown.status).toBe(404);
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/runs/${id}`],
      ['GET', `/api/runs/${id}/result`],
      ['GET', `/api/runs/${id}/events`],
      ['POST', `/api/runs/${id}/decisions`, { kind: 'pause' }],
      ['POST', `/api/runs/${id}/fork`, { from_step: 1 }],
      ['GET', `/api/diff?a=${id}&b=${id}`],
    ];
    for (const [method, path, body] of routes) {
      const r = await callAs(BETA, method, path, body);
      expect([method, path, r.status, r.json.error]).toEqual([method, path, 404, unknown.json.error.replace('no-such-run', id)]);
    }
    const memory = await callAs(BETA, 'GET', `/api/memory/${started.json.memory_id}?tenant=acme`);
    expect([memory.status, memory.json.error]).toEqual([404, `memory_id ${started.json.memory_id} not found for tenant beta`]);
    expect((await callAs(BETA, 'GET', '/api/runs')).json.map((r: Json) => r.workflow_id)).not.toContain(id);
    expect((await callAs(BETA, 'GET', '/api/runs?tenant=acme')).json).toEqual([]);

    // A second message from beta to acme's busy conversation, as an interruption: acme's run goes on untouched.
    const held = await callAs(ACME, 'POST', '/api/runs', { agent: 'adder.json', question: 'held for acme', params: { plan_approval: 'first' } });
    const heldId: string = held.json.workflow_id;
    await waitFor('acme run to wait', () => callAs(ACME, 'GET', `/api/runs/${heldId}`), (r) => r.json.status === 'awaiting_approval');
    const intruder = await callAs(BETA, 'POST', '/api/runs', { agent: 'adder.json', question: 'stop it', params: { memory_id: held.json.memory_id }, on_busy: 'interrupt' });
    const stillWaiting = await callAs(ACME, 'GET', `/api/runs/${heldId}`);
    expect([stillWaiting.json.status, stillWaiting.json.interrupted_by]).toEqual(['awaiting_approval', undefined]);
    expect((await cli.harness.client.workflow.getHandle(heldId).describe()).status.name).toBe('RUNNING');
    if (intruder.status === 201) await cli.harness.client.workflow.getHandle(intruder.json.workflow_id).result().catch(() => undefined); // refused by the worker: another tenant's memory
    await cli.harness.client.workflow.getHandle(heldId).terminate('test cleanup');

    // acme and the operator see it; the operator's fork into another tenant is refused (a fork never crosses tenants).
    const listed = await waitFor('the run in acme\'s list', () => callAs(ACME, 'GET', '/api/runs'), (r) => r.json.some((x: Json) => x.workflow_id === id));
    expect(listed.json.length).toBeGreaterThan(0);
    expect((await callAs(ACME, 'GET', `/api/memory/${started.json.memory_id}`)).status).toBe(200);
    expect((await callAs(OPS, 'GET', `/api/runs/${id}`)).json).toMatchObject({ workflow_id: id, status: 'completed' });
    expect((await callAs(OPS, 'GET', '/api/runs')).json.map((r: Json) => r.workflow_id)).toContain(id);
    const crossing = await callAs(OPS, 'POST', `/api/runs/${id}/fork`, { from_step: 2, params: { tenant_id: 'beta' } });
    expect([crossing.status, crossing.json.error]).toEqual([403, `a fork stays in its source's tenant (acme): tenant_id "beta" would copy ${id}'s steps into another tenant's memory`]);
  });

  it("a tenant's evals are its own: their cases run in its tenant; another tenant gets 404 and does not list them", async () => {
    writeFileSync(join(agents, 'tenant-sums.json'), JSON.stringify({ name: 'tenant sums', agent: 'adder.json', params: { tenant_id: 'beta' }, cases: [{ id: 'sum', question: 'add', checks: [{ contains: 'total' }] }] }));
    const started = await callAs(ACME, 'POST', '/api/evals', { suite: 'tenant-sums.json' });
    expect(started.status).toBe(201);
    const evalId: string = started.json.eval_id;
    await cli.harness.client.workflow.getHandle(evalId).result();
    expect((await cli.harness.client.workflow.getHandle(`${evalId}-sum`).describe()).memo?.tenant_id).toBe('acme');
    expect((await callAs(ACME, 'GET', `/api/evals/${evalId}`)).json).toMatchObject({ eval_id: evalId, status: 'completed' });
    expect((await callAs(ACME, 'GET', '/api/evals')).json.map((e: Json) => e.eval_id)).toContain(evalId);
    expect((await callAs(OPS, 'GET', '/api/evals')).json.map((e: Json) => e.eval_id)).toContain(evalId);
    const other = await callAs(BETA, 'GET', `/api/evals/${evalId}`);
    expect([other.status, other.json.error]).toEqual([404, `no eval ${evalId}`]);
    expect((await callAs(BETA, 'GET', `/api/evals/compare?a=${evalId}&b=${evalId}`)).status).toBe(404);
    expect((await callAs(BETA, 'GET', '/api/evals')).json.map((e: Json) => e.eval_id)).not.toContain(evalId);
    expect((await callAs(BETA, 'GET', `/api/runs/${evalId}-sum`)).status).toBe(404);
  });
});

describe('AG-UI (POST /api/ag-ui/AGENT, GET /api/runs/:id/ag-ui)', () => {
  // The example agent tree, offered by a console of its own.
  let tree: ConsoleServer;
  let treeAgents: string;
  beforeAll(async () => {
    treeAgents = mkdtempSync(join(tmpdir(), 'perflow-ag-ui-agents-'));
    for (const f of ['supervisor', 'researcher', 'accountant']) copyFileSync(join(__dirname, '../../examples/multi-agent', `${f}.json`), join(treeAgents, `${f}.json`));
    tree = await startConsole({ config: cli.harness.perflow.config, port: 0, agentsDir: treeAgents, perflow: cli.harness.perflow, token: TOKEN });
  });
  afterAll(async () => {
    await tree?.close();
    rmSync(treeAgents, { recursive: true, force: true });
  });

  const agentOf = (agent: string, threadId: string) => new HttpAgent({ url: `${tree.url}/api/ag-ui/${agent}`, headers: { authorization: `Bearer ${TOKEN}` }, threadId });

  /** An AG-UI client's run: every event it received, and what it made of them. */
  async function runWith(agent: HttpAgent, question: string): Promise<{ events: BaseEvent[]; result: Json; messages: Message[] }> {
    agent.addMessage({ id: randomUUID(), role: 'user', content: question });
    const events: BaseEvent[] = [];
    const { result } = await agent.runAgent({ runId: randomUUID() }, { onEvent: ({ event }) => void events.push(event) });
    return { events, result, messages: agent.messages };
  }

  it("HttpAgent follows a tree's run to RUN_FINISHED: its text messages and tool calls are what watch --json shows", async () => {
    const thread = `trip-${randomUUID()}`;
    const { events, result, messages } = await runWith(agentOf('supervisor', thread), 'What does the trip cost?');
    expect(events[0].type).toBe('RUN_STARTED');
    expect(events.at(-1)!.type).toBe('RUN_FINISHED');
    expect(result).toMatchObject({ response: expect.stringMatching(/^The trip costs 445/), memory_id: thread });
    const id = result.workflow_id as string;

    // What watch --json shows of the same tree.
    const watched = (await cli.perflow(['watch', id, '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as RunEvent);
    const owner = (e: { run?: string }) => e.run ?? id;
    const texts = new Map<string, string>();
    for (const e of watched) if (e.type === 'model_delta') texts.set(`${owner(e)}#${e.call}`, (texts.get(`${owner(e)}#${e.call}`) ?? '') + e.text);
    const agUiTexts = new Map<string, string>();
    for (const e of events as Json[]) if (e.type === 'TEXT_MESSAGE_CONTENT') agUiTexts.set(e.messageId, (agUiTexts.get(e.messageId) ?? '') + e.delta);
    expect(agUiTexts.get(`${id}#response`)).toBe(result.response);
    agUiTexts.delete(`${id}#response`);
    expect(agUiTexts).toEqual(texts);
    const toolCalls = watched.flatMap((e) => (e.type === 'tool_call' ? [[`${owner(e)}#${e.call}`, e.tool, e.input]] : []));
    const starts = (events as Json[]).filter((e) => e.type === 'TOOL_CALL_START');
    const args = new Map((events as Json[]).filter((e) => e.type === 'TOOL_CALL_ARGS').map((e) => [e.toolCallId, e.delta]));
    expect(starts.map((e) => [e.toolCallId, e.toolCallName, args.get(e.toolCallId)])).toEqual(toolCalls);
    // (Each run's events keep their order; runs live side by side interleave as they happened.)
    const byId = (a: string[], b: string[]) => a[0].localeCompare(b[0]);
    const results = (events as Json[]).filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => [e.toolCallId, e.content]);
    expect(results.sort(byId)).toEqual(watched.flatMap((e) => (e.type === 'tool_result' ? [[`${owner(e)}#${e.call}`, e.output]] : [])).sort(byId));
    // The sub-agents: started under the tool call that called them, each event of theirs marked.
    const subagents = (events as Json[]).filter((e) => e.type === 'SUBAGENT_STARTED');
    expect(subagents.map((e) => [e.subagentRunId.slice(id.length), e.name, e.parentToolCallId.slice(id.length), e.parentSubagentRunId?.slice(id.length)])).toEqual([
      ['/step-1/agent-1', 'trip-researcher', '#tool:0:0', undefined],
      ['/step-1/agent-1/step-1/agent-1', 'trip-accountant', '/step-1/agent-1#tool:0:0', '/step-1/agent-1'],
      ['/step-2/agent-1', 'trip-accountant', '#tool:1:0', undefined],
    ]);
    const finished = (events as Json[]).filter((e) => e.type === 'SUBAGENT_FINISHED').map((e) => e.subagentRunId as string);
    expect([...finished].sort()).toEqual(subagents.map((e) => e.subagentRunId as string).sort());
    expect(finished.indexOf(subagents[1].subagentRunId)).toBeLessThan(finished.indexOf(subagents[0].subagentRunId));
    // The client's own view: the question, then the assistant's messages with their tool calls, the answer last.
    expect(messages[0]).toMatchObject({ role: 'user', content: 'What does the trip cost?' });
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: result.response });
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(results.length);

    // Followed again from an offset: the same run's events from there (the AG-UI stream opens and closes as always).
    const res = await fetch(`${tree.url}/api/runs/${encodeURIComponent(id)}/ag-ui?from=3`, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const replayed = (await res.text()).split('\n\n').filter((b) => b.startsWith('data:')).map((b) => JSON.parse(b.slice('data:'.length)) as Json);
    expect(replayed[0]).toMatchObject({ type: 'RUN_STARTED', threadId: thread, runId: id });
    expect(replayed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { response: result.response } });
    expect(replayed.filter((e) => e.type === 'TOOL_CALL_START').map((e) => e.toolCallId)).toEqual(starts.map((e) => e.toolCallId));
  });

  it('a thread is a conversation: a second run on it continues its memory', async () => {
    const thread = `sums-${randomUUID()}`;
    const agent = agentOf('accountant', thread);
    const first = await runWith(agent, 'What is 3*120+85?');
    // RUN_FINISHED comes once Temporal has closed the run, so the thread takes its next message at once (on-busy reject).
    expect((await cli.harness.client.workflow.getHandle(first.result.workflow_id as string).describe()).status.name).toBe('COMPLETED');
    const second = await runWith(agent, 'And once more?');
    expect([first.result.memory_id, second.result.memory_id]).toEqual([thread, thread]);
    expect(second.result.workflow_id).not.toBe(first.result.workflow_id);
    const memory = await fetch(`${tree.url}/api/memory/${thread}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await memory.json()) as Json).runs.map((r: Json) => r.question)).toEqual(['What is 3*120+85?', 'And once more?']);
  });

  it('refuses what is not a RunAgentInput with a user message, an agent it does not offer, a bad thread ID, no token and other sites', async () => {
    const post = (agent: string, body: unknown, headers: Record<string, string> = {}) => call('POST', `/api/ag-ui/${agent}`, body, { authorization: `Bearer ${TOKEN}`, ...headers }, tree.url);
    const input = (over: Record<string, unknown> = {}) => ({ threadId: 't-1', runId: 'r-1', state: {}, messages: [{ id: 'm', role: 'user', content: 'What is 1+1?' }], tools: [], context: [], forwardedProps: {}, ...over });
    expect(await post('accountant', input({ messages: [] }))).toEqual({ status: 400, json: { error: 'messages hold no user message with text: the last one is the question' } });
    expect(await post('accountant', { question: 'x' })).toMatchObject({ status: 400, json: { error: expect.stringMatching(/^the body is not an AG-UI RunAgentInput: /) } });
    expect(await post('nobody', input())).toMatchObject({ status: 400, json: { error: expect.stringContaining('"nobody.json" is not one of the console\'s agent files') } });
    expect(await post('accountant', input({ threadId: '../../etc' }))).toMatchObject({ status: 400, json: { error: expect.stringContaining('threadId "../../etc" cannot name a conversation') } });
    expect((await post('accountant', input(), { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await post('accountant', input(), { origin: 'http://evil.example' })).status).toBe(403);
  });
});
