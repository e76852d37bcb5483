/**
 * The benchmark's worker in a process of its own, so its memory is measured apart from the
 * client's: perflow's worker as createWorker builds it, plus the floor workflows, their no-op
 * activities and BlobTool. Configured like any worker by its environment (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, MONGODB_URI naming the database, PERFLOW_TASK_QUEUE). Over IPC it reports
 * `ready`, answers `commands` with the MongoDB commands it has sent and the milliseconds they
 * took, by name (and the commands by name and collection: which writes a step makes), and stops
 * on `stop`.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { workerConfigFromEnv } from '../config/env';
import { createWorker } from '../workers/main';
import { benchActivities } from './activities';
import { blobTool } from './tools';

export type WorkerRequest = { type: 'commands' } | { type: 'stop' };
export type WorkerReport = { type: 'ready' } | { type: 'commands'; counts: Record<string, number>; ms: Record<string, number>; byCollection: Record<string, number>; msByCollection: Record<string, number> } | { type: 'failed'; message: string };

const report = (message: WorkerReport) => process.send?.(message);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const worker = await createWorker({
    ...workerConfigFromEnv(),
    mongoOptions: { monitorCommands: true },
    // BENCH_NO_RUN_EVENTS: what the runs cost without their event streams.
    ...(process.env.BENCH_NO_RUN_EVENTS ? { runEvents: false as const } : {}),
    tools: [blobTool],
    // As in production, the workflow code comes prebuilt (the bench bundles it once), so bundling costs the worker nothing.
    workflows: process.env.BENCH_WORKFLOW_BUNDLE ? { workflowBundle: { codePath: process.env.BENCH_WORKFLOW_BUNDLE } } : { workflowsPath: require.resolve('./workflows') },
    extraActivities: benchActivities,
    tuning: {
      maxConcurrentWorkflowTaskExecutions: 100,
      maxConcurrentActivityTaskExecutions: 200,
      // --max-cached-workflows: bound the SDK's cache of workflow executions (memory vs replays).
      ...(process.env.BENCH_MAX_CACHED_WORKFLOWS ? { maxCachedWorkflows: Number(process.env.BENCH_MAX_CACHED_WORKFLOWS) } : {}),
    },
  });
  const counts: Record<string, number> = {};
  const ms: Record<string, number> = {};
  const byCollection: Record<string, number> = {};
  const msByCollection: Record<string, number> = {};
  const started = new Map<number, string>();
  worker.mongo.on('commandStarted', (e) => {
    counts[e.commandName] = (counts[e.commandName] ?? 0) + 1;
    // The live event shards count as one collection.
    const key = `${e.commandName} ${String((e.command as Record<string, unknown>)[e.commandName]).replace(/\.live\.[0-9a-f]+$/, '.live.*')}`;
    byCollection[key] = (byCollection[key] ?? 0) + 1;
    started.set(e.requestId, key);
  });
  worker.mongo.on('commandSucceeded', (e) => {
    ms[e.commandName] = (ms[e.commandName] ?? 0) + e.duration;
    const key = started.get(e.requestId);
    if (key !== undefined) msByCollection[key] = (msByCollection[key] ?? 0) + e.duration;
    started.delete(e.requestId);
  });
  worker.mongo.on('commandFailed', (e) => started.delete(e.requestId));
  const running = worker.run();
  process.on('message', (request: WorkerRequest) => {
    if (request.type === 'commands') report({ type: 'commands', counts, ms, byCollection, msByCollection });
    else worker.shutdown();
  });
  // The bench died without stopping us: stop polling its servers.
  process.on('disconnect', () => worker.shutdown());
  report({ type: 'ready' });
  await running;
  if (process.connected) process.disconnect();
}

main().catch((err: unknown) => {
  report({ type: 'failed', message: (err as Error).message });
  console.error(err);
  process.exit(1);
});
