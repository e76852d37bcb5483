/**
 * Runs perflow workflows in tests: a real worker on its own task queue against the servers of
 * global-setup, with activities built from the given (scripted or real) dependencies, running
 * the workflow code bundled once for the test run (./workflow-bundles).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Db, MongoClient } from 'mongodb';
import { MemoryStore } from '../../stores/store';
import type { RecordedRequest } from '../../activities/llm/scripted';
import type { Tool } from '../../activities/tools/tool';
import { providerConfigFromEnv, type PerflowWorkerConfig } from '../../config/env';
import type { PerflowClient } from '../../client/connect';
import type { WorkerPolicy } from '../../core/worker-policy';
import { encryptionDataConverter } from '../../codec/encryption';
import type { EncryptionKeyring } from '../../core/encryption-keyring';
import { createWorker } from '../../workers/main';
import { parseAgentDefinition, resolveParameters, sparseParameters } from '../../core/agent';
import { progressQuery, workflowTypeFor, type PlanExecuteReflectInput, type Progress, type RunOutput } from '../../workflows';
import { SearchAttributes } from '../../workflows/definitions';
import { TypedSearchAttributes } from '@temporalio/common';
import { startMongo, type MongoServer } from '../../servers';
import { connectMongo, connectTemporal, serverEnv, testPerflow, uniqueTaskQueue } from './env';
import { workflowBundle } from './workflow-bundles';

export interface Harness {
  client: Client;
  /** The client library's view of this harness: its Temporal client, task queue, database and encryption keys. */
  perflow: PerflowClient;
  taskQueue: string;
  recorder: RecordedRequest[];
  /** The database holding this harness's memory (a fresh one per harness). */
  db: Db;
  memory: MemoryStore;
  /** The MongoDB server the harness started for itself (with `ownMongo`). */
  ownMongo?: MongoServer;
  /** Stops the worker and closes the connections (and stops its own MongoDB server). */
  close(): Promise<void>;
}

export interface HarnessOptions {
  tools?: Tool<never>[];
  /** The MongoDB server to use (default: the test servers'). */
  mongoUri?: string;
  /** A MongoDB server of the harness's own, started with these variables (e.g. PERFLOW_MONGO_BACKEND) and stopped by `close`. */
  ownMongo?: Record<string, string>;
  encryption?: EncryptionKeyring;
  /** The model calls on a task queue of their own (PERFLOW_LLM_TASK_QUEUE), served by a second worker. */
  llm?: PerflowWorkerConfig['llm'];
  /** What agent files may make the worker do (default {@link TEST_POLICY}). */
  policy?: WorkerPolicy;
  /** The workflows module the worker runs (default perflow's): one under test/workflows/ adding workflows of its own. */
  workflowsPath?: string;
  /** `false`: the worker writes no run event streams. */
  runEvents?: false;
}

/**
 * The worker policy the tests declare: the MCP test servers run with this Node.js, the wire
 * servers listen on loopback, and the variables the tests' agent files read are PERFLOW_TEST_*.
 */
export const TEST_POLICY: WorkerPolicy = { mcpCommands: [process.execPath], hosts: ['127.0.0.1', 'localhost'], envVars: ['PERFLOW_TEST_*'] };

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const ownMongo = options.ownMongo ? await startOwnMongo(options.ownMongo) : undefined;
  // With `encryption`, the worker and the harness's client encrypt payloads as PERFLOW_ENCRYPTION_KEYS would.
  const { connection, client } = await connectTemporal(options.encryption ? encryptionDataConverter(options.encryption) : undefined);
  const taskQueue = uniqueTaskQueue('perflow-test');
  const recorder: RecordedRequest[] = [];
  const mongoUri = ownMongo?.uri ?? options.mongoUri ?? serverEnv().mongoUri;
  const mongo: MongoClient = await connectMongo(mongoUri);
  const database = `perflow_test_${taskQueue.split('-').pop()}`;
  const db = mongo.db(database);
  const memory = new MemoryStore(db);
  // The worker as perflow builds it, on this harness's task queue and database.
  const worker = await createWorker({
    temporalAddress: serverEnv().temporalAddress,
    namespace: serverEnv().namespace,
    taskQueue,
    mongoUri,
    database,
    tools: options.tools ?? [],
    recorder,
    providers: providerConfigFromEnv(),
    policy: options.policy ?? TEST_POLICY,
    ...(options.encryption ? { encryption: options.encryption } : {}),
    ...(options.llm ? { llm: options.llm } : {}),
    ...(options.runEvents === false ? { runEvents: false as const } : {}),
    // The workflow code bundled from the sources, once for the whole test run.
    workflows: { workflowBundle: await workflowBundle('plain', options.workflowsPath) },
  });
  const running = worker.run();
  const perflow = testPerflow(client, { taskQueue, database, mongoUri, ...(options.encryption ? { encryption: options.encryption } : {}) });
  return {
    client,
    perflow,
    taskQueue,
    recorder,
    db,
    memory,
    ...(ownMongo ? { ownMongo } : {}),
    async close() {
      worker.shutdown();
      await running;
      await perflow.close();
      await connection.close();
      await db.dropDatabase().catch(() => undefined);
      await mongo.close();
      await ownMongo?.stop();
    },
  };
}

/** A MongoDB-wire server started as global-setup starts one (not reusing MONGODB_URI), with `env` added to the environment. */
function startOwnMongo(env: Record<string, string>): Promise<MongoServer> {
  return startMongo({ ...process.env, ...env, MONGODB_URI: '' });
}

/**
 * A harness for the test file: created before its tests, closed after them. `options` may be a
 * function, called when the harness is created (after the `beforeAll` hooks declared before it).
 */
export function useHarness(options: HarnessOptions | (() => HarnessOptions) = {}): () => Harness {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await createHarness(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  return () => {
    if (!harness) throw new Error('the harness is not ready: use it inside a test');
    return harness;
  };
}

/** Workflow input for an agent file and question, as the client builds it. */
export function runInput(agentFile: unknown, question: string, runParams: Record<string, unknown> = {}): PlanExecuteReflectInput {
  // Test workers register test-only tools; the worker checks the types at run start.
  const agent = parseAgentDefinition(agentFile, { toolTypes: 'any' });
  return { agent, question, ...sparseParameters(resolveParameters(agent, runParams)) };
}

/** A scripted agent file. */
export function scriptedAgent(script: { planner?: string[]; executor?: unknown[][]; summary?: string[]; score?: string[] }, extra: Record<string, unknown> = {}) {
  return {
    name: 'test-agent',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'scripted', script },
    ...extra,
  };
}

export function workflowId(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export const plan = (...steps: string[]) => JSON.stringify({ steps, result: '' });
export const final = (result: string) => JSON.stringify({ steps: [], result });

/** Starts a run as the workflow type of its agent type, as `perflow run` does. */
export function startAgentRun(harness: Harness, input: PlanExecuteReflectInput, prefix = 'agent') {
  return harness.client.workflow.start<(i: PlanExecuteReflectInput) => Promise<RunOutput>>(workflowTypeFor(input.agent.type), {
    taskQueue: harness.taskQueue,
    workflowId: workflowId(prefix),
    args: [input],
  });
}

/** Runs an agent as {@link startAgentRun} starts it and returns its output. */
export async function runAgent(harness: Harness, input: PlanExecuteReflectInput, prefix = 'agent'): Promise<RunOutput> {
  return (await startAgentRun(harness, input, prefix)).result();
}

/** The model requests the harness's worker received whose messages mention `text` (a run's question, say). */
export function requestsAbout(harness: Harness, text: string): RecordedRequest[] {
  return harness.recorder.filter((r) => JSON.stringify(r.messages).includes(text));
}

/** The agent state each continued execution of a run started with (its input's `carried.agent_state`), in the order Temporal lists them. */
export async function carriedAgentStates<S>(harness: Harness, workflowId: string): Promise<S[]> {
  const states: S[] = [];
  for await (const w of harness.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const start = ((await harness.client.workflow.getHandle(workflowId, w.runId).fetchHistory()).events ?? [])[0].workflowExecutionStartedEventAttributes!;
    const input = JSON.parse(Buffer.from(start.input!.payloads![0].data!).toString()) as { carried?: { agent_state?: S } };
    if (input.carried?.agent_state) states.push(input.carried.agent_state);
  }
  return states;
}

/** The `progress` query of a run. */
export function progressOf(harness: Harness, id: string) {
  return harness.client.workflow.getHandle(id).query(progressQuery);
}

/** Waits until `ok` holds of what `read` gives (bounded: 60 s); the last value is in the error. */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 600; i++) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}

/** Polls a run's progress until `ok` holds (bounded); the last progress is in the error. */
export async function untilProgress(harness: Harness, id: string, ok: (p: Progress) => boolean, what: string): Promise<Progress> {
  let last: Progress | undefined;
  for (let i = 0; i < 300; i++) {
    last = await progressOf(harness, id).catch(() => undefined);
    if (last && ok(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last progress: ${JSON.stringify(last)}`);
}

/** Starts a run with perflow's search attributes, as `perflow run` does (those people's decisions and budgets set). */
export function startWithAttributes(harness: Harness, input: PlanExecuteReflectInput, prefix: string) {
  return harness.client.workflow.start<(i: PlanExecuteReflectInput) => Promise<RunOutput>>(workflowTypeFor(input.agent.type), {
    taskQueue: harness.taskQueue,
    workflowId: workflowId(prefix),
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SearchAttributes.agent, value: input.agent.name },
      { key: SearchAttributes.status, value: 'running' },
      { key: SearchAttributes.pending, value: 'none' },
      ...(input.parameters.tenant_id !== undefined ? [{ key: SearchAttributes.tenant, value: input.parameters.tenant_id }] : []),
    ]),
  });
}

/** The failure of a run that is expected to fail. */
export async function failureOf(promise: Promise<unknown>): Promise<{ type?: string; message: string }> {
  const err = await promise.then(
    () => {
      throw new Error('the run succeeded but was expected to fail');
    },
    (e: unknown) => e as { cause?: { type?: string; message: string } },
  );
  if (!err.cause) throw new Error('the failure has no cause');
  return err.cause;
}

/** A history payload's text: its data as the history holds it (base64 in a fetched history's JSON form, bytes otherwise). */
export function payloadText(data: unknown): string {
  if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
  return data instanceof Uint8Array ? Buffer.from(data).toString('utf8') : '';
}
