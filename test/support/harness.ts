/**
 * Runs perflow workflows in tests: a real worker on its own task queue against the servers of
 * global-setup, with activities built from the given (scripted or real) dependencies.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Db, MongoClient } from 'mongodb';
import { MemoryStore } from '../../memory/store';
import type { RecordedRequest } from '../../activities/llm/scripted';
import type { Tool } from '../../activities/tools/tool';
import { providerConfigFromEnv } from '../../config/env';
import { encryptionDataConverter } from '../../codec/encryption';
import type { EncryptionKeyring } from '../../core/encryption-keyring';
import { createWorker } from '../../workers/main';
import { parseAgentDefinition, resolveParameters, sparseParameters } from '../../core/agent';
import { progressQuery, workflowTypeFor, type PlanExecuteReflectInput, type RunOutput } from '../../workflows';
import { connectMongo, connectTemporal, serverEnv, uniqueTaskQueue } from './env';

export interface Harness {
  client: Client;
  taskQueue: string;
  recorder: RecordedRequest[];
  /** The database holding this harness's memory (a fresh one per harness). */
  db: Db;
  memory: MemoryStore;
  /** Stops the worker and closes the connections. */
  close(): Promise<void>;
}

export async function createHarness(options: { tools?: Tool<never>[]; mongoUri?: string; encryption?: EncryptionKeyring } = {}): Promise<Harness> {
  // With `encryption`, the worker and the harness's client encrypt payloads as PERFLOW_ENCRYPTION_KEYS would.
  const { connection, client } = await connectTemporal(options.encryption ? encryptionDataConverter(options.encryption) : undefined);
  const taskQueue = uniqueTaskQueue('perflow-test');
  const recorder: RecordedRequest[] = [];
  const mongoUri = options.mongoUri ?? serverEnv().mongoUri;
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
    ...(options.encryption ? { encryption: options.encryption } : {}),
  });
  const running = worker.run();
  return {
    client,
    taskQueue,
    recorder,
    db,
    memory,
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await db.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
}

/** A harness for the test file: created before its tests, closed after them. */
export function useHarness(options: Parameters<typeof createHarness>[0] = {}): () => Harness {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await createHarness(options);
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
export function scriptedAgent(script: { planner?: string[]; executor?: unknown[][]; summary?: string[] }, extra: Record<string, unknown> = {}) {
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

/** The `progress` query of a run. */
export function progressOf(harness: Harness, id: string) {
  return harness.client.workflow.getHandle(id).query(progressQuery);
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
