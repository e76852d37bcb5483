/**
 * A2A push notifications of `perflow a2a`, with the A2A SDK's own client: a receiver on loopback
 * that is down (503) for the first attempts still gets every notification of the task (WORKING …
 * the completed task), each POST resent with the same body, with the credentials the config named
 * and no Standard Webhooks signature; a config's Create/Get/List/Delete; receivers on hosts the
 * worker policy does not allow (another name, an IPv4-mapped IPv6 address of the same listener)
 * refused with nothing stored or sent; a worker SIGKILLed while deliveries wait for their retry
 * loses none; a restarted server resumes a task's notifications from where it stopped; a task
 * waiting for input announces it, with the decision, and goes on announcing once answered — its
 * worker SIGKILLed while it waits, a fresh one finishing it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type Part, type StreamResponse, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { serveA2a, type A2aServer } from '../../../a2a/http';
import { PUSH_CONFIGS_COLLECTION } from '../../../a2a/push-configs';
import { offeredAgents } from '../../../mcp/agent-tools';
import { OPERATOR } from '../../../client/tenant-scope';
import { useWorkerProcess } from '../../support/spawn-worker';
import { ONE_STEP_SCRIPT } from '../../support/script';

jest.setTimeout(180_000);

// The worker process's policy and this server's view of it (both read PERFLOW_ALLOW_HOSTS).
const saved = process.env.PERFLOW_ALLOW_HOSTS;
process.env.PERFLOW_ALLOW_HOSTS = '127.0.0.1';
afterAll(() => {
  if (saved === undefined) delete process.env.PERFLOW_ALLOW_HOSTS;
  else process.env.PERFLOW_ALLOW_HOSTS = saved;
});

// Declared before the worker fixture, so it runs first (jest runs afterAll hooks in order): the server lets go of Temporal before its connection closes.
afterAll(async () => {
  await server?.close();
  await new Promise<void>((r) => receiver?.close(() => r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});
const workers = useWorkerProcess('a2a-push');
const TOKEN = 'push-test-token-0123456789abcdef';
/** A caller of tenant globex: it sees none of the operator's tasks (the tests' tasks have no tenant). */
const TOKEN_GLOBEX = 'push-test-globex-0123456789abcdef';
const RETRY = { initial_interval_ms: 500, retry_for_ms: 90_000 };

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** The receiver: every POST recorded with what it was answered; a path listed in `down` answers 503. */
const hits: Hit[] = [];
const down = new Set<string>();
let receiver: Server | undefined;
let port = 0;
let dir = '';
let server: A2aServer | undefined;

const start = async () => {
  const agents = await offeredAgents(join(dir, 'agents'));
  server = await serveA2a({ perflow: workers.perflow, agents, agentsDir: join(dir, 'agents'), port: 0, tokens: [
      { token: TOKEN, scope: OPERATOR },
      { token: TOKEN_GLOBEX, scope: { tenant: 'globex' } },
    ], pushRetry: RETRY });
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const answered = down.has(path) ? 503 : 200;
      hits.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      res.statusCode = answered;
      res.end();
    });
  });
  const listening = receiver;
  await new Promise<void>((r) => listening.listen(0, '127.0.0.1', r));
  port = (listening.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), 'perflow-a2a-push-'));
  mkdirSync(join(dir, 'agents'));
  const agent = (name: string, extra: Record<string, unknown> = {}) =>
    writeFileSync(join(dir, 'agents', `${name}.json`), JSON.stringify({ name, type: 'plan_execute_and_reflect', description: `The ${name} agent.`, llm: { interface: 'scripted', script: ONE_STEP_SCRIPT }, ...extra }));
  // Names of their own: ListTasks of a2a.test.ts (by agent name, namespace-wide) must not see these tasks.
  agent('pushed');
  agent('pushed-reviewed', { parameters: { plan_approval: 'first' } });
  await workers.restart();
  await start();
});
async function a2aClient(agent = 'pushed', token = TOKEN): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
  return factory.createFromUrl(server!.url, `/a2a/${agent}/.well-known/agent-card.json`);
}

const text = (t: string): Part => ({ content: { $case: 'text', value: t }, mediaType: 'text/plain', filename: '', metadata: {} });

function message(question: string, push?: TaskPushNotificationConfig, returnImmediately = false, on: { taskId?: string; contextId?: string } = {}) {
  return {
    tenant: '',
    message: { messageId: randomUUID(), contextId: on.contextId ?? '', taskId: on.taskId ?? '', role: Role.ROLE_USER, parts: [text(question)], metadata: {}, extensions: [], referenceTaskIds: [] },
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: push, returnImmediately },
    metadata: {},
  };
}

const config = (id: string, path: string, o: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig => ({ tenant: '', id, taskId: '', url: `http://127.0.0.1:${port}${path}`, token: '', authentication: undefined, ...o });

/** The state a notification announces (a status update's, or the final task's). */
function stateOf(body: string): TaskState | undefined {
  const r = StreamResponseFromJson(body);
  return r.payload?.$case === 'task' ? r.payload.value.status?.state : r.payload?.$case === 'statusUpdate' ? r.payload.value.status?.state : undefined;
}
const StreamResponseFromJson = (body: string): StreamResponse => {
  // The SDK's own decoder: what a receiver using it reads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { StreamResponse: codec } = require('@a2a-js/sdk') as typeof import('@a2a-js/sdk');
  return codec.fromJSON(JSON.parse(body));
};

/** The collection of push configs in the worker's database. */
const configs = async () => (await workers.perflow.mongo()).db(new URL(workers.perflow.config.mongoUri).pathname.slice(1)).collection(PUSH_CONFIGS_COLLECTION);

const at = (path: string) => hits.filter((h) => h.path === path);
const delivered = (path: string) => at(path).filter((h) => h.answered === 200);

async function until<T>(what: string, get: () => T | Promise<T>, ok: (v: T) => boolean, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every body answered 503 is delivered again, the same (each notification retries on its own: waited for), and none twice. */
async function expectEachDeliveredOnce(path: string): Promise<string[]> {
  const refusedOnly = () => {
    const ok = new Set(delivered(path).map((h) => h.body));
    return at(path).filter((h) => h.answered !== 200 && !ok.has(h.body));
  };
  await until(`every refused notification at ${path} delivered`, refusedOnly, (left) => left.length === 0);
  const ok = delivered(path).map((h) => h.body);
  expect(new Set(ok).size).toBe(ok.length);
  return ok;
}

describe('perflow a2a push notifications', () => {
  it('delivers every status change to a receiver that is down at first, resent unchanged, with its credentials', async () => {
    const client = await a2aClient();
    down.add('/down');
    const sent = await client.sendMessage(message('Push it', config('cfg-1', '/down', { authentication: { scheme: 'Bearer', credentials: 'receiver-secret-1' } })));
    const taskId = (sent as { id: string }).id;
    expect((sent as { status?: { state?: TaskState } }).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await until('a refused attempt of each notification', () => new Set(at('/down').map((h) => stateOf(h.body))), (s) => s.has(TaskState.TASK_STATE_COMPLETED));
    down.delete('/down');
    const bodies = await until('the final task delivered', () => delivered('/down').map((h) => h.body), (b) => b.some((x) => stateOf(x) === TaskState.TASK_STATE_COMPLETED));
    const ok = await expectEachDeliveredOnce('/down');
    expect(ok.map(stateOf)).toContain(TaskState.TASK_STATE_WORKING);
    expect(at('/down').filter((h) => h.answered === 503).length).toBeGreaterThan(0);
    // The final notification is the whole task, with its answer.
    const final = StreamResponseFromJson(bodies.find((b) => stateOf(b) === TaskState.TASK_STATE_COMPLETED)!);
    expect(final.payload?.$case === 'task' && final.payload.value.id).toBe(taskId);
    expect(final.payload?.$case === 'task' && final.payload.value.artifacts.length).toBe(1);
    for (const h of at('/down')) {
      expect(h.headers['content-type']).toBe('application/a2a+json');
      expect(h.headers.authorization).toBe('Bearer receiver-secret-1');
      expect(h.headers['webhook-signature']).toBeUndefined();
    }
    // Each notification is one delivery workflow, named by the config and the stream offset.
    const ids = [];
    for await (const w of workers.client.workflow.list({ query: `WorkflowId STARTS_WITH '${taskId}/a2a-push/cfg-1/'` })) ids.push(w.workflowId);
    expect(ids).toHaveLength(ok.length);
    // Another tenant can neither read, list, replace nor delete it.
    const globex = await a2aClient('pushed', TOKEN_GLOBEX);
    await expect(globex.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'cfg-1' })).rejects.toThrow(/not found/i);
    await expect(globex.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).rejects.toThrow(/not found/i);
    await expect(globex.createTaskPushNotificationConfig(config('cfg-1', '/stolen', { taskId }))).rejects.toThrow(/not found/i);
    await expect(globex.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: 'cfg-1' })).rejects.toThrow(/not found/i);
    // The config is read back, listed and deleted through the SDK's client.
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'cfg-1' })).toMatchObject({ id: 'cfg-1', taskId, url: `http://127.0.0.1:${port}/down` });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual(['cfg-1']);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: 'cfg-1' });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  });

  it('refuses a receiver on a host the policy does not allow: nothing stored, nothing sent', async () => {
    const client = await a2aClient();
    const stored = async () => (await configs()).countDocuments({ url: { $regex: 'evil' } });
    // Another name for this machine, and the same listener as an IPv4-mapped IPv6 address.
    for (const url of [`http://localhost:${port}/evil`, `http://[::ffff:127.0.0.1]:${port}/evil`]) {
      await expect(client.sendMessage(message('Push elsewhere', config('evil', '/evil', { url }), true))).rejects.toThrow(/push notification config: host .* is not allowed/);
    }
    const task = (await client.sendMessage(message('No push', undefined, true))) as { id: string };
    await expect(client.createTaskPushNotificationConfig(config('evil', '/evil', { taskId: task.id, url: `http://[::ffff:127.0.0.1]:${port}/evil` }))).rejects.toThrow(/is not allowed/);
    await expect(client.createTaskPushNotificationConfig(config('evil', '/evil', { taskId: task.id, url: `file:///etc/passwd` }))).rejects.toThrow(/http\(s\)/);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(at('/evil')).toEqual([]);
    expect(await stored()).toBe(0);
  });

  it('loses no notification when the worker is SIGKILLed while deliveries wait, nor when the server restarts', async () => {
    const client = await a2aClient();
    down.add('/kill');
    // Created on a task already started (the Create method), with a token only: sent as X-A2A-Notification-Token.
    const task = (await client.sendMessage(message('Push through a crash', undefined, true))) as { id: string };
    await client.createTaskPushNotificationConfig(config('cfg-kill', '/kill', { taskId: task.id, token: 'tok-kill' }));
    await until('the final notification refused once', () => at('/kill').map((h) => stateOf(h.body)), (s) => s.includes(TaskState.TASK_STATE_COMPLETED));
    // Let the failed attempts be recorded, then kill the worker and restart the server while every delivery waits to retry.
    await new Promise((r) => setTimeout(r, 300));
    await workers.restart();
    await server!.close();
    await start();
    down.delete('/kill');
    await until('the final task delivered', () => delivered('/kill').map((h) => stateOf(h.body)), (s) => s.includes(TaskState.TASK_STATE_COMPLETED));
    const ok = await expectEachDeliveredOnce('/kill');
    expect(ok.map(stateOf)).toContain(TaskState.TASK_STATE_WORKING);
    for (const h of at('/kill')) {
      expect(h.headers['x-a2a-notification-token']).toBe('tok-kill');
      expect(h.headers.authorization).toBeUndefined();
    }
  });

  it('resumes after a restart from the offset recorded: the rest is sent, what was started is not started again', async () => {
    const client = await a2aClient();
    const sent = (await client.sendMessage(message('Push then restart', config('cfg-resume', '/resume')))) as { id: string };
    await until('the final task delivered', () => delivered('/resume').map((h) => stateOf(h.body)), (s) => s.includes(TaskState.TASK_STATE_COMPLETED));
    const working = StreamResponseFromJson(delivered('/resume').find((h) => stateOf(h.body) === TaskState.TASK_STATE_WORKING)!.body);
    const offset = working.payload?.$case === 'statusUpdate' ? (working.payload.value.metadata?.perflow as { offset: number }).offset : -1;
    expect(offset).toBeGreaterThanOrEqual(0);
    // As a server stopped after the WORKING notification left: one config whose end was already started, one whose end never was.
    const c = await configs();
    await c.updateMany({ task_id: sent.id, config_id: 'cfg-resume' }, { $set: { offset, state: TaskState.TASK_STATE_WORKING, done: false } });
    const late = await c.findOne({ task_id: sent.id, config_id: 'cfg-resume' });
    await c.insertOne({ ...late!, _id: JSON.stringify([null, sent.id, 'cfg-late']) as never, config_id: 'cfg-late', url: `http://127.0.0.1:${port}/late` });
    const before = at('/resume').length;
    await server!.close();
    await start();
    await until('the late config done', async () => (await c.findOne({ task_id: sent.id, config_id: 'cfg-late' }))?.done, (d) => d === true);
    await until('the resumed config done', async () => (await c.findOne({ task_id: sent.id, config_id: 'cfg-resume' }))?.done, (d) => d === true);
    await until('the late receiver notified', () => delivered('/late').length, (n) => n >= 1);
    expect(delivered('/late').map((h) => stateOf(h.body))).toEqual([TaskState.TASK_STATE_COMPLETED]);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(at('/resume').length).toBe(before);
  });

  it('announces INPUT_REQUIRED with the decision it waits for, then WORKING again and the end once answered, across a worker SIGKILL mid-run', async () => {
    const client = await a2aClient('pushed-reviewed');
    const waiting = (await client.sendMessage(message('Review my plan', config('cfg-input', '/input', { authentication: { scheme: 'Basic', credentials: 'dXNlcjpwdw==' } })))) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = await until('INPUT_REQUIRED notified', () => delivered('/input').find((h) => stateOf(h.body) === TaskState.TASK_STATE_INPUT_REQUIRED), (h) => h !== undefined);
    const update = StreamResponseFromJson(asked!.body).payload;
    const parts = update?.$case === 'statusUpdate' ? (update.value.status?.message?.parts ?? []) : [];
    expect(parts.find((p) => p.content?.$case === 'data')?.content?.value).toMatchObject({ choices: ['approve', 'reject'], pending: { kind: 'plan' } });
    // The worker is SIGKILLed mid-run, while the task waits: a fresh one finishes it once answered.
    await workers.restart();
    await client.sendMessage(message('approve', undefined, false, { taskId: waiting.id, contextId: waiting.contextId }));
    await until('the end notified', () => delivered('/input').map((h) => stateOf(h.body)), (s) => s.includes(TaskState.TASK_STATE_COMPLETED));
    // In stream order (the final task last): what follows the question.
    const ordered = delivered('/input')
      .map((h) => StreamResponseFromJson(h.body).payload)
      .map((p) => ({ state: p?.$case === 'task' ? p.value.status?.state : p?.$case === 'statusUpdate' ? p.value.status?.state : undefined, offset: p?.$case === 'statusUpdate' ? (p.value.metadata?.perflow as { offset: number }).offset : Infinity }))
      .sort((a, b) => a.offset - b.offset)
      .map((n) => n.state);
    expect(ordered.slice(ordered.indexOf(TaskState.TASK_STATE_INPUT_REQUIRED))).toEqual([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    expect(at('/input').every((h) => h.headers.authorization === 'Basic dXNlcjpwdw==')).toBe(true);
  });
});
