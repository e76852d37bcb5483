/**
 * Worker Deployments on the dev server: workers of build A, then build B, of one deployment on
 * one task queue. A run waiting for a person on A stays pinned to A when B becomes current and
 * finishes there after the approval; new runs go to B; a long run pinned to A that
 * continues-as-new goes on on B. `temporal workflow describe` agrees.
 */
import { fingerprintDifference } from '../../core/fingerprint';
import { randomUUID } from 'node:crypto';
import { providerConfigFromEnv } from '../../config/env';
import { findTemporalCli } from '../../servers/binaries';
import { createWorker, type PerflowWorker } from '../../workers/main';
import { useCli } from '../support/cli';
import { serverEnv, uniqueTaskQueue } from '../support/env';
import { final, plan, scriptedAgent, TEST_POLICY } from '../support/harness';
import { runProcess } from '../support/run-process';
import { calculatorTurns } from '../support/script';
import { workflowBundle } from '../support/workflow-bundles';

jest.setTimeout(240_000);

const cli = useCli('deployments');
const taskQueue = uniqueTaskQueue('perflow-deploy');
const deployment = `perflow-test-${randomUUID().slice(0, 8)}`;
const workers: Array<{ worker: PerflowWorker; running: Promise<void> }> = [];

async function versionedWorker(buildId: string): Promise<void> {
  const { temporalAddress, namespace } = serverEnv();
  const worker = await createWorker({
    temporalAddress,
    namespace,
    taskQueue,
    mongoUri: cli.memoryUri,
    database: cli.harness.db.databaseName,
    providers: providerConfigFromEnv(),
    policy: TEST_POLICY,
    workflows: { workflowBundle: await workflowBundle('plain') },
    deployment: { name: deployment, buildId },
  });
  workers.push({ worker, running: worker.run() });
}

afterAll(async () => {
  for (const w of workers) w.worker.shutdown();
  await Promise.all(workers.map((w) => w.running.catch(() => undefined)));
});

const temporal = (args: string[]) => {
  const { temporalAddress, namespace } = serverEnv();
  return runProcess(findTemporalCli(process.env, { install: false })!, [...args, '--address', temporalAddress, '--namespace', namespace], { timeoutMs: 60_000 });
};

/** Makes the build current once its worker has polled (the server refuses a version nobody polls for). */
async function setCurrent(buildId: string): Promise<void> {
  for (let i = 0; ; i++) {
    const r = await temporal(['worker', 'deployment', 'set-current-version', '--deployment-name', deployment, '--build-id', buildId, '--yes']);
    if (r.code === 0) return;
    if (i >= 60) throw new Error(`set-current-version ${buildId} failed: ${r.stderr}`);
    await new Promise((done) => setTimeout(done, 500));
  }
}

/** The deployment version and behaviour `temporal workflow describe` shows for a run's latest execution. */
async function versionOf(workflowId: string): Promise<{ buildId?: string; behavior?: string }> {
  const r = await temporal(['workflow', 'describe', '-w', workflowId, '--output', 'json']);
  const info = (JSON.parse(r.stdout) as { workflowExecutionInfo?: { versioningInfo?: { behavior?: string; deploymentVersion?: { buildId?: string }; version?: string } } }).workflowExecutionInfo?.versioningInfo;
  return { ...(info?.deploymentVersion?.buildId ? { buildId: info.deploymentVersion.buildId } : {}), ...(info?.behavior ? { behavior: info.behavior } : {}) };
}

const env = () => ({ PERFLOW_TASK_QUEUE: taskQueue });
/** An agent whose calculator waits for a person; `continue_as_new_after_events` makes it a long run. */
const reviewed = (name: string, extra: Record<string, unknown> = {}) =>
  cli.agentFile(name, scriptedAgent({ planner: [plan('compute 6*7'), final('42')], executor: [calculatorTurns('6*7', '42')] }, { name, tools: [{ type: 'CalculatorTool', requires_approval: true }], ...extra }));

async function start(agent: string): Promise<string> {
  const r = await cli.perflow(['run', '--agent', agent, '--question', 'What is 6*7?', '--json'], env());
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as { workflow_id: string }).workflow_id;
}

async function waitingForTool(id: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const status = JSON.parse((await cli.perflow(['status', id, '--json'], env())).stdout) as { pending?: Array<{ kind: string }> };
    if (status.pending?.some((d) => d.kind === 'tool')) return;
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`${id} never waited for its tool approval`);
}

it('pins a waiting run to its build when another becomes current; new runs and a long run\'s next execution go to the current build', async () => {
  await versionedWorker('a');
  await setCurrent('a');
  const pinned = await start(reviewed('pinned'));
  // Its history passes 10 events in step 1: it continues-as-new after it (once approved).
  const long = await start(reviewed('long-lived', { parameters: { continue_as_new_after_events: 10 } }));
  await Promise.all([waitingForTool(pinned), waitingForTool(long)]);
  expect(await versionOf(pinned)).toEqual({ buildId: 'a', behavior: 'VERSIONING_BEHAVIOR_PINNED' });

  await versionedWorker('b');
  await setCurrent('b');
  const fresh = await start(reviewed('fresh'));
  await waitingForTool(fresh);
  expect(await versionOf(fresh)).toEqual({ buildId: 'b', behavior: 'VERSIONING_BEHAVIOR_PINNED' });
  // The same agent on two builds: two fingerprints, which differ in the build only.
  const fingerprints = await Promise.all([pinned, fresh].map(async (id) => JSON.parse((await cli.perflow(['status', id, '--json'], env())).stdout) as { fingerprint: string; fingerprint_parts: Record<string, string> }));
  expect(fingerprints.map((f) => f.fingerprint_parts.build_id)).toEqual(['a', 'b']);
  expect(fingerprints[0].fingerprint).not.toBe(fingerprints[1].fingerprint);
  expect(fingerprintDifference(fingerprints[0].fingerprint_parts as never, fingerprints[1].fingerprint_parts as never)).toEqual(['build_id']);
  const listed = await cli.perflow(['list', '--fingerprint', fingerprints[1].fingerprint, '--json'], env());
  expect((JSON.parse(listed.stdout) as Array<{ workflow_id: string }>).map((r) => r.workflow_id)).toEqual([fresh]);

  // Approved, the pinned run finishes where it started; the long run continues-as-new onto b.
  for (const id of [pinned, long, fresh]) expect((await cli.perflow(['approve-tool', id], env())).code).toBe(0);
  const results = await Promise.all([pinned, long, fresh].map((id) => cli.perflow(['result', id, '--json'], env(), 120_000)));
  expect(results.map((r) => (JSON.parse(r.stdout) as { response: string }).response)).toEqual(['42', '42', '42']);
  expect(await versionOf(pinned)).toEqual({ buildId: 'a', behavior: 'VERSIONING_BEHAVIOR_PINNED' });
  const after = await versionOf(long);
  expect(after.buildId).toBe('b');
  const { continued_as_new } = JSON.parse((await cli.perflow(['status', long, '--json'], env())).stdout) as { continued_as_new?: number };
  expect(continued_as_new).toBeGreaterThan(0);
});

it('refuses a deployment without a build ID, and a build ID without a deployment, in one line', async () => {
  const r = await cli.perflow(['worker', '--deployment', 'x'], {}, 60_000);
  // (A setting the worker cannot start with, as every other: exit 1.)
  expect(r.code).toBe(1);
  expect(r.stderr.trim()).toBe('perflow: PERFLOW_DEPLOYMENT is set without PERFLOW_BUILD_ID: a versioned worker needs both (its Worker Deployment and its build), an unversioned one neither');
});
