'use strict';
/**
 * A worker in a process of its own, for tests that kill it (SIGKILL) mid-run: the package's
 * compiled worker (dist/, built by the global setup: ./package-build.ts), as a deployment runs it,
 * with one tool of the tests' own. Plain JavaScript, so nothing compiles at its start.
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, MONGODB_URI, PERFLOW_TEST_DB, PERFLOW_TASK_QUEUE,
 * PERFLOW_WORKFLOW_BUNDLE.
 */
require('./code-cache-preload');
const { join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { DefaultLogger, Runtime } = require('@temporalio/worker');
const { z } = require('zod');

const dist = join(__dirname, '..', '..', 'dist');
const { workerConfigFromEnv } = require(join(dist, 'config', 'env'));
const { createWorker } = require(join(dist, 'workers', 'main'));

/** Sleeps a little, so kills land while tools are running. */
const slowTool = {
  type: 'SlowTool',
  description: 'Returns its label after a short delay.',
  input: z.object({ label: z.string(), ms: z.number().int().min(0).max(5_000) }),
  run: async ({ label, ms }) => {
    await sleep(ms);
    return `slow ${label}`;
  },
};

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = (name) => {
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
