/**
 * `npm run bench`: what Temporal orchestration and durability cost perflow, on servers started
 * for the run, with the worker in its own process (bench/worker-process.ts).
 *
 *   npm run bench -- [--concurrency 50,200] [--steps 10] [--runs 5]
 *                    [--backends sqlite,postgresql] [--latency-ms 1000] [--long [--long-steps 1000]]
 *                    [--startup-runs 5]
 *                    [--only startup,per-step,history,durability,parallel,streaming,eval,sub-agents,concurrency [--json FILE]]
 *
 * On the first memory backend: how fast perflow's commands and worker start, installed from
 * `npm pack` and as a checkout, next to `node -e 0` and `temporal --version` (bench/startup.ts);
 * per-step orchestration time next to a floor workflow doing the same Temporal round trips with
 * no-op activities; history, Temporal tasks and MongoDB commands per step; the run's start
 * event; perflow next to an in-process loop with model latency; history per step with the model
 * streaming and not; a model's first token from the activity to a
 * watchRun client at 1 and 50 runs at once, and what the streaming sends per second; the history
 * of a 100-case eval; what an agent tool's call adds to its caller's history, and a supervisor
 * with two sub-agents next to one agent doing their work; with
 * `--long`, a 1,000-step run (`--long-steps N`) through continue-as-new and a step of 200
 * ReAct iterations with 8 KB tool outputs. On every backend: K concurrent 5-step
 * runs next to the floor (on the first, also measured alone before the other sections), and the
 * worker's peak RSS. Writes bench/results/latest.{json,md}
 * (with `--only`, the table only; `--json FILE` writes its numbers there).
 *
 * Over 300 lines on purpose: the measurements share one set of servers, worker and report,
 * and read top to bottom as the report does; their building blocks live in bench/.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { MongoClient } from 'mongodb';
import { firstLine } from '../core/text';
import { startServers, stopServersOnSignals } from '../servers';
import { benchInput, independentStepsInput, longStepInput, type BenchRun } from '../bench/agents';
import { treeInputs } from '../bench/multi-agent';
import { activityTrouble, allHistories, carriedStateBytes, eventCount, fetchManyRunHistories, fetchRunHistories, historyBytes, startEventBytes, temporalTasks, type RunHistories } from '../bench/histories';
import { runInProcess } from '../bench/in-process-loop';
import { blobTool } from '../bench/tools';
import { startBenchWorker, type BenchWorker } from '../bench/worker-handle';
import { startWatchers, type FirstToken, type WatcherCounts } from '../bench/streaming';
import type { PlanExecuteReflectInput } from '../workflows';
import { resolveParameters } from '../core/agent';
import { startEval } from '../client/eval';
import { perflowClient } from '../client/connect';
import { clientConfigFromEnv } from '../config/env';
import { workflowBundleOptions } from '../workers/workflow-source';
import { measureStartup } from '../bench/startup';
import { CPU_ROLES, cpuMsBetween, cpuSnapshot, type CpuByRole, type CpuRole } from '../bench/process-cpu';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '50,200' },
    steps: { type: 'string', default: '10' },
    runs: { type: 'string', default: '5' },
    backends: { type: 'string', default: 'sqlite,postgresql' },
    'latency-ms': { type: 'string', default: '1000' },
    long: { type: 'boolean', default: false },
    'long-steps': { type: 'string', default: '1000' },
    'max-cached-workflows': { type: 'string' },
    'startup-runs': { type: 'string', default: '5' },
    only: { type: 'string' },
    json: { type: 'string' },
  },
});
/** `--only startup,per-step,history,durability,parallel,streaming,eval,sub-agents,concurrency`: the sections to measure (default all). */
const ONLY = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : undefined;
const measuring = (section: string) => !ONLY || ONLY.has(section);
const CONCURRENCY = args.concurrency.split(',').map(Number);
const STEPS = Number(args.steps);
const RUNS = Number(args.runs);
const BACKENDS = args.backends.split(',').map((b) => b.trim());
const LATENCY_MS = Number(args['latency-ms']);
const LONG_RUN_STEPS = Number(args['long-steps']);
const STARTUP_RUNS = Number(args['startup-runs']);
/** The longest step the parameter limits allow (executor_max_iterations 200), each turn with an 8 KB tool output. */
const LONG_STEP = { iterations: 200, toolBytes: 8_000 };

/** One table row: the measure, perflow's figure, the baseline's (floor or loop), their ratio. */
type Row = [measure: string, perflow: string, baseline: string, ratio: string];

/** A memory backend's servers, the worker process on them, and a client. */
interface Bench {
  /** As --backends names it. */
  backend: string;
  label: string;
  client: Client;
  worker: BenchWorker;
  taskQueue: string;
  /** The worker's environment: its servers, database (MONGODB_URI) and task queue. */
  env: Record<string, string>;
}

interface Finished {
  ms: number;
  workflowId: string;
  firstExecutionRunId: string;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const size = (bytes: number) => (bytes < 2 ** 20 ? `${round(bytes / 1024)} KB` : `${round(bytes / 2 ** 20, 2)} MB`);
const seconds = (ms: number) => `${round(ms / 1000, 2)} s`;

/** The memory backend as people name it, from what startMongo started. */
function backendLabel(kind: string): string {
  const labels: Record<string, string> = { ferretdb: 'FerretDB on SQLite', 'ferretdb-postgresql': 'FerretDB on PostgreSQL', external: 'MongoDB at MONGODB_URI' };
  return labels[kind] ?? kind;
}

/** `uri` naming `database` (the worker reads its database from MONGODB_URI). */
function withDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The benchmark's workflows (perflow's and the floor's), bundled once per bench as `npm run build` bundles perflow's. */
let workflowBundle: Promise<string> | undefined;
function benchWorkflowBundle(): Promise<string> {
  return (workflowBundle ??= (async () => {
    const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(require.resolve('../bench/workflows')), logger: new DefaultLogger('WARN') });
    const path = join(mkdtempSync(join(tmpdir(), 'perflow-bench-')), 'workflow-bundle.js');
    writeFileSync(path, code);
    return path;
  })());
}

/** --max-cached-workflows for a bench worker's environment. */
const maxCachedEnv = (): Record<string, string> => (args['max-cached-workflows'] ? { BENCH_MAX_CACHED_WORKFLOWS: String(args['max-cached-workflows']) } : {});

/** Starts the servers with this memory backend and the worker process on them; `body` measures. */
async function withBench<T>(backend: string, body: (bench: Bench) => Promise<T>): Promise<T> {
  const servers = await startServers({ ...process.env, PERFLOW_MONGO_BACKEND: backend });
  const database = `perflow_bench_${Date.now()}`;
  const taskQueue = `perflow-bench-${randomUUID().slice(0, 8)}`;
  let worker: BenchWorker | undefined;
  let connection: Connection | undefined;
  try {
    const env = {
      TEMPORAL_ADDRESS: servers.temporal.address,
      TEMPORAL_NAMESPACE: servers.temporal.namespace,
      MONGODB_URI: withDatabase(servers.mongo.uri, database),
      PERFLOW_TASK_QUEUE: taskQueue,
    };
    worker = await startBenchWorker({
      ...env,
      BENCH_WORKFLOW_BUNDLE: await benchWorkflowBundle(),
      ...maxCachedEnv(),
    });
    connection = await Connection.connect({ address: servers.temporal.address });
    const client = new Client({ connection, namespace: servers.temporal.namespace });
    return await body({ backend, label: backendLabel(servers.mongo.kind), client, worker, taskQueue, env });
  } finally {
    await worker?.stop();
    await connection?.close();
    await dropDatabase(servers.mongo.uri, database);
    await servers.stop();
  }
}

/** Leaves no benchmark data behind on a MongoDB we did not start. */
async function dropDatabase(uri: string, database: string): Promise<void> {
  const mongo = new MongoClient(uri, { serverSelectionTimeoutMS: 2_000 });
  await mongo
    .db(database)
    .dropDatabase()
    .catch(() => undefined);
  await mongo.close();
}

const start = (bench: Bench, type: 'planExecuteReflect' | 'floorRun', arg: PlanExecuteReflectInput | number) =>
  bench.client.workflow.start(type, { taskQueue: bench.taskQueue, workflowId: `bench-${type}-${randomUUID().slice(0, 8)}`, args: [arg] });

async function execute(bench: Bench, type: 'planExecuteReflect' | 'floorRun', arg: PlanExecuteReflectInput | number): Promise<Finished> {
  const t0 = performance.now();
  const handle = await start(bench, type, arg);
  await handle.result();
  return { ms: performance.now() - t0, workflowId: handle.workflowId, firstExecutionRunId: handle.firstExecutionRunId };
}
const perflowRun = (bench: Bench, input: PlanExecuteReflectInput) => execute(bench, 'planExecuteReflect', input);
const floorRun = (bench: Bench, steps: number) => execute(bench, 'floorRun', steps);
/** A short run of each kind first: the workflow bundle loaded, connections open. */
async function warmUp(bench: Bench): Promise<void> {
  await perflowRun(bench, benchInput({ steps: 2 }));
  await floorRun(bench, 2);
}
const historiesOf = (bench: Bench, run: Finished) => fetchRunHistories(bench.client, run.workflowId, run.firstExecutionRunId);

/** How fast perflow's processes start (installed package and checkout), on this backend's servers. */
async function measureStartupSection(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const { rows, json } = await measureStartup({ client: bench.client, env: bench.env, runs: STARTUP_RUNS });
  results.startup = json;
  return rows;
}

/** Per-step orchestration time, one run at a time, zero-latency model, no tools. */
async function measurePerStep(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  await warmUp(bench);
  const per: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    per.push((await perflowRun(bench, benchInput({ steps: STEPS }))).ms / STEPS);
    floor.push((await floorRun(bench, STEPS)).ms / STEPS);
  }
  const p50 = { per: percentile(per, 50), floor: percentile(floor, 50) };
  const p95 = { per: percentile(per, 95), floor: percentile(floor, 95) };
  results.per_step_ms = { steps: STEPS, runs: RUNS, p50, p95, ratio_p50: p50.per / p50.floor };
  return [[`per-step orchestration (${RUNS} run${RUNS === 1 ? '' : 's'} × ${STEPS} steps, one at a time)`, `p50 ${round(p50.per)} ms, p95 ${round(p95.per)} ms`, `floor: p50 ${round(p50.floor)} ms, p95 ${round(p95.floor)} ms`, `${round(p50.per / p50.floor, 2)}×`]];
}

/** What MongoDB commands the worker sent while `body` ran, by name and by name and collection. */
async function mongoCommandsDuring<T>(bench: Bench, body: () => Promise<T>): Promise<{ run: T; commands: Record<string, number>; byCollection: Record<string, number>; msByCollection: Record<string, number> }> {
  const before = { byName: await bench.worker.mongoCommands(), byCollection: await bench.worker.mongoCommandsByCollection() };
  const run = await body();
  const since = (now: Record<string, number>, then: Record<string, number>) => Object.fromEntries(Object.entries(now).map(([name, n]) => [name, n - (then[name] ?? 0)]).filter(([, n]) => n !== 0));
  const after = await bench.worker.mongoCommandsByCollection();
  return { run, commands: since(await bench.worker.mongoCommands(), before.byName), byCollection: since(after.counts, before.byCollection.counts), msByCollection: since(after.ms, before.byCollection.ms) };
}

/** A three-step and a six-step run with one BlobTool call per step (and `run`'s model settings): their histories and MongoDB commands. */
async function threeAndSix(bench: Bench, toolBytes: number, run: Omit<BenchRun, 'steps' | 'toolBytes'> = {}) {
  const measured = async (steps: number) => {
    const { run: finished, commands, byCollection } = await mongoCommandsDuring(bench, () => perflowRun(bench, benchInput({ steps, toolBytes, ...run })));
    return { histories: await historiesOf(bench, finished), commands, byCollection };
  };
  return { three: await measured(3), six: await measured(6) };
}

/** Parent growth per added step, (six − three) ÷ 3, and the mean executor child. */
function historyPerStep(three: RunHistories, six: RunHistories) {
  return {
    parent: { events: (eventCount(six.executions) - eventCount(three.executions)) / 3, bytes: (historyBytes(six.executions) - historyBytes(three.executions)) / 3 },
    child: { events: eventCount(six.children) / six.children.length, bytes: historyBytes(six.children) / six.children.length },
  };
}

const perAddedStep = (six: number, three: number) => (six - three) / 3;

/** History, Temporal tasks and MongoDB commands per step (one tool call per step), and the start event. */
async function measureHistory(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const rows: Row[] = [];
  const history: Record<string, unknown> = {};
  let small: Awaited<ReturnType<typeof threeAndSix>> | undefined;
  for (const [label, bytes] of [['1 KB', 1024], ['1 MB', 1024 * 1024]] as const) {
    const runs = await threeAndSix(bench, bytes);
    small ??= runs;
    const { parent, child } = historyPerStep(runs.three.histories, runs.six.histories);
    history[label] = { parent_per_added_step: parent, executor_child: child };
    rows.push([`history per added step, parent run, tool output ${label} ((6-step − 3-step) ÷ 3)`, `${round(parent.events)} events, ${size(parent.bytes)}`, '', '']);
    rows.push([`history of one executor child with one tool call, output ${label}`, `${round(child.events)} events, ${size(child.bytes)}`, '', '']);
  }
  results.history = history;

  const { three, six } = small!;
  const start = startEventBytes(six.histories.executions[0]);
  results.start_event_bytes = start;
  rows.push(['run start event (WorkflowExecutionStarted, default prompts)', size(start), '', '']);

  const tasks = { six: temporalTasks(allHistories([six.histories])), three: temporalTasks(allHistories([three.histories])) };
  const tasksPerStep = { per_added_step: perAddedStep(tasks.six, tasks.three), whole_run_per_step: tasks.six / 6 };
  results.temporal_tasks_per_step = tasksPerStep;
  rows.push(['Temporal tasks per step (workflow + activity tasks, parent and child)', `${round(tasksPerStep.per_added_step)} per added step; ${round(tasksPerStep.whole_run_per_step)} per step over a whole 6-step run`, '', '']);

  const names = [...new Set([...Object.keys(six.commands), ...Object.keys(three.commands)])].sort();
  const byName = Object.fromEntries(names.map((n) => [n, perAddedStep(six.commands[n] ?? 0, three.commands[n] ?? 0)]));
  const total = { six: Object.values(six.commands).reduce((a, b) => a + b, 0), three: Object.values(three.commands).reduce((a, b) => a + b, 0) };
  const places = [...new Set([...Object.keys(six.byCollection), ...Object.keys(three.byCollection)])].sort();
  const byCollection: Record<string, number> = Object.fromEntries(places.map((n) => [n, perAddedStep(six.byCollection[n] ?? 0, three.byCollection[n] ?? 0)]).filter(([, n]) => n !== 0));
  const mongo = { per_added_step: perAddedStep(total.six, total.three), per_added_step_by_command: byName, per_added_step_by_collection: byCollection, whole_run_per_step: total.six / 6, whole_6_step_run_by_collection: six.byCollection };
  results.mongo_commands_per_step = mongo;
  const detail = Object.entries(byCollection).map(([n, c]) => `${n} ${round(c)}`).join(', ');
  rows.push(['MongoDB commands per step, sent by the worker (step with one tool call)', `${round(mongo.per_added_step)} per added step (${detail}); ${round(mongo.whole_run_per_step)} per step over a whole 6-step run`, '', '']);
  return rows;
}

const STREAM_STEPS = 3;
const STREAM_LATENCY_MS = 2_000;
const STREAM_CONCURRENCY = 50;
const FIRST_TOKEN_TARGET_P95_MS = 300;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const byCommand = (commands: Record<string, number>, per: number) => Object.entries(commands).sort(([a], [b]) => a.localeCompare(b)).map(([n, c]) => `${n} ${round(c / per)}`).join(', ');

/** A watched-runs row: first-token latency p50/p95, how many first tokens, and how long they waited in the worker before their insert. */
function firstTokenRow(k: number, tokens: FirstToken[], queued: number[]): { row: Row; json: unknown } {
  const latencies = tokens.map((t) => t.arrived - t.at);
  const json = { runs_at_once: k, samples: latencies.length, p50_ms: percentile(latencies, 50), p95_ms: percentile(latencies, 95), max_ms: Math.max(...latencies), in_worker_before_insert: { p50_ms: percentile(queued, 50), p95_ms: percentile(queued, 95) } };
  const target = k === STREAM_CONCURRENCY ? `p95 target ≤ ${FIRST_TOKEN_TARGET_P95_MS} ms: ${json.p95_ms <= FIRST_TOKEN_TARGET_P95_MS ? 'met' : 'not met'}` : '';
  const runs = k === 1 ? `1 run at a time, ${RUNS} runs` : `${k} runs at once`;
  return { row: [`first model token, activity → watchRun client (${runs}, ${STREAM_STEPS} steps, scripted model latency_ms ${STREAM_LATENCY_MS}, one watchRun a run)`, `p50 ${round(json.p50_ms)} ms, p95 ${round(json.p95_ms)} ms (${json.samples} first tokens); of which waiting in the worker before its insert: p50 ${round(json.in_worker_before_insert.p50_ms)} ms, p95 ${round(json.in_worker_before_insert.p95_ms)} ms`, '', target], json };
}

/** What the worker and the watchers sent per second of streaming: MongoDB commands, and the watchers' Temporal requests. */
function streamingLoadRow(worker: Record<string, number>, workerInsertMs: number, watchers: WatcherCounts, elapsed: number): { row: Row; json: unknown } {
  const json = { seconds: elapsed, worker_mongo_commands_per_s: sum(Object.values(worker)) / elapsed, worker_by_command_per_s: Object.fromEntries(Object.entries(worker).map(([n, c]) => [n, c / elapsed])), worker_insert_mean_ms: workerInsertMs / Math.max(1, worker.insert ?? 0), watchers_mongo_commands_per_s: watchers.mongoCommands / elapsed, watchers_find_mean_ms: watchers.findMs / Math.max(1, watchers.finds), watchers_temporal_requests_per_s: watchers.temporalRequests / elapsed };
  const cell = `worker: ${round(json.worker_mongo_commands_per_s)} MongoDB commands/s (${byCommand(worker, elapsed)}; insert mean ${round(json.worker_insert_mean_ms)} ms); watchers: ${round(json.watchers_mongo_commands_per_s)} MongoDB commands/s (find, mean ${round(json.watchers_find_mean_ms)} ms), ${round(json.watchers_temporal_requests_per_s, 2)} Temporal requests/s (describe)`;
  return { row: [`MongoDB commands and Temporal requests per second of streaming (${STREAM_CONCURRENCY} watched runs at once, ${round(elapsed)} s)`, cell, '', ''], json };
}

/** First-token latency at one run and at STREAM_CONCURRENCY watched runs at once, and what streaming sent per second at the latter. */
async function measureStreaming(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const watchers = await startWatchers(bench.client, bench.env);
  try {
    const input = benchInput({ steps: STREAM_STEPS, latencyMs: STREAM_LATENCY_MS });
    const watched = async (k: number) => (await Promise.all(Array.from({ length: k }, () => watchers.firstTokens(() => start(bench, 'planExecuteReflect', input))))).flat();
    const one: FirstToken[] = [];
    for (let i = 0; i < RUNS; i++) one.push(...(await watched(1)));
    watchers.reset();
    const msBefore = await bench.worker.mongoCommandMs();
    const t0 = performance.now();
    const { run: many, commands } = await mongoCommandsDuring(bench, () => watched(STREAM_CONCURRENCY));
    const elapsed = (performance.now() - t0) / 1000;
    const insertMs = ((await bench.worker.mongoCommandMs()).insert ?? 0) - (msBefore.insert ?? 0);
    const load = streamingLoadRow(commands, insertMs, watchers.counts(), elapsed);
    const rows = [firstTokenRow(1, one, await watchers.queuedInWorker(one)), firstTokenRow(STREAM_CONCURRENCY, many, await watchers.queuedInWorker(many)), load];
    results.streaming = { first_token: rows.slice(0, 2).map((r) => r.json), per_second: load.json };
    return rows.map((r) => r.row);
  } finally {
    await watchers.close();
  }
}

/** History per step with the model streaming (latency 200 ms, so deltas are published) next to `stream: false`. */
async function measureStreamHistory(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  // Both set `stream`, so the runs' inputs are the same size.
  const on = await threeAndSix(bench, 1024, { latencyMs: 200, stream: true });
  const off = await threeAndSix(bench, 1024, { latencyMs: 200, stream: false });
  const per = { on: historyPerStep(on.three.histories, on.six.histories), off: historyPerStep(off.three.histories, off.six.histories) };
  results.history_streaming = per;
  const cell = (h: { events: number; bytes: number }) => `${round(h.events)} events, ${size(h.bytes)}`;
  const change = (a: number, b: number) => `${a >= b ? '+' : ''}${round(((a - b) / b) * 100)} %`;
  const row = (measure: string, which: 'parent' | 'child'): Row => {
    const [a, b] = [per.on[which], per.off[which]];
    return [`${measure}, model streaming (latency_ms 200)`, cell(a), `stream false: ${cell(b)}`, `events ${change(a.events, b.events)}, bytes ${change(a.bytes, b.bytes)}`];
  };
  return [row('history per added step, parent run, tool output 1 KB', 'parent'), row('history of one executor child with one tool call, output 1 KB', 'child')];
}

/** The same 5-step agent with model latency through perflow and as a plain in-process loop. */
async function measureDurabilityCost(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const input = benchInput({ steps: 5, toolBytes: 1024, latencyMs: LATENCY_MS });
  const perflow = (await perflowRun(bench, input)).ms;
  const t0 = performance.now();
  await runInProcess(input, [blobTool]);
  const loop = performance.now() - t0;
  results.durability_cost = { latency_ms: LATENCY_MS, perflow_ms: perflow, loop_ms: loop, ratio: perflow / loop };
  return [[`what durability costs: 5 steps, one 1 KB tool call each, model latency ${LATENCY_MS} ms`, seconds(perflow), `in-process loop: ${seconds(loop)}`, `${round(perflow / loop, 2)}×`]];
}

/** Four independent steps with a 1 s tool call each: grouped and run at once vs one at a time. */
async function measureParallelSteps(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const sequential = (await perflowRun(bench, independentStepsInput({ steps: 4, toolMs: 1_000, parallel: 1 }))).ms;
  const parallel = (await perflowRun(bench, independentStepsInput({ steps: 4, toolMs: 1_000, parallel: 4 }))).ms;
  results.parallel_steps = { steps: 4, tool_ms: 1_000, parallel_ms: parallel, sequential_ms: sequential, ratio: parallel / sequential };
  return [['4 independent steps, a 1 s tool call each: max_parallel_steps 4 (one group)', seconds(parallel), `max_parallel_steps 1, one step per plan: ${seconds(sequential)}`, `${round(parallel / sequential, 2)}× the sequential time`]];
}

/** K runs at once: throughput, latencies, the worker's peak RSS, CPU per run by process, activity timeouts and retries. */
async function concurrently(bench: Bench, k: number, start: () => Promise<Finished>) {
  bench.worker.resetPeakRss();
  const cpu0 = cpuSnapshot(bench.worker.pid);
  const t0 = performance.now();
  const runs = await Promise.all(Array.from({ length: k }, start));
  const elapsed = performance.now() - t0;
  const cpu = cpuMsBetween(cpu0, cpuSnapshot(bench.worker.pid));
  const peakRssMb = bench.worker.peakRssMb();
  const trouble = activityTrouble(allHistories(await fetchManyRunHistories(bench.client, runs)));
  const latencies = runs.map((r) => r.ms);
  return { runs_per_second: k / (elapsed / 1000), p50_ms: percentile(latencies, 50), p95_ms: percentile(latencies, 95), worker_peak_rss_mb: peakRssMb, cpu_ms_per_run: Object.fromEntries(CPU_ROLES.map((r) => [r, cpu[r] / k])) as CpuByRole, activity_timeouts: trouble.timeouts, activity_retries: trouble.retries };
}

const CPU_LABELS: Record<CpuRole, string> = { worker: 'worker', temporal: 'Temporal', ferretdb: 'FerretDB', postgres: 'PostgreSQL', bench: 'client' };
/** CPU per run by process, those that spent any. */
const cpuCell = (ms: CpuByRole) =>
  `CPU per run: ${CPU_ROLES.filter((r) => ms[r] > 0)
    .map((r) => `${CPU_LABELS[r]} ${Math.round(ms[r])} ms`)
    .join(', ')}`;

async function measureConcurrency(bench: Bench, k: number) {
  const { run: per, commands, byCollection, msByCollection } = await mongoCommandsDuring(bench, () => concurrently(bench, k, () => perflowRun(bench, benchInput({ steps: 5 }))));
  const mongoPerStep = sum(Object.values(commands)) / (k * 5);
  const floor = await concurrently(bench, k, () => floorRun(bench, 5));
  const cell = (c: typeof per) =>
    `${round(c.runs_per_second, 2)} runs/s, p50 ${seconds(c.p50_ms)}, p95 ${seconds(c.p95_ms)}; worker peak RSS ${round(c.worker_peak_rss_mb)} MB; ${c.activity_timeouts} activity timeouts, ${c.activity_retries} retries; ${cpuCell(c.cpu_ms_per_run)}`;
  const ratio = per.runs_per_second / floor.runs_per_second;
  return {
    row: [`${k} concurrent 5-step runs, ${bench.label}`, `${cell(per)}; ${round(mongoPerStep, 1)} MongoDB commands per step over whole runs`, `floor: ${cell(floor)}`, `${round(ratio, 2)}× the floor's runs/s`] as Row,
    json: { perflow: per, floor, throughput_ratio: ratio, mongo_commands_per_step: mongoPerStep, mongo_commands_per_step_by_collection: Object.fromEntries(Object.entries(byCollection).map(([n, c]) => [n, c / (k * 5)])), mongo_mean_ms_by_collection: Object.fromEntries(Object.entries(byCollection).map(([n, c]) => [n, (msByCollection[n] ?? 0) / c])) },
  };
}

/** A 1,000-step run: it must finish through continue-as-new with every execution's history bounded. */
async function measureLongRun(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const run = await perflowRun(bench, benchInput({ steps: LONG_RUN_STEPS }));
  const { executions } = await fetchRunHistories(bench.client, run.workflowId, run.firstExecutionRunId, { children: false });
  const maxEvents = Math.max(...executions.map((h) => h.events?.length ?? 0));
  const continued = executions.slice(1);
  const long = {
    steps: LONG_RUN_STEPS,
    executions: executions.length,
    max_events_per_execution: maxEvents,
    max_bytes_per_execution: Math.max(...executions.map((h) => historyBytes([h]))),
    start_event_bytes: startEventBytes(executions[0]),
    // What continue-as-new hands the next execution: the input (mostly the scripted agent's script) and, in it, perflow's carried state.
    max_continued_start_bytes: Math.max(0, ...continued.map(startEventBytes)),
    max_carried_state_bytes: Math.max(0, ...continued.map(carriedStateBytes)),
    wall_ms: run.ms,
  };
  results.long_run = long;
  const step = await perflowRun(bench, longStepInput(LONG_STEP));
  const child = await bench.client.workflow.getHandle(`${step.workflowId}/step-1`).fetchHistory();
  results.long_step = { ...LONG_STEP, events: child.events?.length ?? 0, history_bytes: historyBytes([child]), wall_ms: step.ms };
  return [
    [
      `${LONG_RUN_STEPS.toLocaleString('en')}-step run (max_steps ${LONG_RUN_STEPS + 1})`,
      `${long.executions} executions (continue-as-new), at most ${maxEvents.toLocaleString('en')} events and ${size(long.max_bytes_per_execution)} in one; start event ${size(long.start_event_bytes)}; a continued execution's start event at most ${size(long.max_continued_start_bytes)}, its carried state ${size(long.max_carried_state_bytes)}; ${round(run.ms / 60_000, 1)} min`,
      '',
      'carried state target ≤ 200 KB',
    ],
    [
      `a step of ${LONG_STEP.iterations} ReAct iterations, each with a ${LONG_STEP.toolBytes / 1000} KB tool output`,
      `${(child.events?.length ?? 0).toLocaleString('en')} events, ${size(historyBytes([child]))} of history; ${seconds(step.ms)}`,
      '',
      'target ≤ 10 MB (Temporal stops a history at 50 MB)',
    ],
  ];
}

const TREE_LATENCY_MS = 200;

/** An agent tool's call: the events and bytes it adds to its caller's histories (run and steps), and a supervisor's wall time against one agent's. */
async function measureSubAgents(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const inputs = await treeInputs(TREE_LATENCY_MS);
  const [tree, noCalls, oneAgent] = [await perflowRun(bench, inputs.supervisor), await perflowRun(bench, inputs.noCalls), await perflowRun(bench, inputs.oneAgent)];
  const caller = async (run: Finished) => allHistories([await historiesOf(bench, run)]); // the run and its steps, not the sub-agents' runs
  const [withCalls, without] = [await caller(tree), await caller(noCalls)];
  const perCall = { events: (eventCount(withCalls) - eventCount(without)) / 2, bytes: (historyBytes(withCalls) - historyBytes(without)) / 2 };
  results.sub_agents = { latency_ms: TREE_LATENCY_MS, per_call: perCall, supervisor_ms: tree.ms, one_agent_ms: oneAgent.ms };
  return [
    ['what one agent tool call adds to its caller (run and step histories, sub-agent excluded)', `${perCall.events} events, ${size(perCall.bytes)}`, 'the same steps answering without a tool', ''],
    [`a supervisor with two one-step sub-agents (model latency ${TREE_LATENCY_MS} ms)`, seconds(tree.ms), `the same work as one agent: ${seconds(oneAgent.ms)}`, `${round(tree.ms / oneAgent.ms, 2)}×`],
  ];
}

const EVAL_CASES = 100;
const EVAL_STEPS = 3;
const EVAL_CONCURRENCY = 20;
const EVAL_LATENCY_MS = 100;

/** A 100-case eval of a `steps`-step scripted agent (model latency EVAL_LATENCY_MS) at `concurrency`: wall time and the eval's own history. */
async function timedEval(bench: Bench, concurrency: number): Promise<{ ms: number; events: number; bytes: number; passed: number }> {
  const { agent } = benchInput({ steps: EVAL_STEPS, latencyMs: EVAL_LATENCY_MS });
  const cases = Array.from({ length: EVAL_CASES }, (_, i) => ({ case: { id: `case-${i}`, question: `question ${i}`, checks: [{ contains: 'ok' }, { max_steps: EVAL_STEPS + 1 }] }, parameters: resolveParameters(agent, { max_steps: EVAL_STEPS + 1 }) }));
  const t0 = performance.now();
  const { handle } = await startEval(perflowClient(bench.client, clientConfigFromEnv(bench.env)), { suite: { suite: { name: `bench-${concurrency}`, cases: cases.map((c) => c.case) }, agent, cases, warnings: [] }, concurrency });
  const result = await handle.result();
  const ms = performance.now() - t0;
  const history = await handle.fetchHistory();
  return { ms, events: eventCount([history]), bytes: historyBytes([history]), passed: result.passed };
}

/** The eval at EVAL_CONCURRENCY next to the same cases one after another (concurrency 1), and the eval workflow's history. */
async function measureEval(bench: Bench, results: Record<string, unknown>): Promise<Row[]> {
  const together = await timedEval(bench, EVAL_CONCURRENCY);
  const oneByOne = await timedEval(bench, 1);
  results.eval = { cases: EVAL_CASES, steps: EVAL_STEPS, latency_ms: EVAL_LATENCY_MS, concurrency: EVAL_CONCURRENCY, together, one_by_one: oneByOne };
  const what = `${EVAL_CASES}-case eval of a ${EVAL_STEPS}-step scripted agent (model latency ${EVAL_LATENCY_MS} ms)`;
  return [
    [`${what}: wall time at --concurrency ${EVAL_CONCURRENCY} (${together.passed} passed)`, seconds(together.ms), `one after another: ${seconds(oneByOne.ms)}`, `${round(oneByOne.ms / together.ms)}× faster`],
    [`history of that eval's workflow (whole; per case)`, `${together.events} events, ${size(together.bytes)}`, `${round(together.events / EVAL_CASES)} events, ${size(together.bytes / EVAL_CASES)} per case`, ''],
  ];
}

type ConcurrencyRow = Awaited<ReturnType<typeof measureConcurrency>>;

/**
 * The same k runs with no event streams, on a second worker that writes none (its own task
 * queue), next to the floor again: what live output costs, beside the row measured with it.
 */
async function measureWithoutStreams(bench: Bench, k: number, streamed: ConcurrencyRow['json']): Promise<{ row: Row; json: Record<string, unknown> }> {
  const taskQueue = `${bench.taskQueue}-no-streams`;
  const worker = await startBenchWorker({ ...bench.env, PERFLOW_TASK_QUEUE: taskQueue, BENCH_WORKFLOW_BUNDLE: await benchWorkflowBundle(), BENCH_NO_RUN_EVENTS: '1', ...maxCachedEnv() });
  try {
    const quiet: Bench = { ...bench, worker, taskQueue };
    await warmUp(quiet);
    const per = await concurrently(quiet, k, () => perflowRun(quiet, benchInput({ steps: 5 })));
    const floor = await concurrently(quiet, k, () => floorRun(quiet, 5));
    const ratio = per.runs_per_second / floor.runs_per_second;
    const cell = (rps: number, r: number, cpu: CpuByRole) => `${round(rps, 2)} runs/s (${round(r, 2)}× the floor); ${cpuCell(cpu)}`;
    return {
      row: [
        `${k} concurrent 5-step runs with no event streams (what live output costs), ${bench.label}`,
        cell(per.runs_per_second, ratio, per.cpu_ms_per_run),
        `with streams (the row above): ${cell(streamed.perflow.runs_per_second, streamed.throughput_ratio, streamed.perflow.cpu_ms_per_run)}`,
        `streams cost ${round((1 - streamed.throughput_ratio / ratio) * 100)} % of the runs/s next to the floor`,
      ],
      json: { perflow: per, floor, throughput_ratio: ratio },
    };
  } finally {
    await worker.stop();
  }
}

/** The concurrency rows, one per --concurrency level. */
async function measureConcurrencyLevels(bench: Bench): Promise<Map<number, ConcurrencyRow>> {
  const measured = new Map<number, ConcurrencyRow>();
  for (const k of CONCURRENCY) measured.set(k, await measureConcurrency(bench, k));
  return measured;
}

/**
 * Whether a concurrency row depends on what the database already holds: the same row measured
 * first on fresh servers (alone) and after every other section (in the full run).
 */
function aloneAndFullRow(k: number, label: string, alone: ConcurrencyRow['json'], full: ConcurrencyRow['json']) {
  const differ = Math.abs(full.perflow.runs_per_second - alone.perflow.runs_per_second) / alone.perflow.runs_per_second;
  const floorDiffer = Math.abs(full.floor.runs_per_second - alone.floor.runs_per_second) / alone.floor.runs_per_second;
  const cell = (c: ConcurrencyRow['json']) => `${round(c.perflow.runs_per_second, 2)} runs/s (${round(c.throughput_ratio, 2)}× the floor)`;
  // The commands that slowed most: what grows with what the database holds.
  const slower = Object.entries(full.mongo_mean_ms_by_collection)
    .map(([n, ms]) => [n, ms, alone.mongo_mean_ms_by_collection[n] ?? 0] as const)
    .sort((a, b) => b[1] - b[2] - (a[1] - a[2]))
    .slice(0, 3)
    .map(([n, ms, before]) => `${n} ${round(before)} → ${round(ms)} ms`)
    .join(', ');
  return {
    row: [
      `${k} concurrent 5-step runs, ${label}: measured alone (first, on fresh servers) and in the full run (after every other section); mean command time, alone → full, of the commands that slowed most`,
      `full run: ${cell(full)}; ${slower}`,
      `alone: ${cell(alone)}`,
      // The floor runs on the same Temporal server, whose own database the other sections filled too: how far it moved says what is not perflow's.
      `runs/s differ by ${round(differ * 100)} %: ${differ <= 0.1 ? 'within' : 'not within'} 10 % (the floor's by ${round(floorDiffer * 100)} %; ratios to it ${round(Math.abs(full.throughput_ratio - alone.throughput_ratio) / alone.throughput_ratio * 100)} % apart)`,
    ] as Row,
    json: { alone: alone.perflow.runs_per_second, full: full.perflow.runs_per_second, alone_ratio: alone.throughput_ratio, full_ratio: full.throughput_ratio, differ, floor_differ: floorDiffer },
  };
}

/** Everything measured on one backend: the single-run rows on the first backend only. */
async function measureBackend(bench: Bench, first: boolean, results: Record<string, unknown>): Promise<Row[]> {
  const rows: Row[] = [];
  // Where other sections run before the concurrency rows, the same rows first, alone: does what they stored slow them?
  const others = ['per-step', 'history', 'durability', 'parallel', 'streaming', 'eval', 'sub-agents'].some(measuring) || args.long;
  const alone = first && others && measuring('concurrency') ? (await warmUp(bench), await measureConcurrencyLevels(bench)) : undefined;
  if (first) {
    if (measuring('startup')) rows.push(...(await measureStartupSection(bench, results)));
    if (measuring('per-step')) rows.push(...(await measurePerStep(bench, results)));
    if (measuring('history')) rows.push(...(await measureHistory(bench, results)));
    if (measuring('durability')) rows.push(...(await measureDurabilityCost(bench, results)));
    if (measuring('parallel')) rows.push(...(await measureParallelSteps(bench, results)));
    if (measuring('streaming')) rows.push(...(await measureStreamHistory(bench, results)), ...(await measureStreaming(bench, results)));
    if (measuring('eval')) rows.push(...(await measureEval(bench, results)));
    if (measuring('sub-agents')) rows.push(...(await measureSubAgents(bench, results)));
    if (args.long) rows.push(...(await measureLongRun(bench, results)));
  } else {
    await warmUp(bench);
  }
  const concurrency: Record<string, unknown> = {};
  const full = measuring('concurrency') ? await measureConcurrencyLevels(bench) : new Map<number, ConcurrencyRow>();
  for (const [k, { row, json }] of full) {
    concurrency[k] = json;
    rows.push(row);
  }
  const k = CONCURRENCY[0];
  const streamed = full.get(k);
  const withoutStreams = streamed ? await measureWithoutStreams(bench, k, streamed.json) : undefined;
  if (withoutStreams) rows.push(withoutStreams.row);
  const agreement: Record<string, unknown> = {};
  for (const [k, measured] of alone ?? []) {
    const { row, json } = aloneAndFullRow(k, bench.label, measured.json, full.get(k)!.json);
    agreement[k] = { ...json, alone_row: measured.json };
    rows.push(row);
  }
  const peak = bench.worker.highWaterMarkMb();
  const backends = (results.backends ??= {}) as Record<string, unknown>;
  backends[bench.backend] = { label: bench.label, worker_peak_rss_mb: peak, concurrency, ...(withoutStreams ? { without_streams: { concurrency: k, ...withoutStreams.json } } : {}), ...(alone ? { concurrency_alone_and_full: agreement } : {}) };
  rows.push([`worker peak RSS over the whole bench on ${bench.label} (worker in its own process)`, `${round(peak)} MB`, '', '']);
  return rows;
}

async function main(): Promise<void> {
  stopServersOnSignals();
  const results: Record<string, unknown> = {};
  const rows: Row[] = [];
  const notes: string[] = [];
  let measuredOnce: string | undefined;
  for (const backend of BACKENDS) {
    try {
      await withBench(backend, async (bench) => {
        rows.push(...(await measureBackend(bench, measuredOnce === undefined, results)));
        measuredOnce ??= bench.label;
      });
    } catch (err) {
      // A backend that cannot start (no PostgreSQL binaries) is skipped; the others still count.
      notes.push(`${backend}: not measured (${firstLine(err)})`);
      console.error(`perflow bench: ${backend}: ${firstLine(err)}`);
    }
  }
  if (workflowBundle) rmSync(dirname(await workflowBundle), { recursive: true, force: true });
  if (measuredOnce === undefined) throw new Error(notes.join('; '));
  write(results, rows, notes, measuredOnce);
}

function write(results: Record<string, unknown>, rows: Row[], notes: string[], singleRunBackend: string): void {
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const command = `npm run bench -- --concurrency ${CONCURRENCY.join(',')} --steps ${STEPS} --runs ${RUNS} --backends ${BACKENDS.join(',')} --latency-ms ${LATENCY_MS}${args.long ? ` --long --long-steps ${LONG_RUN_STEPS}` : ''}${args['max-cached-workflows'] ? ` --max-cached-workflows ${args['max-cached-workflows']}` : ''}${measuring('startup') ? ` --startup-runs ${STARTUP_RUNS}` : ''}${args.only ? ` --only ${args.only}` : ''}`;
  const table = [
    `Machine: ${machine}. Command: \`${command}\`. Scripted model; Temporal dev server and the memory backend on the same machine; the worker in its own process. Rows without a backend ran on ${singleRunBackend}.`,
    '',
    '| measure | perflow | baseline | ratio |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    ...(notes.length > 0 ? ['', ...notes.map((n) => `Note: ${n}.`)] : []),
  ].join('\n');
  const json = `${JSON.stringify({ machine, command, date: new Date().toISOString(), notes, ...results }, null, 2)}\n`;
  // Some sections only: the table (and the numbers where --json says), not the results of record.
  if (ONLY) {
    if (args.json) writeFileSync(args.json, json);
    return void console.log(table);
  }
  const dir = join(__dirname, '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), json);
  writeFileSync(join(dir, 'latest.md'), `${table}\n`);
  console.log(table);
}

main().catch((err) => {
  console.error(`perflow bench: ${(err as Error).message}`);
  process.exit(1);
});
