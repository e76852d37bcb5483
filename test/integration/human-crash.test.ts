/**
 * A run waiting for a person survives its worker: the worker process is SIGKILLed while a run
 * awaits plan approval and again while it awaits a tool call's approval; a fresh worker is
 * started each time, the decisions still work, and nothing runs twice (planner calls, tool
 * calls, memory records); a run waiting at its dollar budget (`max_cost_usd`) is raised after a
 * kill, and so is one waiting at its tenant's daily cap; a tool approval inside an agent tree's
 * grandchild is listed under the root by `perflow pending` and answered with the root's ID after a
 * kill.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PendingRun } from '../../client/decisions';
import { defaultPayloadConverter } from '@temporalio/common';
import { runProcess } from '../support/run-process';
import { serverEnv } from '../support/env';
import type { AgentType } from '../../core/agent';
import { approvePlan, approveTool, raiseBudget } from '../../client/decisions';
import { progressQuery, tenantCapSignal, workflowTypeFor, type PendingDecision, type RunOutput } from '../../workflows/definitions';
import { TenantBudgets } from '../../stores/tenant-budgets';
import { runInput } from '../support/harness';
import { useWorkerProcess } from '../support/spawn-worker';
import { expectedResponse, typedAgent } from '../support/typed-agents';
import { BUILT_CLI_ARGS } from '../support/package-build';

jest.setTimeout(300_000);

const fixture = useWorkerProcess('hitl-crash');

async function pending(id: string, kind: PendingDecision['kind']): Promise<PendingDecision> {
  for (let i = 0; i < 600; i++) {
    const p = await fixture.client.workflow
      .getHandle(id)
      .query(progressQuery)
      .catch(() => undefined);
    const d = p?.pending?.find((x) => x.kind === kind);
    if (d) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${id} never awaited a ${kind} decision`);
}

const scheduledActivities = async (id: string, type: string) =>
  (await fixture.client.workflow.getHandle(id).fetchHistory()).events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).length ?? 0;

describe.each<AgentType>(['plan_execute_and_reflect', 'plan_and_execute'])('%s awaiting a person', (type) => {
  it('keeps waiting through worker kills, takes the decisions after a restart, and runs nothing twice', async () => {
    await fixture.restart();
    const agent = typedAgent(type, 1);
    agent.tools = [{ type: 'CalculatorTool', requires_approval: true }];
    const input = runInput(agent, `crash while waiting ${type}`, { plan_approval: 'first' });
    const handle = await fixture.client.workflow.start<(i: typeof input) => Promise<RunOutput>>(workflowTypeFor(type), {
      taskQueue: fixture.taskQueue,
      workflowId: `hitl-crash-${type}-${randomUUID().slice(0, 8)}`,
      args: [input],
    });

    await pending(handle.workflowId, 'plan');
    await fixture.restart(); // killed while the plan awaits approval
    await approvePlan(fixture.client, handle.workflowId, { by: 'after-crash' });
    const tool = await pending(handle.workflowId, 'tool');
    expect(tool.input).toEqual({ expression: '0+1' });
    await fixture.restart(); // killed while the tool call awaits approval
    await approveTool(fixture.client, handle.workflowId, { by: 'after-crash' });

    const out = await handle.result();
    expect(out.response).toBe(expectedResponse(type, 1));
    // One planning call for the plan, one tool call, one record of each in memory.
    const child = `${handle.workflowId}/step-1`;
    expect(await scheduledActivities(child, 'callTool')).toBe(1);
    const store = fixture.memory;
    const toolCalls = await store.interactions.find({ memory_id: out.executor_agent_memory_id, origin: 'tool' }).toArray();
    expect(toolCalls.map((c) => c.response)).toEqual(['1']);
    const decisions = await store.interactions.find({ parent_interaction_id: out.parent_interaction_id, origin: 'reviewer' }).toArray();
    expect(decisions.map((d) => `${d.decision?.kind}:${d.decision?.action}:${d.decision?.by}`).sort()).toEqual(['plan:approve:after-crash', 'tool:approve:after-crash']);
    const planner = (await fixture.client.workflow.getHandle(handle.workflowId).fetchHistory()).events?.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'planningModel',
    );
    // plan_execute_and_reflect: the plan and the final answer; plan_and_execute: the plan, the verification and the final answer.
    expect(planner).toHaveLength(type === 'plan_execute_and_reflect' ? 2 : 3);
  });
});

it('runs waiting at their max_cost_usd and at their tenant’s daily cap keep waiting through a worker kill and go on once raised', async () => {
  await fixture.restart();
  const priced = (type: AgentType, steps: number) => {
    const agent = typedAgent(type, steps);
    agent.llm = { ...(agent.llm as object), price: { input_per_million: 1, output_per_million: 1 } };
    return agent;
  };
  const start = (type: AgentType, input: ReturnType<typeof runInput>, prefix: string) =>
    fixture.client.workflow.start<(i: typeof input) => Promise<RunOutput>>(workflowTypeFor(type), { taskQueue: fixture.taskQueue, workflowId: `${prefix}-${randomUUID().slice(0, 8)}`, args: [input] });
  const budgets = new TenantBudgets(fixture.memory.db);
  await budgets.setCap('t-crash', 1e-9, 'test', new Date());
  const atBudget = await start('step_by_step', runInput(priced('step_by_step', 2), 'crash at the budget', { max_cost_usd: 1e-9 }), 'budget-crash');
  const atTenantCap = await start('plan_and_execute', runInput(priced('plan_and_execute', 1), 'crash at the tenant cap', { tenant_id: 't-crash' }), 'tenant-crash');
  await pending(atBudget.workflowId, 'budget');
  expect((await pending(atTenantCap.workflowId, 'budget')).budget).toMatchObject({ reason: 'tenant', tenant: 't-crash' });
  await fixture.restart(); // killed while both runs wait
  await raiseBudget(fixture.client, atBudget.workflowId, { usd: 10, by: 'after-crash' });
  // What `perflow budget set` does (this run has no search attributes to be found by).
  await budgets.setCap('t-crash', 10, 'after-crash', new Date());
  await fixture.client.workflow.getHandle(atTenantCap.workflowId).signal(tenantCapSignal, { tenant: 't-crash', usd_per_day: 10, by: 'after-crash' });
  const decisionsOf = async (out: RunOutput) =>
    (await fixture.memory.interactions.find({ parent_interaction_id: out.parent_interaction_id, origin: 'reviewer' }).toArray()).map((d) => `${d.decision?.kind}:${d.decision?.action}:${d.decision?.by}`);
  const budgetOut = await atBudget.result();
  expect(budgetOut.response).toBe(expectedResponse('step_by_step', 2));
  expect(await decisionsOf(budgetOut)).toEqual(['budget:raise:after-crash']);
  const tenantOut = await atTenantCap.result();
  expect(tenantOut.response).toBe(expectedResponse('plan_and_execute', 1));
  expect(await decisionsOf(tenantOut)).toEqual(['budget:resume:after-crash']);
  expect(await budgets.spent('t-crash', new Date().toISOString().slice(0, 10))).toBeCloseTo(tenantOut.usage.cost_usd!, 12);
});

describe('an agent tree has one inbox', () => {
  const example = resolve(__dirname, '../../examples/multi-agent');
  const perflow = (args: string[]) =>
    runProcess(process.execPath, [...BUILT_CLI_ARGS, ...args], {
      env: { ...process.env, TEMPORAL_ADDRESS: serverEnv().temporalAddress, TEMPORAL_NAMESPACE: 'default', PERFLOW_TASK_QUEUE: fixture.taskQueue, MONGODB_URI: fixture.perflow.config.mongoUri },
      timeoutMs: 60_000,
    });
  /** The runs `perflow pending` lists under `root` waiting for a tool approval (`id`: that one). */
  const waitingUnder = async (root: string, id?: string): Promise<PendingRun[]> => {
    for (let i = 0; i < 300; i++) {
      const r = await perflow(['pending', '--json']);
      const under = (JSON.parse(r.stdout) as PendingRun[]).filter((p) => p.root_workflow_id === root && (id === undefined || p.workflow_id === id) && p.pending.some((d) => d.kind === 'tool'));
      if (under.length > 0) return under;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`nothing under ${root} waited for a tool approval`);
  };

  it("a grandchild's tool approval is listed under the root, survives a worker kill, and is answered with the root's ID", async () => {
    await fixture.restart();
    const dir = mkdtempSync(join(tmpdir(), 'perflow-tree-inbox-'));
    try {
      for (const f of ['supervisor', 'researcher', 'accountant']) {
        const agent = JSON.parse(readFileSync(join(example, `${f}.json`), 'utf8')) as { tools: Array<Record<string, unknown>> };
        if (f === 'accountant') agent.tools = [{ type: 'CalculatorTool', requires_approval: true }];
        writeFileSync(join(dir, `${f}.json`), JSON.stringify(agent));
      }
      const started = await perflow(['run', '--agent', join(dir, 'supervisor.json'), '--question', 'What does the trip cost?', '--json']);
      expect(started.stderr).toBe('');
      const root = (JSON.parse(started.stdout) as { workflow_id: string }).workflow_id;

      const [grandchild] = await waitingUnder(root);
      expect(grandchild).toMatchObject({ workflow_id: `${root}/step-1/agent-1/step-1/agent-1`, waiting_for: 'tool', agent: 'trip-accountant', agent_path: ['trip-supervisor', 'trip-researcher', 'trip-accountant'] });
      expect(grandchild.pending[0]).toMatchObject({ kind: 'tool', tool: 'CalculatorTool', input: { expression: '3*120+85' } });
      await fixture.restart(); // killed while the grandchild waits

      const first = await perflow(['approve-tool', root, '--by', 'ops', '--json']);
      expect(first.stderr).toBe('');
      expect(JSON.parse(first.stdout)).toMatchObject({ workflow_id: grandchild.workflow_id, kind: 'tool', action: 'approve', by: 'ops' });
      // The supervisor's second step asks the accountant itself: a child this time.
      const [child] = await waitingUnder(root, `${root}/step-2/agent-1`);
      expect(child.agent_path).toEqual(['trip-supervisor', 'trip-accountant']);
      expect(JSON.parse((await perflow(['approve-tool', root, '--json'])).stdout)).toMatchObject({ workflow_id: child.workflow_id, action: 'approve' });

      const out = await fixture.client.workflow.getHandle(root).result();
      expect(out.response).toBe("The trip costs 445 (3 nights at 120 and 85 for travel); checked: The accountant's total is 445 too.");
      // Each of the tree's calculator calls ran once, whatever the kill (the file's other runs add 1+… calls).
      const calls = await fixture.memory.interactions.find({ origin: 'tool', tool_name: 'CalculatorTool', input: JSON.stringify({ expression: '3*120+85' }) }).toArray();
      expect(calls.map((c) => c.response)).toEqual(['445', '445']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a second message to a busy conversation (--on-busy)', () => {
  const perflow = (args: string[]) =>
    runProcess(process.execPath, [...BUILT_CLI_ARGS, ...args], {
      env: { ...process.env, TEMPORAL_ADDRESS: serverEnv().temporalAddress, TEMPORAL_NAMESPACE: 'default', PERFLOW_TASK_QUEUE: fixture.taskQueue, MONGODB_URI: fixture.perflow.config.mongoUri },
      timeoutMs: 60_000,
    });
  let dir: string;
  let agentFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'perflow-on-busy-'));
    agentFile = join(dir, 'agent.json');
    writeFileSync(agentFile, JSON.stringify({ ...typedAgent('plan_execute_and_reflect', 1), name: 'busy-agent' }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = async (question: string, ...more: string[]) => {
    const r = await perflow(['run', '--agent', agentFile, '--question', question, '--json', ...more]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { workflow_id: string; memory_id: string; parent_interaction_id: string };
  };
  /** The root interactions of the conversation, oldest first: each run's question and answer. */
  const exchanges = (memoryId: string) => fixture.memory.interactions.find({ memory_id: memoryId, parent_interaction_id: null }).sort({ created: 1 }).toArray();
  const progressOf = (id: string) => fixture.client.workflow.getHandle(id).query(progressQuery);

  it('reject names the running run; enqueue runs after it, through a worker kill; interrupt stops it and goes on from its work', async () => {
    await fixture.restart();
    const first = await start('first message', '--param', 'plan_approval=first');
    await pending(first.workflow_id, 'plan');
    const memory = ['--memory-id', first.memory_id];

    const rejected = await perflow(['run', '--agent', agentFile, '--question', 'too soon', ...memory]);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr.trim().split('\n')).toEqual([
      `perflow: memory ${first.memory_id} is busy: run ${first.workflow_id} is still going; wait for it, or send the message with on-busy enqueue (it runs after) or interrupt (it stops the running one)`,
    ]);
    // The rejected message left nothing in memory (the first run's own roots are written when it ends).
    expect(await fixture.memory.interactions.countDocuments({ input: 'too soon' })).toBe(0);
    expect(await fixture.memory.memories.countDocuments({ name: 'too soon' })).toBe(0);

    const queued = await start('second message', ...memory, '--on-busy', 'enqueue');
    expect(await progressOf(queued.workflow_id)).toMatchObject({ status: 'queued', waiting_for: [first.workflow_id] });
    const status = await perflow(['status', queued.workflow_id]);
    expect(status.stdout).toContain(`${queued.workflow_id}: queued (agent busy-agent`);
    expect(status.stdout).toContain(`  queued behind ${first.workflow_id} (earlier messages to conversation ${first.memory_id}): starts when they end`);
    // Its first activity, the wait, wrote its start as it began: a watcher sees it queued.
    let waiting: { type: string }[] = [];
    for (let i = 0; i < 50 && waiting.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      waiting = await fixture.memory.eventLog().readAll(queued.workflow_id);
    }
    expect(waiting.map((e) => e.type)).toEqual(['run_started']);
    await fixture.restart(); // killed while a run is queued
    await approvePlan(fixture.client, first.workflow_id, { by: 'after-crash' });
    const queuedOut = (await fixture.client.workflow.getHandle(queued.workflow_id).result()) as RunOutput;
    expect(queuedOut.response).toBe(expectedResponse('plan_execute_and_reflect', 1));
    const [a, b] = await exchanges(first.memory_id);
    // In the order they were sent (created: when each started); the queued run wrote nothing before the first one had answered.
    expect([a.input, b.input]).toEqual(['first message', 'second message']);
    const written = await fixture.memory.interactions.find({ $or: [{ _id: b._id }, { parent_interaction_id: b._id }] }).toArray();
    expect(written.length).toBeGreaterThan(1);
    for (const doc of written) expect(doc.updated.getTime()).toBeGreaterThanOrEqual(a.updated.getTime());
    const queuedHistory = await fixture.client.workflow.getHandle(queued.workflow_id).fetchHistory();
    const waits = queuedHistory.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'waitForRuns') ?? [];
    expect(waits).toHaveLength(1);
    // The run's start went with the wait (its first activity), not from its first workflow task.
    expect(defaultPayloadConverter.fromPayload<{ opening?: { events: { type: string }[] } }>(waits[0].activityTaskScheduledEventAttributes!.input!.payloads![0]).opening?.events.map((e) => e.type)).toEqual(['run_started']);
    // The wait the kill cut short was taken up again by the fresh worker.
    expect(queuedHistory.events?.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes?.attempt).toBeGreaterThanOrEqual(2);

    const third = await start('third message', ...memory, '--param', 'plan_approval=first');
    await pending(third.workflow_id, 'plan');
    const interrupting = await start('fourth message', ...memory, '--on-busy', 'interrupt');
    const interruptingOut = (await fixture.client.workflow.getHandle(interrupting.workflow_id).result()) as RunOutput;
    expect(interruptingOut.response).toBe(expectedResponse('plan_execute_and_reflect', 1));
    expect((await fixture.client.workflow.getHandle(third.workflow_id).describe()).status.name).toBe('CANCELLED');
    expect(await progressOf(third.workflow_id)).toMatchObject({ status: 'failed', interrupted_by: interrupting.workflow_id, error: `interrupted by a newer message to the conversation (run ${interrupting.workflow_id})` });
    const all = await exchanges(first.memory_id);
    expect(all.map((e) => e.input)).toEqual(['first message', 'second message', 'third message', 'fourth message']);
    // The interrupted run's answer is its work so far (none: it waited for its plan), kept as an exchange the next run builds on.
    expect(all[2]).toMatchObject({ response: '(Interrupted by a newer message after 0 steps.)', interrupted_by: interrupting.workflow_id });
    expect(all[2].error).toBeUndefined();
    // Its planner was given the three exchanges before it, the interrupted one included.
    const events = (await fixture.client.workflow.getHandle(interrupting.workflow_id).fetchHistory()).events ?? [];
    const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startRun');
    const completed = events.find((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(scheduled?.eventId));
    const { history_ids } = defaultPayloadConverter.fromPayload<{ history_ids: string[] }>(completed!.activityTaskCompletedEventAttributes!.result!.payloads![0]);
    expect(history_ids).toEqual([first.parent_interaction_id, queued.parent_interaction_id, third.parent_interaction_id]);
  });
});
