/**
 * A worker in a process of its own, for tests that kill it (SIGKILL) mid-run.
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, MONGODB_URI, PERFLOW_TEST_DB, PERFLOW_TASK_QUEUE.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import type { Tool } from '../../activities/tools/tool';
import { workerConfigFromEnv } from '../../config/env';
import { createWorker } from '../../workers/main';

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
  const worker = await createWorker({
    ...workerConfigFromEnv(),
    database: env('PERFLOW_TEST_DB'),
    tools: [slowTool],
    workflows: { workflowBundle: { codePath: env('PERFLOW_WORKFLOW_BUNDLE') } },
  });
  process.stdout.write('worker ready\n');
  await worker.run();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
