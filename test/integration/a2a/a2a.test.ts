/**
 * `perflow a2a` with the A2A SDK's own clients (v1.0 JSON-RPC and HTTP+JSON through ClientFactory,
 * and the v0.3 compat transports): the cards, a task answered blocking, at once and streamed, read back and
 * listed, a second message continuing the conversation, an approval answered through
 * INPUT_REQUIRED, a stream re-attached after a drop (no update lost, none twice), a cancel, a
 * server restarted mid-task, a perflow agent calling one of them as its tool, and the attacks:
 * no token, another tenant's task, a push config, a 2 MiB message — refused with nothing started. Over 300 lines on purpose: one `perflow a2a`
 * process and its tasks are shared by every case.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Role, TaskState, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { readMemory } from '../../../client/memory';
import { progressQuery } from '../../../workflows/definitions';
import { useCli } from '../../support/cli';
import { ONE_STEP_SCRIPT } from '../../support/script';
import { BUILT_CLI_ARGS } from '../../support/package-build';

jest.setTimeout(240_000);

const cli = useCli('a2a');
const TOKEN_A = 'acme-token-0123456789abcdef';
const TOKEN_B = 'globex-token-0123456789abcdef';

let agents: string;
let tokensFile: string;
beforeAll(() => {
  agents = join(cli.dir, 'agents');
  mkdirSync(agents);
  const agent = (name: string, extra: Record<string, unknown> = {}) =>
    writeFileSync(join(agents, `${name}.json`), JSON.stringify({ name, type: 'plan_execute_and_reflect', description: `The ${name} agent.`, llm: { interface: 'scripted', script: ONE_STEP_SCRIPT }, ...extra }));
  agent('plain');
  agent('reviewed', { parameters: { plan_approval: 'first' } });
  agent('typed', { llm: { interface: 'scripted', script: { ...ONE_STEP_SCRIPT, output: ['{"answer": "the answer", "sure": true}'] } }, output_schema: { type: 'object', properties: { answer: { type: 'string' }, sure: { type: 'boolean' } }, required: ['answer'] } });
  tokensFile = join(cli.dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify({ [TOKEN_A]: { tenant: 'acme' }, [TOKEN_B]: { tenant: 'globex' } }));
});

interface Server {
  child: ChildProcess;
  url: string;
  token?: string;
  stop(): Promise<void>;
}

/** `perflow a2a --port 0` as a user starts it, with the URL (and token) it prints. */
async function a2aServer(extra: string[], folder = agents): Promise<Server> {
  const child = spawn(process.execPath, [...BUILT_CLI_ARGS, 'a2a', '--agents', folder, '--port', '0', ...extra], { env: { ...process.env, ...cli.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const printed = await new Promise<{ url: string; token?: string }>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`perflow a2a did not start: ${stderr}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /agents at (http:\/\/\S+)\/a2a\/AGENT/.exec(stderr)?.[1];
      const token = /token (\S+) \(send/.exec(stderr)?.[1];
      if (url && (token || stderr.includes('tokens from') || stderr.includes('the token of --token'))) {
        clearTimeout(timer);
        ready({ url, ...(token ? { token } : {}) });
      }
    });
    child.once('exit', (code) => fail(new Error(`perflow a2a exited ${code}: ${stderr}`)));
  });
  return {
    child,
    ...printed,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGINT');
      await exited;
    },
  };
}

const authed =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

/** The SDK's v1.0 client of one agent, over JSON-RPC or (`rest`) HTTP+JSON only. */
async function v1Client(url: string, token: string, agent = 'plain', binding: 'jsonrpc' | 'rest' = 'jsonrpc'): Promise<Client> {
  const fetchImpl = authed(token);
  const transport = binding === 'rest' ? new RestTransportFactory({ fetchImpl }) : new JsonRpcTransportFactory({ fetchImpl });
  const factory = new ClientFactory({ transports: [transport], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  return factory.createFromUrl(url, `/a2a/${agent}/.well-known/agent-card.json`);
}

/** A request with any `Host` (fetch will not send another), as a rebinding attacker's page would. */
function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end();
  });
}

const text = (t: string): Part => ({ content: { $case: 'text', value: t }, mediaType: 'text/plain', filename: '', metadata: {} });

function message(parts: Part[], o: { contextId?: string; taskId?: string; returnImmediately?: boolean } = {}) {
  return {
    tenant: '',
    message: { messageId: randomUUID(), contextId: o.contextId ?? '', taskId: o.taskId ?? '', role: Role.ROLE_USER, parts, metadata: {}, extensions: [], referenceTaskIds: [] },
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: o.returnImmediately ?? false },
    metadata: {},
  };
}

const asTask = (r: unknown): Task => {
  expect(r).toHaveProperty('status');
  return r as Task;
};
const partsText = (parts: Part[] | undefined) => (parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
const dataOf = (parts: Part[] | undefined) => (parts ?? []).find((p) => p.content?.$case === 'data')?.content?.value as Record<string, unknown> | undefined;
const offsetOf = (e: StreamResponse): number | undefined => {
  const p = e.payload;
  const meta = p?.$case === 'statusUpdate' || p?.$case === 'artifactUpdate' ? (p.value.metadata?.perflow as { offset?: number } | undefined) : undefined;
  return meta?.offset;
};

async function until(client: Client, id: string, state: TaskState): Promise<Task> {
  for (let i = 0; i < 200; i++) {
    const t = await client.getTask({ tenant: '', id });
    if (t.status?.state === state) return t;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`task ${id} never reached state ${state}`);
}

describe('perflow a2a (one token, v1.0 and v0.3 clients)', () => {
  let server: Server;
  let client: Client;
  beforeAll(async () => {
    server = await a2aServer(['--default', 'plain']);
    client = await v1Client(server.url, server.token!);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves each agent\'s card (and the default one at the root): name and description from the file, bearer scheme, JSON-RPC and HTTP+JSON, v1.0 and v0.3', async () => {
    const card = await client.getAgentCard();
    expect(card).toMatchObject({ name: 'plain', description: 'The plain agent.', capabilities: { streaming: true } });
    expect(card.skills.map((s) => s.name)).toEqual(['plain']);
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.url])).toEqual([
      ['JSONRPC', '1.0', `${server.url}/a2a/plain`],
      ['HTTP+JSON', '1.0', `${server.url}/a2a/plain`],
      ['JSONRPC', '0.3', `${server.url}/a2a/plain`],
      ['HTTP+JSON', '0.3', `${server.url}/a2a/plain`],
    ]);
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
    const root = await authed(server.token!)(`${server.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    expect(((await root.json()) as { name: string }).name).toBe('plain');
    const legacy = (await (await authed(server.token!)(`${server.url}/a2a/reviewed/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(legacy).toMatchObject({ protocolVersion: '0.3.0', name: 'reviewed', url: `${server.url}/a2a/reviewed`, preferredTransport: 'JSONRPC' });
  });

  let first: Task;
  it('answers a blocking send with the completed task: the answer and the run\'s IDs as its artifact; a second message on its contextId continues the conversation', async () => {
    first = asTask(await client.sendMessage(message([text('What is the answer?')])));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [artifact] = first.artifacts;
    expect(partsText(artifact.parts)).toBe('the answer');
    expect(dataOf(artifact.parts)).toMatchObject({ status: 'completed', workflow_id: first.id, memory_id: first.contextId, steps_executed: 1 });
    const second = asTask(await client.sendMessage(message([text('And again?')], { contextId: first.contextId })));
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(second.id).not.toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    // The run continued the conversation: the memory holds both exchanges.
    const memory = JSON.stringify(await readMemory(cli.harness.perflow, first.contextId));
    expect(memory).toContain('What is the answer?');
    expect(memory).toContain('And again?');
  });

  it("gives a typed answer's value in the artifact's data part", async () => {
    const typed = await v1Client(server.url, server.token!, 'typed');
    const task = asTask(await typed.sendMessage(message([text('Answer, typed')])));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(task.artifacts[0].parts)).toMatchObject({ status: 'completed', workflow_id: task.id, output: { answer: 'the answer', sure: true } });
  });

  it('is called by a perflow agent whose tool is this agent (A2AAgentTool with a token variable): its answer is the observation', async () => {
    process.env.PERFLOW_TEST_A2A_TOKEN = server.token!;
    try {
      const caller = cli.agentFile('a2a-caller', {
        name: 'a2a-caller',
        type: 'plan_execute_and_reflect',
        llm: { interface: 'scripted', script: { planner: [JSON.stringify({ steps: ['ask the peer'], result: '' }), JSON.stringify({ steps: [], result: 'relayed' })], executor: [[{ tool_calls: [{ name: 'peer', input: { message: 'What is the answer?' } }] }, { content: 'done' }]] } },
        tools: [{ type: 'A2AAgentTool', name: 'peer', parameters: { url: `${server.url}/a2a/plain`, token_env: 'PERFLOW_TEST_A2A_TOKEN' } }],
      });
      const r = await cli.perflow(['run', '--agent', caller, '--question', 'Ask the peer', '--wait', '--json']);
      expect(r.stderr).toBe('');
      expect((JSON.parse(r.stdout) as { response: string }).response).toBe('relayed');
      const observation = cli.harness.recorder.filter((c) => c.position.role === 'executor').flatMap((c) => c.messages.filter((m) => m.role === 'tool')).at(-1)?.content;
      expect(observation).toContain('the answer');
    } finally {
      delete process.env.PERFLOW_TEST_A2A_TOKEN;
    }
  });

  it('runs the example pair offline: examples/a2a/travel-planner.json asks the served examples/a2a/served/flight-desk.json', async () => {
    const examples = join(__dirname, '..', '..', '..', 'examples', 'a2a');
    const desk = await a2aServer(['--token', 'example-token-0123456789abcdef'], join(examples, 'served'));
    process.env.PERFLOW_TEST_A2A_TOKEN = 'example-token-0123456789abcdef';
    try {
      // The planner as written, pointed at this server's port and at a variable the test worker may read.
      const planner = JSON.parse(readFileSync(join(examples, 'travel-planner.json'), 'utf8')) as { tools: Array<{ parameters: Record<string, string> }> };
      expect(planner.tools[0].parameters.url).toBe('http://127.0.0.1:7400/a2a/flight-desk');
      planner.tools[0].parameters = { ...planner.tools[0].parameters, url: `${desk.url}/a2a/flight-desk`, token_env: 'PERFLOW_TEST_A2A_TOKEN' };
      const r = await cli.perflow(['run', '--agent', cli.agentFile('travel-planner', planner), '--question', 'Plan my trip to Seattle', '--wait', '--json']);
      expect(r.stderr).toBe('');
      expect((JSON.parse(r.stdout) as { response: string }).response).toBe('The flight desk says: 3 flights from Beijing to Seattle this week.');
      const observation = cli.harness.recorder.filter((c) => c.position.role === 'executor').flatMap((c) => c.messages.filter((m) => m.role === 'tool')).at(-1)?.content;
      expect(observation).toContain('There are 3 flights from Beijing to Seattle this week.');
    } finally {
      delete process.env.PERFLOW_TEST_A2A_TOKEN;
      await desk.stop();
    }
  });

  it('returns at once with returnImmediately; GetTask follows the run to COMPLETED; ListTasks gives the agent\'s tasks newest first, a page at a time', async () => {
    const started = asTask(await client.sendMessage(message([text('Quickly?')], { returnImmediately: true })));
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await until(client, started.id, TaskState.TASK_STATE_COMPLETED);
    const page1 = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 2, pageToken: '', statusTimestampAfter: undefined });
    expect(page1.tasks.map((t) => t.id)[0]).toBe(started.id);
    expect(page1.tasks).toHaveLength(2);
    expect(page1.nextPageToken).not.toBe('');
    const page2 = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 2, pageToken: page1.nextPageToken, statusTimestampAfter: undefined });
    expect(page2.tasks.map((t) => t.id)).toContain(first.id);
    expect(page1.tasks.map((t) => t.id)).not.toContain(page2.tasks[0].id);
  });

  it('streams a task: the task first, a WORKING update per step with its stream offset, the artifact, then COMPLETED', async () => {
    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(message([text('Stream it')]))) events.push(e);
    expect(events[0].payload?.$case).toBe('task');
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.some((e) => e.payload?.$case === 'artifactUpdate')).toBe(true);
    const lines = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' && e.payload.value.status?.state === TaskState.TASK_STATE_WORKING ? [partsText(e.payload.value.status.message?.parts)] : []));
    expect(lines.join('\n')).toContain('step A');
    const offsets = events.map(offsetOf).filter((o) => o !== undefined);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it('asks for a plan approval as INPUT_REQUIRED with the choices; "approve" on the task answers it and the run completes', async () => {
    const reviewed = await v1Client(server.url, server.token!, 'reviewed');
    const waiting = asTask(await reviewed.sendMessage(message([text('Review my plan')])));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsText(waiting.status?.message?.parts)).toContain('step A');
    expect(dataOf(waiting.status?.message?.parts)).toMatchObject({ choices: ['approve', 'reject'], pending: { kind: 'plan', id: 'plan-1' } });
    const bad = reviewed.sendMessage(message([text('maybe')], { taskId: waiting.id }));
    await expect(bad).rejects.toThrow(/approve/);
    const done = asTask(await reviewed.sendMessage(message([text('approve')], { taskId: waiting.id, contextId: waiting.contextId })));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const progress = await cli.harness.client.workflow.getHandle(waiting.id).query(progressQuery);
    expect(progress.decisions).toEqual([expect.objectContaining({ decision_id: 'plan-1', kind: 'plan', action: 'approve', by: 'a2a:operator' })]);
  });

  it('re-attaches a dropped stream from the offset last seen: every update once, in order', async () => {
    const reviewed = await v1Client(server.url, server.token!, 'reviewed');
    const seen: StreamResponse[] = [];
    for await (const e of reviewed.sendMessageStream(message([text('Drop me')]))) {
      seen.push(e);
      if (offsetOf(e) !== undefined) break; // the client drops the stream after its first update
    }
    const id = (seen[0].payload as { value: Task }).value.id;
    await until(reviewed, id, TaskState.TASK_STATE_INPUT_REQUIRED);
    const collect = async (headers: Record<string, string>) => {
      const got: StreamResponse[] = [];
      for await (const e of reviewed.resubscribeTask({ tenant: '', id }, { serviceParameters: headers })) got.push(e);
      return got;
    };
    const resumed = collect({ 'Last-Event-ID': String(offsetOf(seen.at(-1)!)) });
    const whole = collect({});
    await new Promise((r) => setTimeout(r, 1_000));
    await reviewed.sendMessage(message([text('approve')], { taskId: id }));
    const [again, all] = await Promise.all([resumed, whole]);
    expect(again[0].payload?.$case).toBe('task');
    // An update is its offset and kind (a run's end is the artifact and the final status, at one offset).
    const keys = (events: StreamResponse[]) => events.flatMap((e) => (offsetOf(e) !== undefined ? [`${offsetOf(e)}:${e.payload?.$case}`] : []));
    const got = [...keys(seen), ...keys(again)];
    expect(new Set(got).size).toBe(got.length); // none twice
    expect(got).toEqual(keys(all)); // none lost, in order
    const end = again.at(-1)!.payload;
    expect(end?.$case === 'statusUpdate' && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('cancels a task: the run is cancelled and the task CANCELED', async () => {
    const reviewed = await v1Client(server.url, server.token!, 'reviewed');
    const started = asTask(await reviewed.sendMessage(message([text('Cancel me')], { returnImmediately: true })));
    await until(reviewed, started.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    // Its conversation is busy: a new task on it is refused, nothing started.
    const busy = asTask(await reviewed.sendMessage(message([text('Me too')], { contextId: started.contextId })));
    expect(busy.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(partsText(busy.status?.message?.parts)).toMatch(/busy|running/i);
    await expect(cli.harness.client.workflow.getHandle(busy.id).describe()).rejects.toThrow(/not found/i);
    const cancelled = await reviewed.cancelTask({ tenant: '', id: started.id, metadata: {} });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await cli.harness.client.workflow.getHandle(started.id).describe()).status.name).toBe('CANCELLED');
  });

  it.each([
    ['JSON-RPC', LegacyJsonRpcTransport],
    ['HTTP+JSON (/v1/… paths)', LegacyRestTransport],
  ])('answers a v0.3 %s client (the SDK\'s compat transport) with the same runs', async (_binding, Transport) => {
    const card = await client.getAgentCard();
    const legacy = new Client(new Transport({ endpoint: `${server.url}/a2a/plain`, fetchImpl: authed(server.token!) }), card);
    const done = asTask(await legacy.sendMessage(message([text('Old protocol?')])));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partsText(done.artifacts[0].parts)).toBe('the answer');
    expect((await legacy.getTask({ tenant: '', id: done.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('serves HTTP+JSON to the SDK\'s REST client: a blocking send, one returned at once then read and listed, a stream, an INPUT_REQUIRED answered, a cancel', async () => {
    const rest = await v1Client(server.url, server.token!, 'plain', 'rest');
    const done = asTask(await rest.sendMessage(message([text('Over REST?')])));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partsText(done.artifacts[0].parts)).toBe('the answer');
    expect(dataOf(done.artifacts[0].parts)).toMatchObject({ workflow_id: done.id, memory_id: done.contextId });
    const started = asTask(await rest.sendMessage(message([text('At once over REST')], { returnImmediately: true, contextId: done.contextId })));
    expect(started.contextId).toBe(done.contextId);
    expect((await until(rest, started.id, TaskState.TASK_STATE_COMPLETED)).artifacts).toHaveLength(1);
    const listed = await rest.listTasks({ tenant: '', contextId: done.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 10, pageToken: '', statusTimestampAfter: undefined });
    expect(listed.tasks.map((t) => t.id)).toEqual([started.id, done.id]);
    const events: StreamResponse[] = [];
    for await (const e of rest.sendMessageStream(message([text('Stream over REST')]))) events.push(e);
    expect(events[0].payload?.$case).toBe('task');
    const end = events.at(-1)!.payload;
    expect(end?.$case === 'statusUpdate' && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.some((e) => e.payload?.$case === 'artifactUpdate')).toBe(true);

    const reviewed = await v1Client(server.url, server.token!, 'reviewed', 'rest');
    const waiting = asTask(await reviewed.sendMessage(message([text('Review over REST')])));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(dataOf(waiting.status?.message?.parts)).toMatchObject({ choices: ['approve', 'reject'] });
    const approved = asTask(await reviewed.sendMessage(message([text('approve')], { taskId: waiting.id })));
    expect(approved.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const toCancel = asTask(await reviewed.sendMessage(message([text('Cancel over REST')], { returnImmediately: true })));
    await until(reviewed, toCancel.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    expect((await reviewed.cancelTask({ tenant: '', id: toCancel.id, metadata: {} })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await cli.harness.client.workflow.getHandle(toCancel.id).describe()).status.name).toBe('CANCELLED');
  });

  it('refuses a request without the token, a push config and a 2 MiB message; nothing starts', async () => {
    const runs = async () => (await cli.harness.client.workflow.count(`TaskQueue = '${cli.harness.taskQueue}'`)).count;
    const before = await runs();
    const noToken = await fetch(`${server.url}/a2a/plain`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }) });
    expect(noToken.status).toBe(401);
    // HTTP+JSON is behind the same guard: no token, no run.
    const restBody = JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'No token over REST' }] } });
    const restNoToken = await fetch(`${server.url}/a2a/plain/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: restBody });
    expect(restNoToken.status).toBe(401);
    const restWrongToken = await fetch(`${server.url}/a2a/plain/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: 'Bearer not-the-token' }, body: restBody });
    expect(restWrongToken.status).toBe(401);
    // A page that made its own name resolve to this machine (DNS rebinding), or another site's page: refused whatever the token.
    const port = new URL(server.url).port;
    expect(await rawGet(`http://127.0.0.1:${port}/a2a/plain/.well-known/agent-card.json`, { host: `evil.example:${port}`, authorization: `Bearer ${server.token}` })).toBe(403);
    const crossSite = await authed(server.token!)(`${server.url}/a2a/plain/.well-known/agent-card.json`, { headers: { origin: 'http://evil.example' } });
    expect(crossSite.status).toBe(403);
    const push = message([text('Push to me')]);
    const pushed = client.sendMessage({ ...push, configuration: { ...push.configuration, taskPushNotificationConfig: { tenant: '', id: 'p', taskId: '', url: 'http://evil.example/hook', token: 't', authentication: undefined } } });
    // This server's environment declares no worker policy: no receiver host is allowed.
    await expect(pushed).rejects.toThrow(/push notification config: host "evil.example" is not allowed/);
    const restPush = await authed(server.token!)(`${server.url}/a2a/plain/tasks/some-task/pushNotificationConfigs`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ url: 'http://evil.example/hook', token: 't' }) });
    expect(restPush.status).toBe(400);
    expect(await restPush.text()).toMatch(/host \\"evil.example\\" is not allowed/);
    const huge = client.sendMessage(message([text('x'.repeat(2 * 1024 * 1024))]));
    await expect(huge).rejects.toThrow(/413|large/i);
    const restClient = await v1Client(server.url, server.token!, 'plain', 'rest');
    await expect(restClient.sendMessage(message([text('x'.repeat(2 * 1024 * 1024))]))).rejects.toThrow(/413|large/i);
    const inline = client.sendMessage(message([{ content: { $case: 'data', value: { name: 'evil', llm: {} } }, mediaType: 'application/json', filename: '', metadata: {} }]));
    await expect(inline).rejects.toThrow(/text parts only/);
    expect(await runs()).toBe(before);
  });
});

describe('perflow a2a --tokens (tenants) and a restart', () => {
  let server: Server;
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps each tenant to its own tasks, and a restarted server finds a waiting task and finishes it', async () => {
    server = await a2aServer(['--tokens', tokensFile]);
    const acme = await v1Client(server.url, TOKEN_A, 'reviewed');
    const globex = await v1Client(server.url, TOKEN_B, 'reviewed');
    const task = asTask(await acme.sendMessage(message([text('Acme only')], { returnImmediately: true })));
    await until(acme, task.id, TaskState.TASK_STATE_INPUT_REQUIRED);

    // Another tenant's task is not found, whatever it asks.
    await expect(globex.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found|no task/i);
    await expect(globex.cancelTask({ tenant: '', id: task.id, metadata: {} })).rejects.toThrow(/not found|no task/i);
    await expect(globex.sendMessage(message([text('approve')], { taskId: task.id }))).rejects.toThrow(/not found|no task/i);
    await expect(
      (async () => {
        for await (const _ of globex.resubscribeTask({ tenant: '', id: task.id })) return;
      })(),
    ).rejects.toThrow(/not found|no task/i);
    // Nor over HTTP+JSON.
    const globexRest = await v1Client(server.url, TOKEN_B, 'reviewed', 'rest');
    await expect(globexRest.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found|no task/i);
    await expect(globexRest.cancelTask({ tenant: '', id: task.id, metadata: {} })).rejects.toThrow(/not found|no task/i);
    await expect(globexRest.sendMessage(message([text('approve')], { taskId: task.id }))).rejects.toThrow(/not found|no task/i);
    // Nor is its conversation: a message naming acme's contextId is refused.
    const borrowed = asTask(await globex.sendMessage(message([text('Read acme')], { contextId: task.contextId })));
    expect(borrowed.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const listed = await globex.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 50, pageToken: '', statusTimestampAfter: undefined });
    expect(listed.tasks.map((t) => t.id)).not.toContain(task.id);
    expect((await acme.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    // The server goes away mid-task; a new one knows the task and takes its answer.
    await server.stop();
    server = await a2aServer(['--tokens', tokensFile]);
    const again = await v1Client(server.url, TOKEN_A, 'reviewed');
    expect((await again.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const listedA = await again.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 50, pageToken: '', statusTimestampAfter: undefined });
    expect(listedA.tasks.map((t) => t.id)).toContain(task.id);
    const done = asTask(await again.sendMessage(message([text('approve')], { taskId: task.id })));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataOf(done.artifacts[0].parts)).toMatchObject({ workflow_id: task.id });
  });
});
