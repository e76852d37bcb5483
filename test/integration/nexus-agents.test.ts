/**
 * An agent in another namespace, through Nexus: a second namespace whose worker serves a folder
 * of agent files (`perflow worker --nexus-agents DIR`, here `createWorker({ nexusAgentsDir })`),
 * a Nexus endpoint targeting its task queue, and a supervisor in the default namespace whose
 * `NexusAgentTool` calls one — through the CLI. The served run is an ordinary run there, under the
 * workflow ID the call chose; an unknown agent is an error observation; cancelling the caller
 * cancels the served run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection, Client } from '@temporalio/client';
import { workerConfigFromEnv } from '../../config/env';
import { createWorker, type PerflowWorker } from '../../workers/main';
import { progressQuery, type RunOutput } from '../../workflows/definitions';
import { useCli } from '../support/cli';
import { serverEnv } from '../support/env';
import { workflowBundle } from '../support/workflow-bundles';

jest.setTimeout(180_000);

const cli = useCli('nexus-caller');
const perflow = cli.perflow;
const tag = randomUUID().slice(0, 8);
const NAMESPACE = `perflow-nexus-${tag}`;
const ENDPOINT = `perflow-agents-${tag}`;
const SERVED_QUEUE = `nexus-served-${tag}`;
const EXAMPLE = resolve(__dirname, '../../examples/multi-agent');

let served: string;
let connection: Connection;
let other: Client;
let worker: PerflowWorker;
let running: Promise<void>;

beforeAll(async () => {
  served = mkdtempSync(join(tmpdir(), 'perflow-nexus-agents-'));
  const accountant = readFileSync(join(EXAMPLE, 'accountant.json'), 'utf8');
  writeFileSync(join(served, 'accountant.json'), accountant);
  const held = JSON.parse(accountant) as { tools: unknown[] };
  held.tools = [{ type: 'CalculatorTool', requires_approval: true }];
  writeFileSync(join(served, 'held-accountant.json'), JSON.stringify(held));

  connection = await Connection.connect({ address: serverEnv().temporalAddress });
  await connection.workflowService.registerNamespace({ namespace: NAMESPACE, workflowExecutionRetentionPeriod: { seconds: 86_400 as never } });
  await connection.operatorService.createNexusEndpoint({ spec: { name: ENDPOINT, target: { worker: { namespace: NAMESPACE, taskQueue: SERVED_QUEUE } } } });
  other = new Client({ connection, namespace: NAMESPACE });
  // A new namespace is usable once the server's namespace cache has it.
  for (let i = 0; ; i++) {
    const ok = await other.workflow.list({ query: '' })[Symbol.asyncIterator]().next().then(() => true, () => false);
    if (ok) break;
    if (i > 100) throw new Error(`namespace ${NAMESPACE} never became usable`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const env = { ...process.env, TEMPORAL_ADDRESS: serverEnv().temporalAddress, TEMPORAL_NAMESPACE: NAMESPACE, PERFLOW_TASK_QUEUE: SERVED_QUEUE, MONGODB_URI: cli.memoryUri };
  worker = await createWorker({ ...workerConfigFromEnv(env), nexusAgentsDir: served, workflows: { workflowBundle: await workflowBundle('plain') } });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await connection?.operatorService
    .listNexusEndpoints({ name: ENDPOINT })
    .then((r) => Promise.all((r.endpoints ?? []).map((e) => connection.operatorService.deleteNexusEndpoint({ id: e.id, version: e.version }))))
    .catch(() => undefined);
  await connection?.close();
  if (served) rmSync(served, { recursive: true, force: true });
});

/** A supervisor whose one step asks `agent` through the endpoint, then answers with what it got. */
const supervisor = (agent: string) => ({
  name: 'nexus-supervisor',
  type: 'plan_execute_and_reflect',
  llm: {
    interface: 'scripted',
    script: {
      planner: [JSON.stringify({ steps: ['Ask the accountant'], result: '' }), JSON.stringify({ steps: [], result: '{{step_result:1}}' })],
      executor: [[{ tool_calls: [{ name: 'accountant', input: { question: 'What is 3 nights at 120 plus 85?' } }] }, { content: '{{observation}}' }]],
    },
  },
  tools: [{ type: 'NexusAgentTool', name: 'accountant', description: 'Does exact arithmetic.', parameters: { endpoint: ENDPOINT, agent } }],
});

it('a NexusAgentTool runs an agent of another namespace, as an ordinary run there, and its answer comes back', async () => {
  const r = await perflow(['run', '--agent', cli.agentFile('nexus-supervisor', supervisor('accountant')), '--question', 'cost?', '--wait', '--json'], {}, 150_000);
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout) as RunOutput & { workflow_id: string };
  expect(out.response).toMatch(/^445\n\[accountant answered through the Nexus endpoint perflow-agents-\w+ in run .*\/step-1\/agent-1; memory_id "[0-9a-f-]{36}" continues its conversation\]$/);
  // The served run: in the other namespace, under the ID the call chose, completed, the accountant's.
  const there = other.workflow.getHandle(`${out.workflow_id}/step-1/agent-1`);
  expect((await there.describe()).status.name).toBe('COMPLETED');
  expect(((await there.result()) as RunOutput).response).toBe('445');
  await expect(cli.harness.client.workflow.getHandle(`${out.workflow_id}/step-1/agent-1`).describe()).rejects.toThrow();
});

it('an agent the worker does not serve is an error observation naming it; the run goes on', async () => {
  const r = await perflow(['run', '--agent', cli.agentFile('nexus-nobody', supervisor('nobody')), '--question', 'cost?', '--wait', '--json'], {}, 150_000);
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout) as RunOutput;
  expect(out.response).toMatch(/^Error: agent "nobody" failed through the Nexus endpoint perflow-agents-\w+: .*this worker serves no agent "nobody"/);
});

it('cancelling the caller cancels the served run in the other namespace', async () => {
  const started = await perflow(['run', '--agent', cli.agentFile('nexus-held', supervisor('held-accountant')), '--question', 'held?', '--json']);
  const root = (JSON.parse(started.stdout) as { workflow_id: string }).workflow_id;
  const there = other.workflow.getHandle(`${root}/step-1/agent-1`);
  for (let i = 0; (await there.query(progressQuery).catch(() => undefined))?.pending?.[0]?.kind !== 'tool'; i++) {
    if (i > 300) throw new Error('the served run never waited');
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await perflow(['cancel', root])).code).toBe(0);
  await expect(cli.harness.client.workflow.getHandle(root).result()).rejects.toThrow();
  for (let i = 0; (await there.describe()).status.name === 'RUNNING'; i++) {
    if (i > 300) throw new Error('the served run was not cancelled');
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await there.describe()).status.name).toBe('CANCELLED');
});
