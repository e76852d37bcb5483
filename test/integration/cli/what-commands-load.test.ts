/**
 * Each command loads what it uses, and nothing else: the compiled CLI run with a preload that
 * lists the npm packages the process loaded (test/support/loaded-packages.js), against the test
 * servers. Help and usage errors load no package at all; commands that talk to Temporal only do
 * not load the MongoDB driver, commands that read MongoDB only do not load the Temporal client,
 * and none loads the worker, the agent-file schemas, the price table or a protocol it does not use.
 * A worker loads a provider's SDK, the MCP client and OpenTelemetry only when a run needs them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_CLI } from '../../support/package-build';
import { connectTemporal, serverEnv, uniqueTaskQueue } from '../../support/env';
import { runProcess } from '../../support/run-process';

jest.setTimeout(120_000);

const PRELOAD = join(__dirname, '..', '..', 'support', 'loaded-packages.js');
let dir: string;
const queue = uniqueTaskQueue('what-loads');
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-what-loads-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of `perflow ARGS` on the test servers, its loaded packages written to `file`. */
function envFor(file: string): NodeJS.ProcessEnv {
  const { temporalAddress, namespace, mongoUri } = serverEnv();
  return { ...process.env, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: namespace, MONGODB_URI: `${mongoUri.replace(/\/$/, '')}/what_loads`, PERFLOW_TASK_QUEUE: queue, PERFLOW_LOADED_PACKAGES_FILE: file };
}

/** The packages `perflow ARGS` loaded, and its result. */
async function loaded(args: string[]): Promise<{ packages: string[]; code: number | null; stdout: string; stderr: string }> {
  const file = join(dir, `${args.join('_').replace(/[^\w-]/g, '')}.json`);
  const r = await runProcess(process.execPath, ['-r', PRELOAD, BUILT_CLI, ...args], { env: envFor(file) });
  return { packages: JSON.parse(readFileSync(file, 'utf8')) as string[], code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** Packages no command below needs: the worker, the protocols, the text diff, the eval checks. */
const NEVER = ['@temporalio/worker', '@temporalio/workflow', '@modelcontextprotocol/sdk', '@ag-ui/core', '@ag-ui/encoder', 'hono', 'openai', '@aws-sdk/client-bedrock-runtime', '@anthropic-ai/sdk', '@google/genai', 'diff', 're2js', 'jsonpath-plus', '@opentelemetry/sdk-trace-base'];

it.each([[['--help']], [['status', '--help']], [['run']], [['nonsense']]])('perflow %j loads no package', async (args) => {
  const r = await loaded(args);
  expect(r.packages).toEqual([]);
  expect(r.code).not.toBeNull();
});

it('status loads the Temporal client, not MongoDB, the agent-file schemas or the price table', async () => {
  const r = await loaded(['status', 'no-such-run']);
  expect(r.stderr).toContain('no-such-run'); // it asked Temporal, which has no such run
  expect(r.packages).toContain('@temporalio/client');
  for (const p of ['mongodb', 'zod', '@pydantic/genai-prices', ...NEVER]) expect(r.packages).not.toContain(p);
});

it('memory and budget show load MongoDB, not the Temporal client', async () => {
  for (const args of [['memory', 'no-such-memory'], ['budget', 'show']]) {
    const r = await loaded(args);
    expect(r.packages).toContain('mongodb');
    for (const p of ['@temporalio/client', '@grpc/grpc-js', ...NEVER]) expect(r.packages).not.toContain(p);
  }
});

it('run starts a run with the Temporal client and the agent-file schemas only: no MongoDB, no price table for a scripted model', async () => {
  const agent = join(dir, 'agent.json');
  writeFileSync(agent, JSON.stringify({ name: 'loads', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: ['{"result": "done"}'] } } }));
  const r = await loaded(['run', '--agent', agent, '--question', 'q', '--json']);
  expect(r.code).toBe(0);
  expect(r.packages).toEqual(expect.arrayContaining(['@temporalio/client', 'zod']));
  for (const p of ['mongodb', '@pydantic/genai-prices', ...NEVER]) expect(r.packages).not.toContain(p);
  // No worker polls this queue: end the run the test started.
  const { connection, client } = await connectTemporal();
  try {
    await client.workflow.getHandle((JSON.parse(r.stdout) as { workflow_id: string }).workflow_id).terminate('test over');
  } finally {
    await connection.close();
  }
});

it('a worker loads no provider SDK, MCP client or OpenTelemetry before a run needs one', async () => {
  const file = join(dir, 'worker.json');
  const worker = spawn(process.execPath, ['-r', PRELOAD, BUILT_CLI, 'worker'], { env: { ...envFor(file), PERFLOW_TASK_QUEUE: `${queue}-worker` }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => worker.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    worker.stdout.on('data', (d: Buffer) => d.toString().includes('perflow worker connected') && resolve());
    void exited.then((code) => reject(new Error(`the worker exited (${code}) before it connected`)));
  });
  worker.kill('SIGINT');
  expect(await exited).toBe(0);
  const packages = JSON.parse(readFileSync(file, 'utf8')) as string[];
  expect(packages).toEqual(expect.arrayContaining(['@temporalio/worker', 'mongodb']));
  for (const p of ['openai', '@aws-sdk/client-bedrock-runtime', '@anthropic-ai/sdk', '@google/genai', '@modelcontextprotocol/sdk', '@opentelemetry/sdk-trace-base', '@temporalio/interceptors-opentelemetry', '@pydantic/genai-prices']) expect(packages).not.toContain(p);
});

it('the client library loads no MongoDB driver, worker or provider SDK until a call needs one', async () => {
  const file = join(dir, 'library.json');
  const r = await runProcess(process.execPath, ['-r', PRELOAD, '-e', `require(${JSON.stringify(join(BUILT_CLI, '..', '..', 'client', 'index.js'))})`], { env: envFor(file) });
  expect(r.code).toBe(0);
  const packages = JSON.parse(readFileSync(file, 'utf8')) as string[];
  expect(packages).toContain('@temporalio/client');
  for (const p of ['mongodb', '@temporalio/worker', '@temporalio/workflow', 'openai', '@aws-sdk/client-bedrock-runtime', '@anthropic-ai/sdk', '@google/genai', '@modelcontextprotocol/sdk', '@pydantic/genai-prices', '@opentelemetry/sdk-trace-base']) expect(packages).not.toContain(p);
});
