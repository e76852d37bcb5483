/**
 * A Temporal server set up before some of perflow's search attributes existed (here: without
 * PerflowPending): the worker says which are missing and how to add them, runs start and finish
 * without them (an eval's case runs too), and `perflow pending` says in one line which attribute it needs.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startTemporalDevServer, type TemporalServer } from '../../servers';
import { createWorker, missingSearchAttributesLine, type PerflowWorker } from '../../workers/main';
import { providerConfigFromEnv } from '../../config/env';
import { loadAgentFile, startRun } from '../../client/run';
import { evalResult, loadSuite, startEval } from '../../client/eval';
import { SearchAttributes } from '../../workflows/definitions';
import { serverEnv, testPerflow, uniqueTaskQueue } from '../support/env';
import type { PerflowClient } from '../../client/connect';
import { runProcess } from '../support/run-process';
import { final, plan } from '../support/harness';
import { BUILT_CLI_ARGS } from '../support/package-build';

jest.setTimeout(120_000);

let server: TemporalServer;
let worker: PerflowWorker;
let running: Promise<void>;
let connection: Connection;
let client: Client;
let perflow: PerflowClient;
let dir: string;
const taskQueue = uniqueTaskQueue('perflow-sa');
const database = `perflow_test_sa_${taskQueue.split('-').pop()}`;

beforeAll(async () => {
  server = await startTemporalDevServer(process.env, { searchAttributes: ['PerflowAgent', 'PerflowStatus'] });
  worker = await createWorker({
    temporalAddress: server.address,
    namespace: server.namespace,
    taskQueue,
    mongoUri: serverEnv().mongoUri,
    database,
    providers: providerConfigFromEnv(),
  });
  running = worker.run();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: server.namespace });
  perflow = testPerflow(client, { taskQueue, database });
  dir = mkdtempSync(join(tmpdir(), 'perflow-sa-'));
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await perflow?.close();
  await connection?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('the worker names the missing search attribute and the command that adds it', () => {
  expect(worker.missingSearchAttributes).toEqual(['PerflowPending', 'PerflowTenant', 'PerflowEval', 'PerflowFingerprint', 'PerflowMemory']);
  expect(missingSearchAttributesLine(worker.missingSearchAttributes, 'default')).toBe(
    "perflow worker: namespace default lacks the search attributes PerflowPending, PerflowTenant, PerflowEval, PerflowFingerprint, PerflowMemory: runs go on without them (perflow pending, list --agent, --tenant and --fingerprint, eval, a second message to a busy conversation and the UI's filters need them); add them with: temporal operator search-attribute create --namespace default --name PerflowPending --type Keyword --name PerflowTenant --type Keyword --name PerflowEval --type Keyword --name PerflowFingerprint --type Keyword --name PerflowMemory --type Keyword",
  );
});

it('a run starts and finishes with the attributes the server has', async () => {
  const file = join(dir, 'agent.json');
  writeFileSync(file, JSON.stringify({ name: 'sa-agent', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [plan('say it'), final('done')], executor: [[{ content: 'said' }]] } } }));
  const { agent, parameters } = await loadAgentFile(file);
  const started = await startRun(perflow, { agent, parameters: { ...parameters, tenant_id: 't-sa' }, question: 'without PerflowPending?' });
  expect((await started.handle.result()).response).toBe('done');
  const attributes = (await started.handle.describe()).typedSearchAttributes;
  expect(attributes.get(SearchAttributes.agent)).toBe('sa-agent');
  expect(attributes.get(SearchAttributes.status)).toBe('completed');
  expect(attributes.get(SearchAttributes.pending)).toBeUndefined();
});

it('perflow pending says in one line which attribute it needs and how to add it', async () => {
  const r = await runProcess(process.execPath, [...BUILT_CLI_ARGS, 'pending'], {
    env: { ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace },
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(
    'perflow: pending needs the search attribute PerflowPending, which namespace default lacks; add it with: temporal operator search-attribute create --namespace default --name PerflowPending --type Keyword\n',
  );
});

it('an eval runs its cases with the attributes the server has (no PerflowEval)', async () => {
  const agentFile = join(dir, 'eval-agent.json');
  writeFileSync(agentFile, JSON.stringify({ name: 'sa-eval', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [final('done')] } } }));
  const suiteFile = join(dir, 'suite.json');
  writeFileSync(suiteFile, JSON.stringify({ name: 'sa', agent: 'eval-agent.json', cases: [{ id: 'one', question: 'done?', checks: [{ contains: 'done' }] }] }));
  const { evalId } = await startEval(perflow, { suite: await loadSuite(suiteFile) });
  expect(await evalResult(perflow, evalId, { wait: true })).toMatchObject({ passed: 1, failed: 0 });
  const attributes = (await client.workflow.getHandle(`${evalId}-one`).describe()).typedSearchAttributes;
  expect(attributes.get(SearchAttributes.agent)).toBe('sa-eval');
  expect(attributes.get(SearchAttributes.eval)).toBeUndefined();
});
