/**
 * The dollar budget (`max_cost_usd`) on every agent type, with a scripted model priced by its
 * llm block's `price`: a cap of a millionth of a cent is reached by the first model call, so the
 * run's second call meets `budget_action` — pause (awaiting_budget, then raise-budget or
 * reject --stop), stop (the budget message with the memory_id) or fail (`Budget.Exceeded`).
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentType } from '../../core/agent';
import { listPending, raiseBudget, rejectPlan } from '../../client/decisions';
import { FailureTypes, SearchAttributes, type RunOutput } from '../../workflows/definitions';
import type { ReactExecutorOutput } from '../../workflows/kernel/react-executor';
import { calculatorCall } from '../support/script';
import { failureOf, progressOf, runInput, startWithAttributes, until, untilProgress, useHarness } from '../support/harness';
import { AGENT_TYPES, expectedResponse, typedAgent } from '../support/typed-agents';

jest.setTimeout(180_000);

const harness = useHarness();

const CAP = 1e-8;
const PRICE = { input_per_million: 1, output_per_million: 2 };

/** A typed agent of two steps whose scripted model has a price. */
function pricedAgent(type: AgentType, steps = 2): Record<string, unknown> {
  const agent = typedAgent(type, steps);
  return { ...agent, llm: { ...(agent.llm as object), price: PRICE } };
}

type Run = WorkflowHandle<(i: ReturnType<typeof runInput>) => Promise<RunOutput>>;

function start(type: AgentType, params: Record<string, unknown>, steps = 2): Promise<Run> {
  return startWithAttributes(harness(), runInput(pricedAgent(type, steps), `sum 1..${steps}`, { max_cost_usd: CAP, ...params }), 'budget');
}


const atBudget = (id: string) => untilProgress(harness(), id, (p) => p.status === 'awaiting_budget', 'the budget wait');

describe.each(AGENT_TYPES)('%s with max_cost_usd', (type) => {
  it('pauses at the budget (awaiting_budget, PerflowPending budget), refuses a cap not above the cost, and completes once raised', async () => {
    const run = await start(type, {});
    const p = await atBudget(run.workflowId);
    const pending = p.pending![0];
    expect(pending).toMatchObject({ id: 'budget-1', kind: 'budget', budget: { max_cost_usd: CAP } });
    expect(pending.budget!.cost_usd).toBeGreaterThanOrEqual(CAP);
    expect(pending.answer).toContain(`perflow raise-budget ${run.workflowId} --usd N`);
    expect((await run.describe()).typedSearchAttributes.get(SearchAttributes.pending)).toBe('budget');
    // Listing reads Temporal's visibility, which follows the run's own state a little behind.
    const listed = await until(() => listPending(harness().client), (runs) => runs.some((r) => r.workflow_id === run.workflowId), 'the wait to be listed');
    expect(listed.find((r) => r.workflow_id === run.workflowId)?.waiting_for).toBe('budget');
    await expect(raiseBudget(harness().client, run.workflowId, { usd: CAP })).rejects.toThrow(/must be a number of US dollars above the cost so far/);
    const d = await raiseBudget(harness().client, run.workflowId, { usd: 100, by: 'alice' });
    expect(d).toMatchObject({ decision_id: 'budget-1', kind: 'budget', action: 'raise', by: 'alice', detail: 'max_cost_usd $100' });
    const out = await run.result();
    expect(out.response).toBe(expectedResponse(type, 2));
    expect(out.metadata?.budget).toMatchObject({ max_cost_usd: CAP, raised_to: 100, action: 'pause', decisions: [{ action: 'raise', by: 'alice' }] });
    const done = await progressOf(harness(), run.workflowId);
    expect(done.pending).toBeUndefined();
    expect(done.decisions).toEqual([expect.objectContaining({ kind: 'budget', action: 'raise', by: 'alice' })]);
    const events = await harness().memory.eventLog().readAll(run.workflowId);
    expect(events.filter((e) => e.type === 'decision_pending' || e.type === 'decision').map((e) => e.type)).toEqual(['decision_pending', 'decision']);
  });

  it('carries a raised cap across continue-as-new', async () => {
    const run = await start(type, { continue_as_new_after_events: 25 }, 4);
    await atBudget(run.workflowId);
    await raiseBudget(harness().client, run.workflowId, { usd: 100 });
    const out = await run.result(); // follows the chain
    expect(out.response).toBe(expectedResponse(type, 4));
    const done = await progressOf(harness(), run.workflowId);
    expect(done.continued_as_new).toBeGreaterThanOrEqual(1);
    // One wait: the raised cap held in every execution.
    expect(done.decisions?.map((d) => `${d.decision_id} ${d.action}`)).toEqual(['budget-1 raise']);
    expect(out.metadata?.budget).toMatchObject({ raised_to: 100 });
  });

  it('ends with the work so far when the budget wait is answered with reject --stop', async () => {
    const run = await start(type, {});
    await atBudget(run.workflowId);
    const d = await rejectPlan(harness().client, run.workflowId, { reason: 'too dear', stop: true, by: 'bob' });
    expect(d).toMatchObject({ decision_id: 'budget-1', kind: 'budget', action: 'stop', by: 'bob', detail: 'too dear' });
    const out = await run.result();
    expect(out.response).toMatch(/^Cost Budget Reached \(\$[\d.e-]+ of max_cost_usd \$1e-8 spent\)\. Stopped by bob: too dear\./);
    expect(out.response).toContain(`To continue, run the agent again with memory_id ${out.memory_id}.`);
    expect(out.metadata?.budget).toMatchObject({ decisions: [{ action: 'stop', by: 'bob', detail: 'too dear' }] });
  });

  it('stops with the budget message and the memory_id to continue (budget_action stop)', async () => {
    const run = await start(type, { budget_action: 'stop' });
    const out = await run.result();
    expect(out.response).toMatch(/^Cost Budget Reached \(\$[\d.e-]+ of max_cost_usd \$1e-8 spent\)\. Here is a summary/);
    expect(out.response).toContain(`To continue, run the agent again with memory_id ${out.memory_id}.`);
    const root = await harness().memory.interactions.findOne({ _id: out.parent_interaction_id });
    expect(root?.response).toBe(out.response);
  });

  it('ends a step before the executor call that would start over the budget: the run overshoots by less than one call', async () => {
    // The planning model is free and every executor turn is the same priced tool call, so the
    // cap is reached mid-step and each executor call costs the same.
    const agent = typedAgent(type, 1);
    const script = (agent.llm as { script: { executor: unknown[][] } }).script;
    const turns = Array.from({ length: 8 }, () => calculatorCall('1+1'));
    const llm = { interface: 'scripted', script: { ...script, executor: [[...turns, { content: 'total 1' }]] } };
    const cap = 25;
    const input = runInput(
      { ...agent, llm: { ...llm, price: { input_per_million: 0, output_per_million: 0 } }, executor_llm: { ...llm, price: { input_per_million: 0, output_per_million: 1e6 } } },
      'sum 1..1',
      { max_cost_usd: cap, budget_action: 'stop' },
    );
    const run = await startWithAttributes(harness(), input, 'budget-step');
    const out = await run.result();
    expect(out.response).toMatch(/^Cost Budget Reached/);
    const step = await harness().client.workflow.getHandle<() => Promise<ReactExecutorOutput>>(`${run.workflowId}/step-1`).result();
    expect(step).toMatchObject({ budget_reached: true });
    expect(step.limit_reached).toBeUndefined(); // a flag that is false is left out
    expect(step.iterations).toBeGreaterThan(0);
    expect(step.iterations).toBeLessThan(turns.length);
    const perCall = step.usage.cost_usd! / step.iterations;
    expect(out.usage.cost_usd).toBeGreaterThanOrEqual(cap);
    expect(out.usage.cost_usd! - cap).toBeLessThan(perCall);
  });

  it('fails with Budget.Exceeded (budget_action fail)', async () => {
    const run = await start(type, { budget_action: 'fail' });
    const failure = await failureOf(run.result());
    expect(failure.type).toBe(FailureTypes.BudgetExceeded);
    expect(failure.message).toMatch(/reached its max_cost_usd/);
  });
});
