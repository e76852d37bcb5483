/**
 * A `perflow worker` started as a user starts it, timed from its spawn until its workflow task
 * queue has a poller on the Temporal server, with the CPU the process had spent by then.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { processCpuMs } from './process-timing';

/** How to start the CLI: `command ...prefix COMMAND args` in `cwd`. */
export interface Launcher {
  command: string;
  prefix: string[];
  cwd: string;
}

export interface StartedWorker {
  /** Spawn to the first poller, ms. */
  pollingMs: number;
  /** The process's CPU at that moment, ms. */
  cpuMs: number;
  /** SIGINT, then waits for the exit (SIGKILL after 30 s); how long it took, ms. */
  stop(): Promise<number>;
}

const POLL_EVERY_MS = 25;
const START_WITHIN_MS = 120_000;

async function hasPoller(client: Client, namespace: string, name: string): Promise<boolean> {
  const r = await client.workflowService.describeTaskQueue({ namespace, taskQueue: { name }, taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW });
  return (r.pollers?.length ?? 0) > 0;
}

/** Starts `perflow worker` with `env` (its task queue in PERFLOW_TASK_QUEUE, new to the server) and waits until it polls. */
export async function startCliWorker(l: Launcher, env: NodeJS.ProcessEnv, client: Client): Promise<StartedWorker> {
  const t0 = performance.now();
  const child = spawn(l.command, [...l.prefix, 'worker'], { cwd: l.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let ended = false;
  const exited = new Promise<void>((ok) =>
    child.once('close', () => {
      ended = true;
      ok();
    }),
  );
  try {
    while (!(await hasPoller(client, env.TEMPORAL_NAMESPACE ?? 'default', env.PERFLOW_TASK_QUEUE!))) {
      if (ended || performance.now() - t0 > START_WITHIN_MS) throw new Error(ended ? 'exited' : `no poller after ${START_WITHIN_MS / 1000} s`);
      await sleep(POLL_EVERY_MS);
    }
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`perflow worker (${[l.command, ...l.prefix].join(' ')}): ${(err as Error).message}\n${output}`);
  }
  const pollingMs = performance.now() - t0;
  const cpuMs = processCpuMs(child.pid!);
  return {
    pollingMs,
    cpuMs,
    async stop() {
      const t = performance.now();
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      return performance.now() - t;
    },
  };
}
