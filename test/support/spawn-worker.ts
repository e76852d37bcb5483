/**
 * A perflow worker in a process of its own (test/support/worker-process.js), for tests that
 * SIGKILL it mid-run and start a fresh one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import type { MongoClient } from 'mongodb';
import { MemoryStore } from '../../stores/store';
import { connectMongo, connectTemporal, serverEnv, testPerflow, uniqueTaskQueue } from './env';
import type { PerflowClient } from '../../client/connect';
import { workflowBundle } from './workflow-bundles';

/** The workflow code of the test run (./workflow-bundles) in a file, so each started worker is ready quickly. */
async function bundleWorkflows(): Promise<string> {
  const bundle = await workflowBundle('plain');
  const path = join(mkdtempSync(join(tmpdir(), 'perflow-bundle-')), 'workflows.js');
  writeFileSync(path, bundle.code);
  return path;
}

/** Starts a worker process on `taskQueue` and database `db`; resolves once it polls. */
function spawnWorker(o: { taskQueue: string; db: string; bundlePath: string }): Promise<ChildProcess> {
  // The compiled worker, in this very process (SIGKILL reaches it: no launcher in between).
  const child = spawn(process.execPath, [join(__dirname, 'worker-process.js')], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: serverEnv().temporalAddress,
      MONGODB_URI: serverEnv().mongoUri,
      PERFLOW_TEST_DB: o.db,
      PERFLOW_TASK_QUEUE: o.taskQueue,
      PERFLOW_WORKFLOW_BUNDLE: o.bundlePath,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('worker ready')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`worker exited before it was ready (${code})`)));
  });
}

/** A test file's worker process and connections: set up before its tests, torn down after them. */
export interface WorkerProcessFixture {
  readonly client: Client;
  /** The client library's view of the worker's task queue and database. */
  readonly perflow: PerflowClient;
  readonly taskQueue: string;
  /** The worker's memory, in a database of this file's own. */
  readonly memory: MemoryStore;
  /** SIGKILLs the running worker (if any), waits for it to exit, and starts a fresh one. */
  restart(): Promise<void>;
}

export function useWorkerProcess(name: string): WorkerProcessFixture {
  const taskQueue = uniqueTaskQueue(name);
  const db = `perflow_${name.replace(/-/g, '_')}_${randomUUID().slice(0, 8)}`;
  let connection: Connection | undefined;
  let client: Client | undefined;
  let perflow: PerflowClient | undefined;
  let mongo: MongoClient | undefined;
  let bundlePath = '';
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    ({ connection, client } = await connectTemporal());
    perflow = testPerflow(client, { taskQueue, database: db });
    mongo = await connectMongo();
    bundlePath = await bundleWorkflows();
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    if (bundlePath) rmSync(dirname(bundlePath), { recursive: true, force: true });
    await mongo?.db(db).dropDatabase().catch(() => undefined);
    await mongo?.close();
    await perflow?.close();
    await connection?.close();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the worker fixture is not ready: use it inside a test');
    return v;
  };
  return {
    get client() {
      return ready(client);
    },
    get perflow() {
      return ready(perflow);
    },
    taskQueue,
    get memory() {
      return new MemoryStore(ready(mongo).db(db));
    },
    async restart() {
      if (worker) {
        const exited = new Promise((r) => worker!.once('exit', r));
        worker.kill('SIGKILL');
        await exited;
      }
      worker = await spawnWorker({ taskQueue, db, bundlePath });
    },
  };
}
