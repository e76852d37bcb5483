/**
 * Guardrails that ask a person (`on_fail: "ask"`): a question that fails its input guardrail
 * waits in the inbox (`perflow pending` lists a `guardrail` decision naming the check and why)
 * through a worker SIGKILL, and `perflow approve` lets it through to its answer, with no model
 * call made twice; an answer that fails its output guardrail waits too, and `perflow reject`
 * ends the run `tripped`; a tool output one withholds stays withheld when the run is let go on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { PendingRun } from '../../client/decisions';
import { progressQuery, type PendingDecision, type RunOutput } from '../../workflows/definitions';
import { runProcess } from '../support/run-process';
import { serverEnv } from '../support/env';
import { final, plan, scriptedAgent } from '../support/harness';
import { calculatorTurns, withCalculator } from '../support/script';
import { useWorkerProcess } from '../support/spawn-worker';
import { BUILT_CLI_ARGS } from '../support/package-build';

jest.setTimeout(240_000);

const fixture = useWorkerProcess('guardrail-ask');
beforeAll(() => fixture.restart());
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-guardrail-ask-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const perflow = (args: string[]) =>
  runProcess(process.execPath, [...BUILT_CLI_ARGS, ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: serverEnv().temporalAddress, TEMPORAL_NAMESPACE: 'default', PERFLOW_TASK_QUEUE: fixture.taskQueue, MONGODB_URI: fixture.perflow.config.mongoUri },
    timeoutMs: 60_000,
  });

function agentFile(guardrails: Record<string, unknown>): string {
  const path = join(dir, `agent-${randomUUID().slice(0, 8)}.json`);
  writeFileSync(path, JSON.stringify(scriptedAgent({ planner: [plan('compute 6*7'), final('The answer is 42')], executor: [calculatorTurns('6*7', '42')] }, { ...withCalculator(), guardrails })));
  return path;
}

async function startRun(file: string, question: string): Promise<string> {
  const r = await perflow(['run', '--agent', file, '--question', question, '--json']);
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as { workflow_id: string }).workflow_id;
}

async function guardrailPending(id: string): Promise<PendingDecision> {
  for (let i = 0; i < 600; i++) {
    const p = await fixture.client.workflow.getHandle(id).query(progressQuery).catch(() => undefined);
    const d = p?.pending?.find((x) => x.kind === 'guardrail');
    if (d) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${id} never awaited a guardrail decision`);
}

const scheduled = async (id: string, type: string) =>
  (await fixture.client.workflow.getHandle(id).fetchHistory()).events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).length ?? 0;

it('waits in the inbox through a worker kill, and perflow approve lets the question through', async () => {
  const id = await startRun(agentFile({ input: [{ not_contains: 'password', on_fail: 'ask' }] }), 'What is 6*7? My password is hunter2.');
  const d = await guardrailPending(id);
  expect(d).toMatchObject({ id: 'guardrail-1', guardrail: { place: 'input', check: 'not_contains "password"', detail: expect.stringContaining('password') } });

  // The inbox lists it, as it lists a plan or a tool call.
  let listed: PendingRun | undefined;
  for (let i = 0; i < 100 && !listed; i++) {
    const r = await perflow(['pending', '--json']);
    listed = (JSON.parse(r.stdout) as PendingRun[]).find((p) => p.workflow_id === id);
    if (!listed) await new Promise((r) => setTimeout(r, 200));
  }
  expect(listed).toMatchObject({ waiting_for: 'guardrail', pending: [expect.objectContaining({ kind: 'guardrail', guardrail: expect.objectContaining({ place: 'input' }) })] });
  const text = await perflow(['pending']);
  expect(text.stdout).toContain('awaiting a decision on the input guardrail not_contains "password"');

  await fixture.restart(); // killed while the question waits for a person
  const approved = await perflow(['approve', id, '--by', 'reviewer']);
  expect(approved.stderr).toBe('');
  expect(approved.code).toBe(0);

  const out = (await fixture.client.workflow.getHandle(id).result()) as RunOutput;
  expect(out.response).toBe('The answer is 42');
  expect(out.tripped).toBeUndefined();
  const progress = await fixture.client.workflow.getHandle(id).query(progressQuery);
  expect(progress.decisions).toEqual([expect.objectContaining({ decision_id: 'guardrail-1', kind: 'guardrail', action: 'approve', by: 'reviewer' })]);
  // The check ran once, and the model's calls once each: the plan and the final answer.
  expect(await scheduled(id, 'checkGuardrails')).toBe(1);
  expect(await scheduled(id, 'planningModel')).toBe(2);
});

it('perflow reject stops an answer its output guardrail asks about: the run ends tripped', async () => {
  const id = await startRun(agentFile({ output: [{ not_regex: '\\d', on_fail: 'ask' }] }), 'What is 6*7?');
  const d = await guardrailPending(id);
  expect(d.guardrail).toMatchObject({ place: 'output', check: 'not_regex /\\d/' });
  const refused = await perflow(['reject', id]);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('--reason');
  const rejected = await perflow(['reject', id, '--reason', 'no figures', '--by', 'reviewer']);
  expect(rejected.code).toBe(0);

  const out = (await fixture.client.workflow.getHandle(id).result()) as RunOutput;
  expect(out.tripped).toMatchObject({ place: 'output', on_fail: 'ask', detail: expect.stringContaining('rejected by reviewer: no figures') });
  expect(out.response).toMatch(/^Stopped by the output guardrail not_regex/);
  const status = await perflow(['status', id, '--json']);
  expect(JSON.parse(status.stdout)).toMatchObject({ status: 'tripped' });
});

it('a tool output its ask guardrail withholds stays withheld, and perflow approve lets the run go on without it', async () => {
  const id = await startRun(agentFile({ tool_output: [{ not_contains: '42', on_fail: 'ask' }] }), 'What is 6*7, withheld?');
  const d = await guardrailPending(id);
  expect(d.guardrail).toMatchObject({ place: 'tool_output', check: 'not_contains "42"', detail: "the tool's output failed it (withheld)" });
  const approved = await perflow(['approve', id, '--by', 'reviewer']);
  expect(approved.code).toBe(0);

  const out = (await fixture.client.workflow.getHandle(id).result()) as RunOutput;
  expect(out.tripped).toBeUndefined();
  expect(out.response).toBe('The answer is 42');
  // What memory holds of the call is the notice, never the output.
  const calls = await fixture.memory.interactions.find({ memory_id: out.executor_agent_memory_id, origin: 'tool' }).toArray();
  expect(calls.map((c) => c.response)).toEqual([expect.stringContaining("the tool's output was withheld")]);
  expect(JSON.stringify(calls)).not.toMatch(/"response":"42"/);
});
