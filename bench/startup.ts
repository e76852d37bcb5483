/**
 * The startup section: how fast perflow's processes start, as the installed package
 * (bench/installed-package.ts) and as a checkout (`node bin/perflow.js`: the sources through
 * tsx), next to `node -e 0` and `temporal --version`. Each command runs once not counted (disk
 * caches, a checkout's tsx transform cache and workflow bundle cache), then `runs` times, one at
 * a time: min / median / max of wall and CPU time, the median against the targets.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { findTemporalCli } from '../servers';
import { installPackage } from './installed-package';
import { spread, timeCommand, type Spread } from './process-timing';
import { startCliWorker, type Launcher } from './startup-worker';

/** The installed package's targets, median wall ms (the worker's: to polling); a checkout gets CHECKOUT_FACTOR times as long. */
const TARGET_MS = { help: 150, status: 600, run: 800, worker: 2_000 } as const;
/** The worker's CPU by the time it polls. */
const WORKER_CPU_TARGET_MS = 2_000;
const CHECKOUT_FACTOR = 2;
type Command = keyof typeof TARGET_MS;
const COMMANDS: Record<Command, string> = {
  help: 'perflow --help',
  status: 'perflow status ID (a completed run; a worker answers its query)',
  run: 'perflow run --agent FILE --question Q --json (returns once started; scripted agent)',
  worker: "perflow worker, spawn to its task queue's first poller (CPU at that moment; warm: one start first)",
};

/** A scripted plan-execute-reflect agent: one step, no tools. */
const AGENT = {
  name: 'startup',
  type: 'plan_execute_and_reflect',
  llm: { interface: 'scripted', script: { planner: ['{"steps": ["answer"], "result": ""}', '{"steps": [], "result": "ok"}'], executor: [[{ content: 'done' }]] } },
  tools: [],
};

export type StartupRow = [measure: string, perflow: string, baseline: string, ratio: string];
interface Sample {
  wallMs: number;
  cpuMs: number;
}
interface Figures {
  wall_ms: Spread;
  cpu_ms: Spread;
}
type LauncherFigures = Record<Command, Figures> & { worker_stop_ms: Spread };

const figures = (xs: Sample[]): Figures => ({ wall_ms: spread(xs.map((x) => x.wallMs)), cpu_ms: spread(xs.map((x) => x.cpuMs)) });

/** The environment of a shell a user opens: without npm's script variables. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

/**
 * The measured commands' environment: also without NODE_OPTIONS and NODE_EXTRA_CA_CERTS, which
 * Node reads at every start (a machine's setting, not perflow's: a baseline row says its cost).
 * The commands talk to local servers only.
 */
function measuredEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _options, NODE_EXTRA_CA_CERTS: _certs, ...env } = userEnv();
  return { ...env, ...extra };
}

/** One run not counted, then `runs` one after another. */
async function repeat(runs: number, once: () => Promise<Sample>): Promise<Sample[]> {
  await once();
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) samples.push(await once());
  return samples;
}

async function measureBaselines(runs: number, cwd: string): Promise<Record<string, Figures>> {
  const timed = async (command: string, args: string[], env = measuredEnv()) => figures(await repeat(runs, () => timeCommand(command, args, { cwd, env })));
  const baselines: Record<string, Figures> = { 'node -e 0': await timed(process.execPath, ['-e', '0']) };
  if (process.env.NODE_EXTRA_CA_CERTS) baselines['node -e 0 with NODE_EXTRA_CA_CERTS as set here'] = await timed(process.execPath, ['-e', '0'], userEnv());
  const temporalCli = findTemporalCli(process.env, { install: false });
  if (temporalCli) baselines['temporal --version'] = await timed(temporalCli, ['--version']);
  return baselines;
}

export interface StartupOptions {
  client: Client;
  /** TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and MONGODB_URI of the servers the commands use. */
  env: Record<string, string>;
  runs: number;
}

/** Every command through one launcher: the runs started first, with no worker yet; then the worker that runs them answers `status`. */
async function measureLauncher(o: StartupOptions, l: Launcher, agentFile: string): Promise<LauncherFigures> {
  const queue = `perflow-startup-${randomUUID().slice(0, 8)}`;
  const env = (taskQueue: string) => measuredEnv({ ...o.env, PERFLOW_TASK_QUEUE: taskQueue });
  const cli = (...args: string[]) => timeCommand(l.command, [...l.prefix, ...args], { cwd: l.cwd, env: env(queue) });
  const help = await repeat(o.runs, () => cli('--help'));
  const started: string[] = [];
  const run = await repeat(o.runs, async () => {
    const r = await cli('run', '--agent', agentFile, '--question', 'how fast does perflow start?', '--json');
    started.push((JSON.parse(r.stdout) as { workflow_id: string }).workflow_id);
    return r;
  });
  // The worker's start not counted (a checkout's workflow bundle cached here).
  const serving = await startCliWorker(l, env(queue), o.client);
  let status: Sample[];
  try {
    const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the startup runs did not complete in 120 s')), 120_000).unref());
    await Promise.race([Promise.all(started.map((id) => o.client.workflow.getHandle(id).result())), late]);
    status = await repeat(o.runs, () => cli('status', started[0]));
  } finally {
    await serving.stop();
  }
  const worker: Sample[] = [];
  const stops: number[] = [];
  for (let i = 0; i < o.runs; i++) {
    const w = await startCliWorker(l, env(`${queue}-${i}`), o.client);
    worker.push({ wallMs: w.pollingMs, cpuMs: w.cpuMs });
    stops.push(await w.stop());
  }
  return { help: figures(help), status: figures(status), run: figures(run), worker: figures(worker), worker_stop_ms: spread(stops) };
}

const ms = (x: number) => String(Math.round(x));
const cell = (f: Figures) => `wall ${ms(f.wall_ms.min)} / ${ms(f.wall_ms.median)} / ${ms(f.wall_ms.max)} ms, CPU ${ms(f.cpu_ms.min)} / ${ms(f.cpu_ms.median)} / ${ms(f.cpu_ms.max)} ms (min / median / max)`;
const medians = (f: Figures) => `median ${ms(f.wall_ms.median)} ms wall, ${ms(f.cpu_ms.median)} ms CPU`;
const met = (ok: boolean) => (ok ? 'met' : 'not met');

function verdict(command: Command, f: Figures, factor: number): string {
  const wall = TARGET_MS[command] * factor;
  const whose = factor === 1 ? '' : ` (${factor}× the package's)`;
  if (command !== 'worker') return `target: median ≤ ${wall} ms${whose}: ${met(f.wall_ms.median <= wall)}`;
  const cpu = WORKER_CPU_TARGET_MS * factor;
  return `target: median ≤ ${wall / 1000} s to polling, ≤ ${cpu / 1000} s CPU${whose}: wall ${met(f.wall_ms.median <= wall)}, CPU ${met(f.cpu_ms.median <= cpu)}`;
}

/** `how`: what every row shares, said once in the first. */
function startupRows(how: string, baselines: Record<string, Figures>, installed: LauncherFigures, checkout: LauncherFigures): StartupRow[] {
  const rows: StartupRow[] = Object.entries(baselines).map(([name, f]) => [`startup baseline: ${name}`, cell(f), '', '']);
  rows[0][0] += ` (${how})`;
  const node = baselines['node -e 0'];
  for (const command of Object.keys(TARGET_MS) as Command[]) {
    const stops = (l: LauncherFigures) => (command === 'worker' ? `; stopped by SIGINT in median ${ms(l.worker_stop_ms.median)} ms` : '');
    const [p, c] = [installed[command], checkout[command]];
    rows.push([`startup: ${COMMANDS[command]}, installed package`, cell(p) + stops(installed), `node -e 0: ${medians(node)}`, verdict(command, p, 1)]);
    rows.push([
      `startup: ${COMMANDS[command]}, checkout (node bin/perflow.js: the sources through tsx)`,
      cell(c) + stops(checkout),
      `installed package: ${medians(p)} (the checkout's wall ${(c.wall_ms.median / p.wall_ms.median).toFixed(1)}×)`,
      verdict(command, c, CHECKOUT_FACTOR),
    ]);
  }
  return rows;
}

/** The startup section, on servers already started (their environment in `o.env`); its temporary folder removed. */
export async function measureStartup(o: StartupOptions): Promise<{ rows: StartupRow[]; json: Record<string, unknown> }> {
  const dir = mkdtempSync(join(tmpdir(), 'perflow-startup-'));
  try {
    const pkg = await installPackage(dir, userEnv());
    // Wall time on a shared machine is CPU time plus waiting for a core: the load says how much to expect.
    const loadBefore = loadavg()[0];
    const agentFile = join(dir, 'agent.json');
    writeFileSync(agentFile, JSON.stringify(AGENT));
    const baselines = await measureBaselines(o.runs, dir);
    const installed = await measureLauncher(o, { command: pkg.bin, prefix: [], cwd: pkg.app }, agentFile);
    const root = join(__dirname, '..');
    const checkout = await measureLauncher(o, { command: process.execPath, prefix: [join(root, 'bin', 'perflow.js')], cwd: root }, agentFile);
    const load = [loadBefore, loadavg()[0]].map((x) => Math.round(x * 100) / 100);
    const how = `every startup row: ${o.runs} runs one at a time after one not counted; NODE_OPTIONS and NODE_EXTRA_CA_CERTS unset; machine load average ${load[0]} before, ${load[1]} after`;
    const json = { runs: o.runs, unset: ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS'], load_average: { before: load[0], after: load[1] }, targets_ms: { ...TARGET_MS, worker_cpu: WORKER_CPU_TARGET_MS }, checkout_factor: CHECKOUT_FACTOR, baselines, installed, checkout };
    return { rows: startupRows(how, baselines, installed, checkout), json };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
