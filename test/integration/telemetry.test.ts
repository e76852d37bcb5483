/**
 * Traces and metrics end to end: a `perflow worker` process exporting spans over OTLP/HTTP
 * (protobuf) to an in-process receiver and serving Prometheus metrics, and the `perflow run` CLI
 * exporting its client span (http/json). One 2-step run of a scripted plan_execute_and_reflect
 * agent with a tool must give one trace — client → the run's `invoke_agent` span → activities
 * and the executor children, with the `plan`, `chat` and `execute_tool` spans of the GenAI
 * conventions (the worker opts in to their latest names) — and perflow's counters on /metrics.
 * A run whose worker is SIGKILLed while it waits, and replayed by the next worker, exports each
 * span once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from '@temporalio/worker';
import { MongoClient } from 'mongodb';
import { final, plan, scriptedAgent } from '../support/harness';
import { connectTemporal, serverEnv, uniqueTaskQueue } from '../support/env';
import { runProcess, userEnv } from '../support/run-process';
import { calculatorTurns, withCalculator } from '../support/script';
import { REPLAY_SINKS } from '../../workers/workflow-source';
import { BUILT_CLI_ARGS } from '../support/package-build';
import { workflowBundle } from '../support/workflow-bundles';
import { inWorkflowThread } from '../support/replay';
// The OTLP protobuf definitions the exporters encode with.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const otlp = require('@opentelemetry/otlp-transformer/build/src/generated/root') as OtlpRoot;

jest.setTimeout(180_000);

const BIN = BUILT_CLI_ARGS;

interface OtlpRoot {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } };
}
interface ProtoType {
  decode(body: Uint8Array): unknown;
  toObject(message: unknown, options: { longs: NumberConstructor; bytes: StringConstructor; enums: StringConstructor }): unknown;
}

/** A span as the receiver got it: IDs in hex, attributes as plain values. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpAnyValue }[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: { key: string; value: OtlpAnyValue }[] }[] }[];
  }[];
}

const valueOf = (v: OtlpAnyValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? v.arrayValue?.values?.map(valueOf);
const attributesOf = (list: { key: string; value: OtlpAnyValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP trace receiver on a free loopback port: POST /v1/traces, protobuf or JSON. */
async function startReceiver() {
  const spans: ReceivedSpan[] = [];
  const requests: { path: string; contentType: string }[] = [];
  const body = (req: IncomingMessage) =>
    new Promise<Buffer>((done, fail) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => done(Buffer.concat(chunks))).on('error', fail);
    });
  const server = createServer((req, res) => {
    void body(req).then((raw) => {
      const contentType = req.headers['content-type'] ?? '';
      requests.push({ path: req.url ?? '', contentType });
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      let request: OtlpRequest;
      // Protobuf IDs are bytes (base64 here), JSON ones hex already.
      let hex = (id: string) => id;
      if (contentType.startsWith('application/x-protobuf')) {
        const type = otlp.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
        request = type.toObject(type.decode(raw), { longs: Number, bytes: String, enums: String }) as OtlpRequest;
        hex = (id) => Buffer.from(id, 'base64').toString('hex');
      } else {
        request = JSON.parse(raw.toString('utf8')) as OtlpRequest;
      }
      for (const rs of request.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({ service, traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: s.parentSpanId ? hex(s.parentSpanId) : '', name: s.name, attributes: attributesOf(s.attributes) });
          }
        }
      }
      res.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' }).end(contentType.startsWith('application/json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, requests, close: () => new Promise((r) => server.close(r)) };
}

/** The scripted model priced in the agent file, $2 per million input tokens and $8 per million output tokens. */
const withPrice = <T extends { llm: object }>(agent: T): T => ({ ...agent, llm: { ...agent.llm, price: { input_per_million: 2, output_per_million: 8 } } });
const costAt = (u: { input_tokens: number; output_tokens: number }) => (u.input_tokens * 2 + u.output_tokens * 8) / 1e6;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function eventually<T>(what: string, get: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('traces and metrics', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: ChildProcess | undefined;
  let workerOutput = '';
  let dir: string;
  const taskQueue = uniqueTaskQueue('perflow-otel');
  const db = `perflow_otel_${randomUUID().slice(0, 8)}`;
  let metricsPort = 0;

  /** A `perflow worker` exporting to the receiver (the latest GenAI names; spans sent within 100 ms of ending). */
  async function startWorker(metrics: boolean): Promise<void> {
    const { temporalAddress, namespace, mongoUri } = serverEnv();
    workerOutput = '';
    const started = spawn(process.execPath, [...BIN, 'worker'], {
      env: userEnv({
        TEMPORAL_ADDRESS: temporalAddress,
        TEMPORAL_NAMESPACE: namespace,
        MONGODB_URI: `${mongoUri.replace(/\/$/, '')}/${db}`,
        PERFLOW_TASK_QUEUE: taskQueue,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'perflow-test-worker',
        OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...(metrics ? { PERFLOW_METRICS_ADDRESS: `127.0.0.1:${metricsPort}` } : {}),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker = started;
    started.stdout!.on('data', (d: Buffer) => (workerOutput += d.toString()));
    started.stderr!.on('data', (d: Buffer) => (workerOutput += d.toString()));
    const exited = new Promise<never>((_, fail) => started.once('exit', (code) => fail(new Error(`the worker exited (${code}):\n${workerOutput}`))));
    await Promise.race([eventually('the worker to start', () => (workerOutput.includes('perflow worker connected') ? true : undefined), 120_000), exited]);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    dir = mkdtempSync(join(tmpdir(), 'perflow-otel-'));
    metricsPort = await freePort();
    await startWorker(true);
  }, 150_000);

  afterAll(async () => {
    worker?.kill('SIGKILL');
    await receiver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    const mongo = await new MongoClient(serverEnv().mongoUri).connect();
    await mongo.db(db).dropDatabase().catch(() => undefined);
    await mongo.close();
  });

  it('export one trace per run, from the CLI’s start through the workflows to the model and tool calls, and count the run', async () => {
    expect(workerOutput).toContain(`traces to ${receiver.url}/v1/traces (http/protobuf, service perflow-test-worker, GenAI conventions: latest)`);
    expect(workerOutput).toContain(`metrics on http://127.0.0.1:${metricsPort}/metrics`);
    const agentFile = join(dir, 'agent.json');
    writeFileSync(
      agentFile,
      JSON.stringify(
        withPrice(
          scriptedAgent(
            { planner: [plan('compute 6*7', 'compute 2*3'), plan('compute 2*3'), final('42 and 6')], executor: [calculatorTurns('6*7', '42'), calculatorTurns('2*3', '6')] },
            withCalculator(),
          ),
        ),
      ),
    );
    const { temporalAddress, namespace } = serverEnv();
    const cli = await runProcess(process.execPath, [...BIN, 'run', '--agent', agentFile, '--question', 'What is 6*7?', '--wait', '--json'], {
      env: userEnv({
        TEMPORAL_ADDRESS: temporalAddress,
        TEMPORAL_NAMESPACE: namespace,
        PERFLOW_TASK_QUEUE: taskQueue,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'perflow-test-cli',
      }),
      timeoutMs: 90_000,
    });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const out = JSON.parse(cli.stdout) as { workflow_id: string; memory_id: string; response: string; usage: { input_tokens: number; output_tokens: number; cost_usd: number } };
    expect(out.response).toBe('42 and 6');
    // The run's cost: its tokens at the agent file's price ($2 in / $8 out per million).
    expect(out.usage.cost_usd).toBeCloseTo(costAt(out.usage), 12);

    // Metrics: the runtime's and perflow's counters, scraped while the worker runs.
    const metrics = await eventually('perflow_runs_total on /metrics', async () => {
      const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
      return /^perflow_runs_total\{/m.test(text) ? text : undefined;
    });
    // The sum over the series with these labels (the SDK adds namespace, taskQueue and workflowType or activityType).
    const sample = (name: string, labels: Record<string, string>): number | undefined => {
      const lines = metrics.split('\n').filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
      return lines.length === 0 ? undefined : lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    };
    expect(sample('perflow_runs_total', { agent_type: 'plan_execute_and_reflect', status: 'completed', taskQueue })).toBe(1);
    expect(sample('perflow_steps_total', { agent_type: 'plan_execute_and_reflect', taskQueue })).toBe(2);
    expect(sample('perflow_tokens_total', { model: 'scripted', direction: 'input' })).toBeGreaterThan(0);
    expect(sample('perflow_tokens_total', { model: 'scripted', direction: 'output' })).toBeGreaterThan(0);
    // The cost counter sums the calls' costs: the run's whole cost, by model and agent.
    expect(sample('perflow_cost_usd_total', { model: 'scripted', agent: 'test-agent' })).toBeCloseTo(out.usage.cost_usd, 9);
    expect(sample('perflow_tool_calls_total', { tool: 'CalculatorTool', taskQueue })).toBe(2);
    expect(sample('perflow_tool_errors_total', { tool: 'CalculatorTool' })).toBeUndefined();
    expect(metrics).toMatch(/^temporal_workflow_completed\{/m);

    // The step's cost (the executor child's two calls) is part of the run's; status --json shows the run's.
    {
      const { connection, client } = await connectTemporal();
      try {
        const step = (await client.workflow.getHandle(`${out.workflow_id}/step-1`).result()) as { usage: { input_tokens: number; output_tokens: number; cost_usd: number } };
        expect(step.usage.cost_usd).toBeCloseTo(costAt(step.usage), 12);
        expect(step.usage.cost_usd).toBeGreaterThan(0);
        expect(step.usage.cost_usd).toBeLessThan(out.usage.cost_usd);
        const status = await runProcess(process.execPath, [...BIN, 'status', out.workflow_id, '--json'], { env: userEnv({ TEMPORAL_ADDRESS: serverEnv().temporalAddress, TEMPORAL_NAMESPACE: serverEnv().namespace }), timeoutMs: 60_000 });
        expect((JSON.parse(status.stdout) as { usage: unknown }).usage).toEqual(out.usage);
      } finally {
        await connection.close();
      }
    }

    // Traces: the worker exports its last spans as it stops.
    const exited = new Promise((r) => worker!.once('exit', r));
    worker!.kill('SIGTERM');
    await exited;
    worker = undefined;
    expect(receiver.requests.every((r) => r.path === '/v1/traces')).toBe(true);
    expect(receiver.requests.some((r) => r.contentType.startsWith('application/x-protobuf'))).toBe(true);
    expect(receiver.requests.some((r) => r.contentType.startsWith('application/json'))).toBe(true);

    const id = out.workflow_id;
    const start = receiver.spans.find((s) => s.name === 'StartWorkflow:planExecuteReflect' && s.attributes.temporalWorkflowId === id);
    expect(start).toMatchObject({ service: 'perflow-test-cli', parentSpanId: '' });
    const trace = receiver.spans.filter((s) => s.traceId === start!.traceId);
    // Every span the worker exported for the run (the workflows' and the activities' name the workflow ID) is in this one trace.
    // (The CLI's later calls, e.g. DescribeWorkflow after --wait, are client operations of their own.)
    const ofRun = receiver.spans.filter((s) => s.service === 'perflow-test-worker' && String(s.attributes.temporalWorkflowId ?? s.attributes.workflowId ?? '').startsWith(id));
    expect(ofRun.length).toBeGreaterThan(5);
    expect(ofRun.filter((s) => s.traceId !== start!.traceId)).toEqual([]);

    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);
    const one = (name: string, where: (s: ReceivedSpan) => boolean = () => true) => {
      const found = trace.filter((s) => s.name === name && where(s));
      expect(found.map((s) => s.name)).toContain(name);
      return found[0];
    };
    // Properly parented: nothing but the client's span is a root, and every parent is in the trace.
    expect(trace.filter((s) => !parentOf(s)).map((s) => s.name)).toEqual(['StartWorkflow:planExecuteReflect']);

    // The run: an invoke_agent span (the interceptors' RunWorkflow span, named and described as the conventions say).
    const run = one('invoke_agent test-agent');
    expect(parentOf(run)).toBe(start);
    expect(run.service).toBe('perflow-test-worker');
    expect(trace.filter((s) => s.name.startsWith('RunWorkflow:planExecuteReflect'))).toEqual([]);
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'test-agent',
      'gen_ai.agent.id': id,
      'gen_ai.conversation.id': out.memory_id,
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': out.usage.input_tokens,
      'gen_ai.usage.output_tokens': out.usage.output_tokens,
    });
    expect(run.attributes['perflow.cost_usd']).toBeCloseTo(out.usage.cost_usd, 12);
    const planner = trace.filter((s) => s.name === 'RunActivity:planningModel');
    expect(planner).toHaveLength(3);
    for (const p of planner) {
      expect(parentOf(p)?.name).toBe('StartActivity:planningModel');
      expect(parentOf(parentOf(p)!)).toBe(run);
    }
    const children = trace.filter((s) => s.name === 'RunWorkflow:reactExecutor');
    expect(children).toHaveLength(2);
    for (const child of children) {
      expect(parentOf(child)?.name).toBe('StartChildWorkflow:reactExecutor');
      expect(parentOf(parentOf(child)!)).toBe(run);
    }

    // Planner calls are plan spans, executor turns chat spans: each with its usage and cost.
    const plans = trace.filter((s) => s.name === 'plan scripted');
    const chats = trace.filter((s) => s.name === 'chat scripted');
    expect([plans.length, chats.length]).toEqual([3, 4]);
    for (const call of [...plans, ...chats]) {
      expect(call.attributes).toMatchObject({ 'gen_ai.operation.name': call.name.split(' ')[0], 'gen_ai.provider.name': 'scripted', 'gen_ai.request.model': 'scripted', 'gen_ai.agent.name': 'test-agent' });
      expect(call.attributes['gen_ai.system']).toBeUndefined();
      const tokens = { input_tokens: Number(call.attributes['gen_ai.usage.input_tokens']), output_tokens: Number(call.attributes['gen_ai.usage.output_tokens']) };
      expect(tokens.input_tokens).toBeGreaterThan(0);
      expect(call.attributes['perflow.cost_usd']).toBeCloseTo(costAt(tokens), 12);
      // No message content unless the worker is told to capture it.
      expect(call.attributes['gen_ai.input.messages']).toBeUndefined();
    }
    for (const p of plans) expect(parentOf(p)?.name).toBe('RunActivity:planningModel');
    for (const child of children) expect(chats.filter((c) => parentOf(c)?.name === 'RunActivity:executionModel' && parentOf(parentOf(parentOf(c)!)!) === child)).toHaveLength(2);

    const tools = trace.filter((s) => s.name === 'execute_tool CalculatorTool');
    expect(tools).toHaveLength(2);
    for (const tool of tools) {
      expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'CalculatorTool', 'gen_ai.tool.type': 'function' });
      expect(parentOf(tool)?.name).toBe('RunActivity:callTool');
      expect(children).toContain(parentOf(parentOf(parentOf(tool)!)!));
    }
    // Every inference and tool span names the run's conversation, as its invoke_agent span does.
    expect([...plans, ...chats, ...tools].map((s) => [s.name, s.attributes['gen_ai.conversation.id']])).toEqual([...plans, ...chats, ...tools].map((s) => [s.name, out.memory_id]));

    // A traced run's history replays on untraced workflow code (the interceptors add headers, no commands).
    const { connection, client } = await connectTemporal();
    try {
      const untraced = await workflowBundle('plain');
      for (const workflowId of [id, `${id}/step-1`, `${id}/step-2`]) {
        const history = await client.workflow.getHandle(workflowId).fetchHistory();
        await Worker.runReplayHistory(inWorkflowThread({ workflowBundle: untraced, sinks: REPLAY_SINKS }), history, workflowId);
      }
    } finally {
      await connection.close();
    }
  });
  it('a run whose worker is SIGKILLed while it waits for a person, replayed by the next worker, exports each span once', async () => {
    if (!worker) await startWorker(false);
    const agentFile = join(dir, 'reviewed.json');
    writeFileSync(
      agentFile,
      JSON.stringify(
        scriptedAgent(
          { planner: [plan('compute 6*7', 'compute 2*3'), plan('compute 2*3'), final('42 and 6')], executor: [calculatorTurns('6*7', '42'), calculatorTurns('2*3', '6')] },
          { tools: [{ type: 'CalculatorTool', requires_approval: true }] },
        ),
      ),
    );
    const { temporalAddress, namespace } = serverEnv();
    const perflow = (args: string[]) => runProcess(process.execPath, [...BIN, ...args], { env: userEnv({ TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: namespace, PERFLOW_TASK_QUEUE: taskQueue }), timeoutMs: 90_000 });
    const started = await perflow(['run', '--agent', agentFile, '--question', 'What are 6*7 and 2*3?', '--json']);
    expect(started.code).toBe(0);
    const id = (JSON.parse(started.stdout) as { workflow_id: string }).workflow_id;
    const waitingIn = (step: number) =>
      eventually(`step ${step}'s tool approval`, async () => {
        const status = JSON.parse((await perflow(['status', id, '--json'])).stdout) as { pending?: Array<{ kind: string; step?: { index: number } }> };
        return status.pending?.some((d) => d.kind === 'tool' && d.step?.index === step - 1) ? true : undefined;
      });
    await waitingIn(1);
    // The spans that ended so far are exported (100 ms batches), then the worker dies without a word.
    await new Promise((r) => setTimeout(r, 1_000));
    const killed = new Promise((r) => worker!.once('exit', r));
    worker!.kill('SIGKILL');
    await killed;
    await startWorker(false);
    expect((await perflow(['approve-tool', id])).code).toBe(0);
    await waitingIn(2);
    expect((await perflow(['approve-tool', id])).code).toBe(0);
    const result = await perflow(['result', id, '--json']);
    expect((JSON.parse(result.stdout) as { response: string }).response).toBe('42 and 6');
    const stopped = new Promise((r) => worker!.once('exit', r));
    worker!.kill('SIGTERM');
    await stopped;
    worker = undefined;

    const root = receiver.spans.find((s) => s.name === 'invoke_agent test-agent' && s.attributes['gen_ai.agent.id'] === id);
    expect(root).toBeDefined();
    const spans = receiver.spans.filter((s) => s.traceId === root!.traceId);
    // Each span once: the replaying worker re-creates the spans of the history (with the same IDs) but exports none of them again.
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    const count = (name: string) => spans.filter((s) => s.name === name).length;
    expect({
      invoke_agent: count('invoke_agent test-agent'),
      steps: count('RunWorkflow:reactExecutor'),
      planner_activities: count('StartActivity:planningModel'),
      plan: count('plan scripted'),
      chat: count('chat scripted'),
      tools: count('execute_tool CalculatorTool'),
    }).toEqual({ invoke_agent: 1, steps: 2, planner_activities: 3, plan: 3, chat: 4, tools: 2 });
  });
  it("an agent tree: each sub-agent's run is an invoke_agent span under the agent tool's call that started it", async () => {
    if (!worker) await startWorker(false);
    const { temporalAddress, namespace } = serverEnv();
    const run = await runProcess(process.execPath, [...BIN, 'run', '--agent', resolve(__dirname, '../../examples/multi-agent/supervisor.json'), '--question', 'What does the trip cost?', '--wait', '--json'], {
      env: userEnv({ TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: namespace, PERFLOW_TASK_QUEUE: taskQueue }),
      timeoutMs: 120_000,
    });
    expect(run.code).toBe(0);
    const id = (JSON.parse(run.stdout) as { workflow_id: string }).workflow_id;
    const stopped = new Promise((r) => worker!.once('exit', r));
    worker!.kill('SIGTERM');
    await stopped;
    worker = undefined;
    const agents = receiver.spans.filter((s) => s.name.startsWith('invoke_agent ') && String(s.attributes['gen_ai.agent.id']).startsWith(id));
    const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
    // The nearest invoke_agent span above a span: the run that called it.
    const caller = (s: ReceivedSpan): ReceivedSpan | undefined => {
      for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) if (p.name.startsWith('invoke_agent ')) return p;
      return undefined;
    };
    expect(agents.map((s) => [String(s.attributes['gen_ai.agent.id']).slice(id.length), s.attributes['gen_ai.agent.name'], caller(s)?.attributes['gen_ai.agent.name']]).sort()).toEqual([
      ['', 'trip-supervisor', undefined],
      ['/step-1/agent-1', 'trip-researcher', 'trip-supervisor'],
      ['/step-1/agent-1/step-1/agent-1', 'trip-accountant', 'trip-researcher'],
      ['/step-2/agent-1', 'trip-accountant', 'trip-supervisor'],
    ]);
    // Each has its own conversation.
    expect(new Set(agents.map((s) => s.attributes['gen_ai.conversation.id'])).size).toBe(4);
  });
});
