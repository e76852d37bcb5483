/**
 * `perflow mcp` with the official MCP TypeScript SDK's client, over stdio and streamable HTTP:
 * the folder's agents listed as tools, a call answered by an ordinary run (in `status`, with its
 * memory continued by a second call), progress notifications from the run's events (the agent
 * tree's too), cancellation ending the run, a run as an MCP Task, and the HTTP listener's rules
 * (token, Host, other sites' pages) tested with the requests an attacker would send.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { useCli } from '../support/cli';
import { runProcess } from '../support/run-process';
import { BUILT_CLI_ARGS } from '../support/package-build';

jest.setTimeout(180_000);

const cli = useCli('mcp');
const BIN = BUILT_CLI_ARGS;
const EXAMPLE = resolve(__dirname, '../../examples/multi-agent');

let agents: string;
beforeAll(() => {
  // The example tree, and an accountant whose calculator waits for a person (a run that waits until cancelled).
  agents = join(cli.dir, 'agents');
  mkdirSync(agents);
  for (const f of ['supervisor', 'researcher', 'accountant']) copyFileSync(join(EXAMPLE, `${f}.json`), join(agents, `${f}.json`));
  const reviewed = JSON.parse(readFileSync(join(EXAMPLE, 'accountant.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(agents, 'reviewed.json'), JSON.stringify({ ...reviewed, name: 'reviewed-accountant', description: 'An accountant whose every sum a person approves.', tools: [{ type: 'CalculatorTool', requires_approval: true }] }));
  writeFileSync(join(agents, 'notes.txt'), 'not an agent');
  // An accountant whose answer is typed: its schema becomes the tool's `output`.
  const llm = reviewed.llm as { script: Record<string, unknown> };
  writeFileSync(join(agents, 'typed.json'), JSON.stringify({ ...reviewed, name: 'typed-accountant', llm: { ...llm, script: { ...llm.script, output: ['{"amount": 445, "currency": "EUR"}'] } }, output_schema: TYPED_AMOUNT }));
});

const TYPED_AMOUNT = { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string', minLength: 3, maxLength: 3 } }, required: ['amount', 'currency'], additionalProperties: false };

const structured = (r: CallToolResult) => r.structuredContent as { response: string; workflow_id: string; memory_id: string; status: string; steps_executed: number };

/** Progress notifications as they arrived on the wire, by token, in order. */
const progressOnWire = new Map<string | number, Progress[]>();

async function stdioClient(): Promise<Client> {
  const client = new Client({ name: 'perflow-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [...BIN, 'mcp', '--agents', agents], env: { ...(process.env as Record<string, string>), ...cli.env }, stderr: 'pipe' });
  await client.connect(transport);
  // Read off the wire: the SDK's client hands progress to `onprogress` a microtask late, and drops
  // those read in the same chunk as the response (the server's last ones, on a loaded machine).
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    if ('method' in message && message.method === 'notifications/progress') {
      const { progressToken, ...progress } = message.params as Progress & { progressToken: string | number };
      progressOnWire.set(progressToken, [...(progressOnWire.get(progressToken) ?? []), progress]);
    }
    deliver(message);
  };
  return client;
}

/** `perflow mcp --http 0` as a user starts it, with the URL and token it prints. */
async function httpServer(extra: string[] = []): Promise<{ child: ChildProcess; url: string; token: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...BIN, 'mcp', '--agents', agents, '--http', '0', ...extra], { env: { ...process.env, ...cli.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const printed = await new Promise<{ url: string; token: string }>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`perflow mcp --http did not start: ${stderr}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      const token = /token (\S+) \(send/.exec(stderr)?.[1];
      if (url && token) {
        clearTimeout(timer);
        ready({ url, token });
      }
    });
    child.once('exit', (code) => fail(new Error(`perflow mcp exited ${code}: ${stderr}`)));
  });
  return {
    child,
    ...printed,
    async stop() {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGINT');
      await exited;
    },
  };
}

async function httpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'perflow-test', version: '1.0.0' }, { capabilities: { tasks: { requests: {} } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A raw request, as a browser page or a rebinding attacker would send it (any Host and Origin). */
function rawPost(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  return new Promise((done, fail) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

describe('perflow mcp over stdio', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdioClient();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists each agent file of the folder as a tool, with its description and {question, memory_id?} input', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['reviewed-accountant', 'trip-accountant', 'trip-researcher', 'trip-supervisor', 'typed-accountant']);
    const reviewed = tools.find((t) => t.name === 'reviewed-accountant')!;
    expect(reviewed.description).toBe('An accountant whose every sum a person approves.');
    expect(reviewed.inputSchema).toMatchObject({ type: 'object', required: ['question'], properties: { question: { type: 'string' }, memory_id: { type: 'string' } } });
    expect(reviewed.outputSchema).toMatchObject({ required: ['response', 'workflow_id', 'memory_id', 'status'] });
    expect(reviewed.execution).toEqual({ taskSupport: 'optional' });
    expect(reviewed.outputSchema?.properties).not.toHaveProperty('output');
    expect(tools.find((t) => t.name === 'typed-accountant')?.outputSchema?.properties).toMatchObject({ output: TYPED_AMOUNT });
  });

  it('answers an agent with an output_schema with its typed value as structured content, which the client validates against the tool\'s outputSchema', async () => {
    // The SDK's client validates structured content against the listed outputSchema (it throws when it does not conform).
    const result = (await client.callTool({ name: 'typed-accountant', arguments: { question: 'What do three nights and the train cost?' } }, CallToolResultSchema, { timeout: 150_000 })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'completed', output: { amount: 445, currency: 'EUR' } });
    expect(result.content).toEqual([{ type: 'text', text: '{"amount":445,"currency":"EUR"}' }]);
  });

  it('a call is an ordinary run: its answer, its IDs, progress from the tree; a second call continues its memory', async () => {
    const tokens = new Set(progressOnWire.keys());
    const result = (await client.callTool({ name: 'trip-supervisor', arguments: { question: 'What does the trip cost?' } }, CallToolResultSchema, { onprogress: () => undefined, resetTimeoutOnProgress: true, timeout: 150_000 })) as CallToolResult;
    const progress = [...progressOnWire].find(([token]) => !tokens.has(token))?.[1] ?? [];
    expect(result.isError).toBeFalsy();
    const out = structured(result);
    expect(result.content).toEqual([{ type: 'text', text: out.response }]);
    expect(out.response).toMatch(/^The trip costs 445/);
    expect(out).toMatchObject({ status: 'completed', memory_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // The run is perflow's like any other: status knows it, and it answers the same.
    const status = JSON.parse((await cli.perflow(['status', out.workflow_id, '--json'])).stdout) as { status: string; result: string; memory_id: string };
    expect(status).toMatchObject({ status: 'completed', memory_id: out.memory_id });
    // Progress: increasing, one line per event, the sub-agents' under their names.
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    const lines = progress.map((p) => p.message ?? '');
    expect(lines[0]).toBe(`run ${out.workflow_id} started: trip-supervisor (plan_execute_and_reflect)`);
    expect(lines).toContain('step 1 running: Ask the researcher what the trip costs');
    expect(lines.some((l) => l.startsWith('[trip-researcher › trip-accountant] ← CalculatorTool: 445'))).toBe(true);
    expect(lines.at(-1)).toBe('run completed');

    const again = (await client.callTool({ name: 'trip-accountant', arguments: { question: 'And for 2 nights?', memory_id: out.memory_id } }, CallToolResultSchema, { timeout: 150_000 })) as CallToolResult;
    expect(again.isError).toBeFalsy();
    expect(structured(again).memory_id).toBe(out.memory_id);
    expect(structured(again).workflow_id).not.toBe(out.workflow_id);
  });

  it('bad input and an unknown memory are the tool\'s one-line error; an unknown tool is a protocol error', async () => {
    const empty = (await client.callTool({ name: 'trip-accountant', arguments: { question: '  ' } })) as CallToolResult;
    expect(empty).toMatchObject({ isError: true, content: [{ type: 'text', text: 'trip-accountant: question: question must not be empty (expected {"question": string, "memory_id"?: string})' }] });
    const extra = (await client.callTool({ name: 'trip-accountant', arguments: { question: 'x', steps: 3 } })) as CallToolResult;
    expect(extra.isError).toBe(true);
    const unknownMemory = (await client.callTool({ name: 'trip-accountant', arguments: { question: 'x', memory_id: 'no-such-memory' } })) as CallToolResult;
    expect(unknownMemory.isError).toBe(true);
    expect((unknownMemory.content as Array<{ text: string }>)[0].text).toMatch(/memory_id no-such-memory/);
    await expect(client.callTool({ name: 'notes', arguments: { question: 'x' } })).rejects.toThrow(/no tool "notes": the tools are trip-accountant, trip-researcher, trip-supervisor, reviewed-accountant|no tool "notes"/);
  });

  it('cancelling the call cancels the run', async () => {
    const abort = new AbortController();
    let workflowId: string | undefined;
    const call = client.callTool({ name: 'reviewed-accountant', arguments: { question: 'What is 3*120+85?' } }, CallToolResultSchema, {
      signal: abort.signal,
      timeout: 150_000,
      onprogress: (p) => {
        workflowId ??= /^run (\S+) started/.exec(p.message ?? '')?.[1];
        // The calculator waits for a person: the caller gives up instead.
        if (p.message?.startsWith('awaiting approval of a tool call')) abort.abort('enough');
      },
    });
    await expect(call).rejects.toThrow();
    expect(workflowId).toBeDefined();
    const handle = cli.harness.client.workflow.getHandle(workflowId!);
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
  });
});

describe('the MCP Inspector (CLI mode)', () => {
  // It reads its own package.json by a path relative to its working directory: run it from its build folder.
  const inspector = dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json'));
  const inspect = (args: string[]) =>
    runProcess(process.execPath, [join(inspector, 'build', 'index.js'), process.execPath, ...BIN, 'mcp', '--agents', agents, ...args], { cwd: join(inspector, 'build'), env: { ...process.env, ...cli.env }, timeoutMs: 150_000 });

  it('lists the agents and calls one over stdio', async () => {
    const listed = await inspect(['--method', 'tools/list']);
    expect(listed.code).toBe(0);
    const { tools } = JSON.parse(listed.stdout) as { tools: Array<{ name: string }> };
    expect(tools.map((t) => t.name)).toContain('trip-supervisor');
    const called = await inspect(['--method', 'tools/call', '--tool-name', 'trip-accountant', '--tool-arg', 'question=What is 3*120+85?']);
    expect(called.code).toBe(0);
    const result = JSON.parse(called.stdout) as CallToolResult;
    expect(structured(result)).toMatchObject({ status: 'completed', response: expect.stringContaining('445') });
  });
});

describe('perflow mcp --http', () => {
  let server: Awaited<ReturnType<typeof httpServer>>;
  beforeAll(async () => {
    server = await httpServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers a call over streamable HTTP with the token it printed', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await httpClient(server.url, server.token);
    try {
      const progress: string[] = [];
      const result = (await client.callTool({ name: 'trip-accountant', arguments: { question: 'What is 3*120+85?' } }, CallToolResultSchema, { onprogress: (p) => progress.push(p.message ?? ''), timeout: 150_000 })) as CallToolResult;
      expect(structured(result)).toMatchObject({ status: 'completed', response: expect.stringContaining('445') });
      expect(progress).toContain('← CalculatorTool: 445');
    } finally {
      await client.close();
    }
  });

  it('runs a call as an MCP Task: created at once under the run\'s ID, polled, its result the run\'s answer; a cancelled task cancels its run', async () => {
    const client = await httpClient(server.url, server.token);
    try {
      const seen: string[] = [];
      let taskId: string | undefined;
      let result: CallToolResult | undefined;
      for await (const m of client.experimental.tasks.callToolStream({ name: 'trip-accountant', arguments: { question: 'What is 3*120+85?' } }, CallToolResultSchema, { task: { ttl: 600_000 }, timeout: 150_000 })) {
        seen.push(m.type);
        if (m.type === 'taskCreated') taskId = m.task.taskId;
        if (m.type === 'result') result = m.result as CallToolResult;
        if (m.type === 'error') throw m.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result');
      expect(structured(result!)).toMatchObject({ workflow_id: taskId, status: 'completed' });
      expect((await cli.harness.client.workflow.getHandle(taskId!).describe()).status.name).toBe('COMPLETED');
      expect((await client.experimental.tasks.getTask(taskId!)).status).toBe('completed');

      // A task that waits for a person, cancelled through the protocol.
      const stream = client.experimental.tasks.callToolStream({ name: 'reviewed-accountant', arguments: { question: 'What is 1+1?' } }, CallToolResultSchema, { task: { ttl: 600_000 }, timeout: 150_000 });
      const first = await stream.next();
      expect(first.value).toMatchObject({ type: 'taskCreated' });
      const waiting = (first.value as { task: { taskId: string } }).task.taskId;
      await until(async () => (await client.experimental.tasks.getTask(waiting)).statusMessage?.includes('waiting for a person') ?? false);
      expect((await client.experimental.tasks.cancelTask(waiting)).status).toBe('cancelled');
      const handle = cli.harness.client.workflow.getHandle(waiting);
      await expect(handle.result()).rejects.toThrow();
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      await stream.return(undefined);
      // Another session does not see this session's tasks.
      const other = await httpClient(server.url, server.token);
      await expect(other.experimental.tasks.getTask(taskId!)).rejects.toThrow(/not found/i);
      await other.close();
    } finally {
      await client.close();
    }
  });

  it('refuses a request without the token, for another host name (DNS rebinding) and from another site\'s page', async () => {
    const { port } = new URL(server.url);
    const noToken = await rawPost(server.url, {});
    expect(noToken.status).toBe(401);
    expect(noToken.body).toContain('needs its token');
    const wrong = await rawPost(server.url, { authorization: 'Bearer wrong-token-of-the-right-length!' });
    expect(wrong.status).toBe(401);
    const rebound = await rawPost(server.url, { host: `rebind.example:${port}`, authorization: `Bearer ${server.token}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('rebind.example');
    const page = await rawPost(server.url, { origin: 'http://evil.example', authorization: `Bearer ${server.token}` });
    expect(page.status).toBe(403);
    expect(page.body).toContain('requests from http://evil.example are refused');
    const ok = await rawPost(server.url, { authorization: `Bearer ${server.token}` });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('"name":"perflow"');
  });

  it('refuses --unsafe-no-token off loopback and a flag of the HTTP server without --http', async () => {
    const open = await cli.perflow(['mcp', '--agents', agents, '--http', '0', '--host', '0.0.0.0', '--unsafe-no-token']);
    expect(open.code).toBe(2);
    expect(open.stderr.trim()).toBe('perflow: --unsafe-no-token is refused with --host 0.0.0.0: off loopback the MCP server needs a token');
    const stray = await cli.perflow(['mcp', '--agents', agents, '--token', 'abc']);
    expect(stray.code).toBe(2);
    expect(stray.stderr.trim()).toBe('perflow: --token is for the HTTP server: add --http PORT');
    const none = await cli.perflow(['mcp', '--agents', join(cli.dir, 'nowhere')]);
    expect(none.stderr.trim()).toMatch(/^perflow: mcp needs --agents DIR, a folder of agent files \(.*nowhere is not a folder\)$/);
  });
});

async function until(ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}
