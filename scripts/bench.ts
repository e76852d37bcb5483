/**
 * `npm run bench`: what Temporal orchestration costs perflow, on servers started for the run.
 *
 *   npm run bench -- [--concurrency 50,200] [--steps 10] [--runs 5]
 *
 * With the scripted zero-latency model it measures: per-step orchestration time of
 * plan-execute-reflect next to a floor workflow doing the same round trips with no-op
 * activities; K concurrent 5-step runs on one worker; history events and bytes per step with
 * 1 KB and 1 MB tool outputs; the worker's peak RSS. Writes bench/results/latest.{json,md}.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Runtime, DefaultLogger } from '@temporalio/worker';
import { MongoClient } from 'mongodb';
import { z } from 'zod';
import { createWorker, defineTool } from '../workers/main';
import { parseAgentDefinition, resolveParameters } from '../core/agent';
import { startServers, stopServersOnSignals } from '../servers';
import { benchActivities } from '../bench/activities';
import type { PlanExecuteReflectInput } from '../workflows';

const { values: args } = parseArgs({
  options: { concurrency: { type: 'string', default: '50,200' }, steps: { type: 'string', default: '10' }, runs: { type: 'string', default: '5' } },
});
const CONCURRENCY = args.concurrency.split(',').map(Number);
const STEPS = Number(args.steps);
const RUNS = Number(args.runs);

const blobTool = defineTool({
  type: 'BlobTool',
  description: 'Returns that many bytes.',
  input: z.object({ bytes: z.number() }),
  run: async ({ bytes }) => 'x'.repeat(bytes),
});

const plan = (...steps: string[]) => JSON.stringify({ steps, result: '' });
const final = (result: string) => JSON.stringify({ steps: [], result });

/** A scripted run of `steps` steps; with `toolBytes`, each step calls BlobTool once. */
function input(steps: number, toolBytes?: number): PlanExecuteReflectInput {
  const turn = toolBytes === undefined ? [{ content: 'done' }] : [{ tool_calls: [{ name: 'BlobTool', input: { bytes: toolBytes } }] }, { content: 'done' }];
  const agent = parseAgentDefinition(
    {
      name: 'bench',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner: [...Array.from({ length: steps }, (_, i) => plan(`step ${i + 1}`)), final('ok')], executor: Array.from({ length: steps }, () => turn) } },
      tools: toolBytes === undefined ? [] : [{ type: 'BlobTool' }],
    },
    { toolTypes: 'any' },
  );
  return { agent, question: 'bench', parameters: resolveParameters(agent, { max_steps: steps + 1 }) };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  stopServersOnSignals();
  const servers = await startServers();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const mongo = await new MongoClient(servers.mongo.uri).connect();
  const db = mongo.db(`perflow_bench_${Date.now()}`);
  const taskQueue = `perflow-bench-${randomUUID().slice(0, 8)}`;
  // The worker as perflow builds it, with the floor workflow and its no-op activities added.
  const worker = await createWorker({
    temporalAddress: servers.temporal.address,
    namespace: servers.temporal.namespace,
    taskQueue,
    mongoUri: servers.mongo.uri,
    database: db.databaseName,
    tools: [blobTool],
    workflows: { workflowsPath: require.resolve('../bench/workflows') },
    extraActivities: benchActivities,
    tuning: { maxConcurrentWorkflowTaskExecutions: 100, maxConcurrentActivityTaskExecutions: 200 },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: servers.temporal.address });
  const client = new Client({ connection, namespace: servers.temporal.namespace });
  const start = (type: 'planExecuteReflect' | 'floorRun', steps: number, toolBytes?: number) =>
    client.workflow.start(type, {
      taskQueue,
      workflowId: `bench-${type}-${randomUUID().slice(0, 8)}`,
      args: type === 'floorRun' ? [steps] : [input(steps, toolBytes)],
    });
  const timed = async (type: 'planExecuteReflect' | 'floorRun', steps: number) => {
    const t0 = performance.now();
    const h = await start(type, steps);
    await h.result();
    return performance.now() - t0;
  };
  const results: Record<string, unknown> = {};
  const md: string[] = [];
  try {
    // 1. Per-step orchestration time, one run at a time.
    await timed('planExecuteReflect', 2); // warm-up: bundle caches, connections
    await timed('floorRun', 2);
    const perStep = { per: [] as number[], floor: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      perStep.per.push((await timed('planExecuteReflect', STEPS)) / STEPS);
      perStep.floor.push((await timed('floorRun', STEPS)) / STEPS);
    }
    const p50 = { per: percentile(perStep.per, 50), floor: percentile(perStep.floor, 50) };
    const p95 = { per: percentile(perStep.per, 95), floor: percentile(perStep.floor, 95) };
    results.per_step_ms = { steps: STEPS, runs: RUNS, p50, p95, ratio_p50: p50.per / p50.floor };
    md.push(`| per-step orchestration (${RUNS} runs × ${STEPS} steps, one at a time) | p50 ${round(p50.per)} ms, p95 ${round(p95.per)} ms | p50 ${round(p50.floor)} ms, p95 ${round(p95.floor)} ms | ${round(p50.per / p50.floor, 2)}× |`);

    // 2. K concurrent 5-step runs.
    const concurrent: Record<string, unknown> = {};
    for (const k of CONCURRENCY) {
      for (const type of ['planExecuteReflect', 'floorRun'] as const) {
        const t0 = performance.now();
        const latencies = await Promise.all(Array.from({ length: k }, () => timed(type, 5)));
        const seconds = (performance.now() - t0) / 1000;
        concurrent[`${type}_${k}`] = { runs_per_second: k / seconds, p50_ms: percentile(latencies, 50), p95_ms: percentile(latencies, 95) };
      }
      const a = concurrent[`planExecuteReflect_${k}`] as { runs_per_second: number; p50_ms: number; p95_ms: number };
      const b = concurrent[`floorRun_${k}`] as typeof a;
      md.push(
        `| ${k} concurrent 5-step runs, one worker | ${round(a.runs_per_second)} runs/s, p50 ${round(a.p50_ms / 1000, 2)} s, p95 ${round(a.p95_ms / 1000, 2)} s | ${round(b.runs_per_second)} runs/s, p50 ${round(b.p50_ms / 1000, 2)} s, p95 ${round(b.p95_ms / 1000, 2)} s | ${round(b.runs_per_second / a.runs_per_second, 2)}× the time |`,
      );
    }
    results.concurrent = concurrent;

    // 3. History growth per step with small and huge tool outputs (claim check).
    const growth: Record<string, unknown> = {};
    for (const [label, bytes] of [['1 KB', 1024], ['1 MB', 1024 * 1024]] as const) {
      const h = await start('planExecuteReflect', 3, bytes);
      await h.result();
      let events = 0;
      let size = 0;
      for (const id of [h.workflowId, ...[1, 2, 3].map((n) => `${h.workflowId}/step-${n}`)]) {
        const history = await client.workflow.getHandle(id).fetchHistory();
        events += history.events?.length ?? 0;
        size += temporal.api.history.v1.History.encode(history).finish().length;
      }
      growth[label] = { events_per_step: events / 3, bytes_per_step: size / 3 };
      md.push(`| history per step, tool output ${label} (run + executor child) | ${round(events / 3)} events, ${round(size / 3 / 1024)} KB | | |`);
    }
    results.history_growth = growth;
    results.worker_peak_rss_mb = peakRss / 2 ** 20;
    md.push(`| worker peak RSS (worker, client and bench in one process) | ${round(peakRss / 2 ** 20)} MB | | |`);
  } finally {
    clearInterval(sampler);
    worker.shutdown();
    await running.catch(() => undefined);
    await connection.close();
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
    await servers.stop();
  }
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const command = `npm run bench -- --concurrency ${CONCURRENCY.join(',')} --steps ${STEPS} --runs ${RUNS}`;
  const table = [
    `Machine: ${machine}. Command: \`${command}\`. Scripted zero-latency model; Temporal dev server (SQLite) and FerretDB on the same machine.`,
    '',
    '| measure | plan-execute-reflect | floor (same round trips, no-op activities) | ratio |',
    '|---|---|---|---|',
    ...md,
  ].join('\n');
  const dir = join(__dirname, '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), JSON.stringify({ machine, command, date: new Date().toISOString(), ...results }, null, 2));
  writeFileSync(join(dir, 'latest.md'), `${table}\n`);
  console.log(table);
}

main().catch((err) => {
  console.error(`perflow bench: ${(err as Error).message}`);
  process.exit(1);
});
