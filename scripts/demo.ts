/**
 * `npm run demo`: the seed's example question answered end to end. Starts (or reuses, with
 * TEMPORAL_ADDRESS / MONGODB_URI) a Temporal dev server and a MongoDB-wire server, a worker,
 * loads demo/flights.json into the `flights` collection, runs a plan-execute-reflect agent
 * with the MongoDB tools on "How many flights from Beijing to Seattle?", and follows it live.
 * Servers, worker and the perflow console stay up for the Web UI and the console until Ctrl-C;
 * `--exit` stops at once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { MongoClient } from 'mongodb';
import { followRun } from '../client/follow-run';
import { startRun } from '../client/run';
import { perflowClient } from '../client/connect';
import { resolveParameters } from '../core/agent';
import { demoModel } from './demo-model';
import { startServers, stopServersOnSignals } from '../servers';
import { clientConfigFromEnv, redact } from '../config/env';
import { CONSOLE_PORT, startConsole, type ConsoleServer } from '../console/server';
import { createWorker } from '../workers/main';

const QUESTION = 'How many flights from Beijing to Seattle?';
const DATABASE = 'perflow_demo';
const root = join(__dirname, '..');

async function main(): Promise<void> {
  const exitAtOnce = process.argv.includes('--exit');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  stopServersOnSignals();
  const servers = await startServers(process.env);
  const mongoUri = `${servers.mongo.uri.replace(/\/[^/]*$/, '')}/${DATABASE}`;
  const mongo = await new MongoClient(mongoUri).connect();
  const flights = JSON.parse(readFileSync(join(root, 'demo', 'flights.json'), 'utf8')) as object[];
  await mongo.db(DATABASE).collection('flights').drop().catch(() => undefined);
  await mongo.db(DATABASE).collection('flights').insertMany(flights.map((f) => ({ ...f })));
  console.log(`loaded ${flights.length} flights into ${DATABASE}.flights`);

  const taskQueue = 'perflow-demo';
  const { temporal } = servers;
  const worker = await createWorker({ temporalAddress: temporal.address, namespace: temporal.namespace, taskQueue, mongoUri, database: DATABASE });
  const running = worker.run();
  const connection = await Connection.connect({ address: temporal.address });
  let consoleServer: ConsoleServer | undefined;
  try {
    const client = new Client({ connection, namespace: temporal.namespace });
    const ui = temporal.uiUrl ?? process.env.PERFLOW_TEMPORAL_UI_URL ?? 'http://localhost:8233';
    consoleServer = await demoConsole({
      ...process.env,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      MONGODB_URI: mongoUri,
      PERFLOW_TASK_QUEUE: taskQueue,
      PERFLOW_TEMPORAL_UI_URL: ui,
    });
    const { agent, said } = demoModel(process.env, join(root, 'examples'));
    console.log(said);
    const perflow = perflowClient(client, clientConfigFromEnv({ TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace, MONGODB_URI: mongoUri, PERFLOW_TASK_QUEUE: taskQueue }));
    const run = await startRun(perflow, { agent, parameters: resolveParameters(agent), question: QUESTION });
    console.log(`question: ${QUESTION}`);
    const out = await followRun(run.handle, (line) => console.log(`  ${line}`));
    const env = `TEMPORAL_ADDRESS=${temporal.address} MONGODB_URI=${redact(mongoUri)} PERFLOW_TASK_QUEUE=${taskQueue}`;
    console.log(`\nanswer: ${out.response}`);
    for (const [k, v] of Object.entries(run.ids)) console.log(`${k}: ${v}`);
    console.log(`ui: ${ui}/namespaces/${temporal.namespace}/workflows/${run.workflowId}/${run.runId}/history`);
    console.log(`console: ${consoleServer.openUrl}#/runs/${encodeURIComponent(run.workflowId)}`);
    console.log(`\ninspect:  ${env} npx perflow status ${run.workflowId}`);
    console.log(`memory:   ${env} npx perflow memory ${out.memory_id}`);
    console.log(`replay:   ${env} npx perflow replay ${run.workflowId}`);
    console.log(`reset:    ${env} npx perflow reset ${run.workflowId} --to first-workflow-task`);
    if (!exitAtOnce) {
      console.log('\nservers, worker and console stay up for the Web UI and the console; Ctrl-C stops them');
      await new Promise<void>((done) => process.once('SIGINT', () => done()));
    }
  } finally {
    await consoleServer?.close();
    worker.shutdown();
    await running.catch(() => undefined);
    await connection.close();
    await mongo.close();
    await servers.stop();
  }
}

/** The perflow console on the demo's servers: on its usual port, or another when that one is taken. */
async function demoConsole(env: NodeJS.ProcessEnv): Promise<ConsoleServer> {
  const options = { config: clientConfigFromEnv(env), agentsDir: join(root, 'examples') };
  return startConsole({ ...options, port: CONSOLE_PORT }).catch(() => startConsole({ ...options, port: 0 }));
}

main().catch((err) => {
  console.error(`perflow demo: ${(err as Error).message}`);
  process.exit(1);
});
