/**
 * The `perflow` CLI in tests, as people run it: a subprocess (the compiled CLI, ./package-build) talking
 * to the test servers, with a worker in this process (a harness) on the task queue it is given,
 * and a temporary directory for agent and history files. Created before a file's tests, closed
 * after them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useHarness, type Harness, type HarnessOptions } from './harness';
import { serverEnv } from './env';
import { runProcess, type ProcessResult } from './run-process';

import { BUILT_CLI_ARGS } from './package-build';

export interface CliFixture {
  readonly harness: Harness;
  /** A temporary directory, removed after the file's tests. */
  readonly dir: string;
  /** The environment the CLI runs with: the test servers and the harness's task queue. */
  readonly env: Record<string, string>;
  /** The MongoDB URI naming the harness's own database (for `perflow memory`). */
  readonly memoryUri: string;
  /** Writes an agent file into {@link dir} as `<name>.json` and returns its path. */
  agentFile(name: string, agent: unknown): string;
  /** Runs the CLI with a bound on its duration; `env` adds to the fixture's (a variable set to undefined is unset). */
  perflow(args: string[], env?: Record<string, string | undefined>, timeoutMs?: number): Promise<ProcessResult>;
}

export function useCli(prefix: string, options: HarnessOptions = {}): CliFixture {
  const harness = useHarness(options);
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `perflow-${prefix}-`));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const env = (): Record<string, string> => ({
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '',
    TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
    // The worker's memory database: the CLI reads memory and run events where the worker writes them.
    MONGODB_URI: `${serverEnv().mongoUri.replace(/\/$/, '')}/${harness().db.databaseName}`,
    PERFLOW_TASK_QUEUE: harness().taskQueue,
  });
  return {
    get harness() {
      return harness();
    },
    get dir() {
      if (dir === undefined) throw new Error('the CLI fixture is not ready: use it inside a test');
      return dir;
    },
    get env() {
      return env();
    },
    get memoryUri() {
      return `${serverEnv().mongoUri.replace(/\/$/, '')}/${harness().db.databaseName}`;
    },
    agentFile(name, agent) {
      const file = join(this.dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(agent));
      return file;
    },
    // Node leaves variables whose value is undefined out of a child's environment.
    perflow: (args, extra = {}, timeoutMs = 60_000) => runProcess(process.execPath, [...BUILT_CLI_ARGS, ...args], { env: { ...process.env, ...env(), ...extra }, timeoutMs }),
  };
}

/** The lines of a command's output that are not blank (a one-line error is one of them). */
export const nonEmptyLines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');
