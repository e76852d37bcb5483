/**
 * A perflow worker in a process of its own (test/support/worker-process.ts), for tests that
 * SIGKILL it mid-run and start a fresh one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { serverEnv } from './env';

/** The workflow code bundled once, so each started worker is ready quickly. */
export async function bundleWorkflows(): Promise<string> {
  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } });
  const path = join(mkdtempSync(join(tmpdir(), 'perflow-bundle-')), 'workflows.js');
  writeFileSync(path, bundle.code);
  return path;
}

/** Starts a worker process on `taskQueue` and database `db`; resolves once it polls. */
export function spawnWorker(o: { taskQueue: string; db: string; bundlePath: string }): Promise<ChildProcess> {
  // tsx as a require hook (not its CLI, which would run the worker in a grandchild that SIGKILL misses)
  const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), join(__dirname, 'worker-process.ts')], {
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
