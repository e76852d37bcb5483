/**
 * A run waiting for a person survives its worker: the worker process is SIGKILLed while a run
 * awaits plan approval and again while it awaits a tool call's approval; a fresh worker is
 * started each time, the decisions still work, and nothing runs twice (planner calls, tool
 * calls, memory records); a run waiting at its dollar budget (`max_cost_usd`) is raised after a
 * kill, and so is one waiting at its tenant's daily cap.
 */
import { randomUUID } from 'node:crypto';
import type { AgentType } from '../../core/agent';
import { approvePlan, approveTool, raiseBudget } from '../../client/decisions';
import { progressQuery, tenantCapSignal, workflowTypeFor, type PendingDecision, type RunOutput } from '../../workflows/definitions';
import { TenantBudgets } from '../../stores/tenant-budgets';
import { runInput } from '../support/harness';
import { useWorkerProcess } from '../support/spawn-worker';
import { expectedResponse, typedAgent } from '../support/typed-agents';

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
