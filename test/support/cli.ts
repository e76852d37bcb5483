/**
 * The `perflow` CLI in tests, as people run it: a subprocess (`node bin/perflow.js …`) talking
 * to the test servers, with a worker in this process (a harness) on the task queue it is given,
 * and a temporary directory for agent and history files. Created before a file's tests, closed
 * after them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Tool } from '../../activities/tools/tool';
import { createHarness, type Harness } from './harness';
import { serverEnv } from './env';
import { runProcess, type ProcessResult } from './run-process';

const BIN = resolve(__dirname, '../../bin/perflow.js');

export interface CliFixture {
  readonly harness: Harness;
  /** A temporary directory, removed after the file's tests. */
  readonly dir: string;
  /** The environment the CLI runs with: the test servers and the harness's task queue. */
  readonly env: Record<string, string>;
  /** The MongoDB URI naming the harness's own database (for `perflow memory`). */
  readonly memoryUri: string;
  /** Runs the CLI with a bound on its duration; `env` adds to the fixture's. */
  perflow(args: string[], env?: Record<string, string>, timeoutMs?: number): Promise<ProcessResult>;
}

export function useCli(prefix: string, options: { tools?: Tool<never>[] } = {}): CliFixture {
  let harness: Harness | undefined;
  let dir: string | undefined;
  let env: Record<string, string> = {};
  beforeAll(async () => {
    harness = await createHarness(options);
    dir = mkdtempSync(join(tmpdir(), `perflow-${prefix}-`));
    env = {
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '',
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
      MONGODB_URI: process.env.MONGODB_URI ?? '',
      PERFLOW_TASK_QUEUE: harness.taskQueue,
    };
  });
  afterAll(async () => {
    await harness?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the CLI fixture is not ready: use it inside a test');
    return v;
  };
  return {
    get harness() {
      return ready(harness);
    },
    get dir() {
      return ready(dir);
    },
    get env() {
      return env;
    },
    get memoryUri() {
      return `${serverEnv().mongoUri.replace(/\/$/, '')}/${ready(harness).db.databaseName}`;
    },
    perflow: (args, extra = {}, timeoutMs = 60_000) => runProcess(process.execPath, [BIN, ...args], { env: { ...process.env, ...env, ...extra }, timeoutMs }),
  };
}
