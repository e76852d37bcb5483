/** Starts bench/worker-process.ts and talks to it: MongoDB command counts, memory, stop. */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { WorkerReport, WorkerRequest } from './worker-process';

export interface BenchWorker {
  /** The worker's process ID. */
  readonly pid: number;
  /** The MongoDB commands the worker has sent so far, by command name. */
  mongoCommands(): Promise<Record<string, number>>;
  /** The milliseconds the worker's MongoDB commands have taken so far (those that succeeded), by command name. */
  mongoCommandMs(): Promise<Record<string, number>>;
  /** The MongoDB commands the worker has sent so far and the milliseconds they took, by name and collection (`insert perflow_interactions`; the live event shards as `….live.*`). */
  mongoCommandsByCollection(): Promise<{ counts: Record<string, number>; ms: Record<string, number> }>;
  /** Starts a new peak-memory window. */
  resetPeakRss(): void;
  /** The worker's peak resident memory in the current window, MB (VmRSS sampled every 100 ms). */
  peakRssMb(): number;
  /** The worker process's peak resident memory since it started, MB (VmHWM). */
  highWaterMarkMb(): number;
  /** Stops the worker (in-flight tasks get its grace time) and waits for the process to exit. */
  stop(): Promise<void>;
}

/** A `Vm…:  123 kB` line of /proc/<pid>/status, in MB (0 once the process is gone). */
function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The next report of this type, or a rejection when the worker fails or exits first. */
function nextReport<T extends WorkerReport['type']>(child: ChildProcess, type: T): Promise<Extract<WorkerReport, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: WorkerReport) => {
      if (m.type === type) done(() => resolve(m as Extract<WorkerReport, { type: T }>));
      else if (m.type === 'failed') done(() => reject(new Error(`bench worker failed: ${m.message}`)));
    };
    const onExit = (code: number | null) => done(() => reject(new Error(`bench worker exited (code ${code})`)));
    const done = (settle: () => void) => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      settle();
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Forks the worker with `env` added to ours (tsx's loader comes with our execArgv) and waits until it polls. */
export async function startBenchWorker(env: Record<string, string>): Promise<BenchWorker> {
  const child = fork(require.resolve('./worker-process'), [], { env: { ...process.env, ...env }, stdio: 'inherit' });
  const pid = child.pid ?? 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await nextReport(child, 'ready');
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, procStatusMb(pid, 'VmRSS'))), 100);
  const send = (request: WorkerRequest) => child.send(request);
  return {
    pid,
    async mongoCommands() {
      const answer = nextReport(child, 'commands');
      send({ type: 'commands' });
      return { ...(await answer).counts };
    },
    async mongoCommandMs() {
      const answer = nextReport(child, 'commands');
      send({ type: 'commands' });
      return { ...(await answer).ms };
    },
    async mongoCommandsByCollection() {
      const answer = nextReport(child, 'commands');
      send({ type: 'commands' });
      const { byCollection, msByCollection } = await answer;
      return { counts: { ...byCollection }, ms: { ...msByCollection } };
    },
    resetPeakRss: () => (peak = procStatusMb(pid, 'VmRSS')),
    peakRssMb: () => Math.max(peak, procStatusMb(pid, 'VmRSS')),
    highWaterMarkMb: () => procStatusMb(pid, 'VmHWM'),
    async stop() {
      clearInterval(sampler);
      if (child.exitCode !== null || child.signalCode !== null) return;
      send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
