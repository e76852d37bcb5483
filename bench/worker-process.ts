/**
 * The benchmark's worker in a process of its own, so its memory is measured apart from the
 * client's: perflow's worker as createWorker builds it, plus the floor workflows, their no-op
 * activities and BlobTool. Configured like any worker by its environment (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, MONGODB_URI naming the database, PERFLOW_TASK_QUEUE). Over IPC it reports
 * `ready`, answers `commands` with the MongoDB commands it has sent, by name, and stops on `stop`.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { MongoClient } from 'mongodb';
import { workerConfigFromEnv } from '../config/env';
import { createWorker } from '../workers/main';
import { benchActivities } from './activities';
import { blobTool } from './tools';

export type WorkerRequest = { type: 'commands' } | { type: 'stop' };
export type WorkerReport = { type: 'ready' } | { type: 'commands'; counts: Record<string, number> } | { type: 'failed'; message: string };

const report = (message: WorkerReport) => process.send?.(message);

/**
 * Counts the commands every MongoClient of this process sends. createWorker builds its own
 * client from the URI and does not expose it, so monitoring is switched on as clients
 * connect; the worker's is the only client here.
 */
function countMongoCommands(): Record<string, number> {
  const counts: Record<string, number> = {};
  const connect = MongoClient.prototype.connect;
  MongoClient.prototype.connect = function (this: MongoClient) {
    if (this.listenerCount('commandStarted') === 0) {
      this.options.monitorCommands = true;
      this.on('commandStarted', (e) => (counts[e.commandName] = (counts[e.commandName] ?? 0) + 1));
    }
    return connect.call(this);
  };
  return counts;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const counts = countMongoCommands();
  const worker = await createWorker({
    ...workerConfigFromEnv(),
    tools: [blobTool],
    workflows: { workflowsPath: require.resolve('./workflows') },
    extraActivities: benchActivities,
    tuning: { maxConcurrentWorkflowTaskExecutions: 100, maxConcurrentActivityTaskExecutions: 200 },
  });
  const running = worker.run();
  process.on('message', (request: WorkerRequest) => {
    if (request.type === 'commands') report({ type: 'commands', counts });
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
