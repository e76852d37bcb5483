/**
 * The Temporal server goes away mid-run and comes back: a dev server with a persisted
 * `--db-filename` is stopped while runs are between steps and restarted on the same port and
 * file; the worker and client reconnect and every run completes, with no duplicate memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { MemoryStore } from '../../stores/store';
import { createWorker, defineTool } from '../../workers/main';
import { freePort, startTemporalDevServer, type TemporalServer } from '../../servers';
import { planExecuteReflect } from '../../workflows';
import { connectMongo, serverEnv, uniqueTaskQueue } from '../support/env';
import { workflowBundle } from '../support/workflow-bundles';
import { final, plan, runInput, scriptedAgent, workflowId } from '../support/harness';

jest.setTimeout(240_000);

const slowTool = defineTool({
  type: 'SlowTool',
  description: 'Waits, then answers.',
  input: z.object({ ms: z.number() }),
  run: async ({ ms }) => {
    await new Promise((done) => setTimeout(done, ms));
    return `waited ${ms} ms`;
  },
});

const STEPS = 4;
const agent = scriptedAgent(
  {
    planner: [...Array.from({ length: STEPS }, (_, i) => plan(`wait ${i + 1}`)), final('all waited')],
    executor: Array.from({ length: STEPS }, () => [{ tool_calls: [{ name: 'SlowTool', input: { ms: 400 } }] }, { content: 'waited' }]),
  },
  { tools: [{ type: 'SlowTool' }] },
);

it('completes every run across a Temporal server restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perflow-restart-'));
  const options = { port: await freePort(), uiPort: await freePort(), dbFilename: join(dir, 'temporal.db') };
  let server: TemporalServer | undefined = await startTemporalDevServer(process.env, options);
  const mongo = await connectMongo();
  const db = mongo.db(`perflow_restart_${Date.now()}`);
  const memory = new MemoryStore(db);
  const taskQueue = uniqueTaskQueue('perflow-restart');
  const worker = await createWorker({
    temporalAddress: server.address,
    namespace: server.namespace,
    taskQueue,
    mongoUri: serverEnv().mongoUri,
    database: db.databaseName,
    tools: [slowTool],
    workflows: { workflowBundle: await workflowBundle('plain') },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const handles = await Promise.all(
      Array.from({ length: 3 }, () => client.workflow.start(planExecuteReflect, { taskQueue, workflowId: workflowId('restart'), args: [runInput(agent, 'wait four times')] })),
    );
    await new Promise((done) => setTimeout(done, 1_500)); // some steps done, others running
    await server.stop();
    server = undefined;
    await new Promise((done) => setTimeout(done, 2_000));
    server = await startTemporalDevServer(process.env, options);

    const outputs = await Promise.all(handles.map((h) => h.result()));
    for (const out of outputs) {
      expect(out.response).toBe('all waited');
      expect(out.steps_executed).toBe(STEPS);
      const traces = await memory.interactions.find({ memory_id: out.memory_id, origin: 'planner' }).toArray();
      expect(traces.map((t) => t.trace_number).sort()).toEqual([1, 2, 3, 4]);
    }
  } finally {
    worker.shutdown();
    await running.catch(() => undefined);
    await connection.close().catch(() => undefined);
    await server?.stop();
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
