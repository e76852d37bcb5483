/**
 * A worker in a process of its own, for tests that kill it (SIGKILL) mid-run.
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, MONGODB_URI, PERFLOW_TEST_DB, PERFLOW_TASK_QUEUE.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { MongoClient } from 'mongodb';
import { z } from 'zod';
import { createActivities } from '../../activities';
import { MemoryStore } from '../../activities/memory/store';
import { calculatorTool } from '../../activities/tools/calculator';
import { toolRegistry, type Tool } from '../../activities/tools/tool';

/** Sleeps a little, so kills land while tools are running. */
export const slowTool = {
  type: 'SlowTool',
  description: 'Returns its label after a short delay.',
  input: z.object({ label: z.string(), ms: z.number().int().min(0).max(5_000) }),
  run: async ({ label, ms }: { label: string; ms: number }) => {
    await sleep(ms);
    return `slow ${label}`;
  },
} as unknown as Tool<never>;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  const mongo = await new MongoClient(env('MONGODB_URI'), { serverSelectionTimeoutMS: 2_000 }).connect();
  const memory = new MemoryStore(mongo.db(env('PERFLOW_TEST_DB')));
  await memory.ensureIndexes();
  const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env('PERFLOW_TASK_QUEUE'),
    workflowBundle: { codePath: env('PERFLOW_WORKFLOW_BUNDLE') },
    activities: createActivities({ tools: toolRegistry([calculatorTool as Tool<never>, slowTool]), memory }),
  });
  process.stdout.write('worker ready\n');
  await worker.run();
  await connection.close();
  await mongo.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
