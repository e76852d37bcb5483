/**
 * Tenants' daily dollar caps (`perflow budget set|show`), with scripted models priced by their
 * llm block's `price` (input tokens only, so a call's cost follows from its recorded prompt):
 * ten concurrent runs of one tenant reach its cap and wait (the day's spend overshoots it by at
 * most the calls already running, and counts every call exactly); `budget set` lets them go on;
 * each agent type waits before its first call at a tenant already at its cap; an executor
 * child's turn waits too; `reject --stop` ends a wait; yesterday's spend does not count.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentType } from '../../core/agent';
import { listPending, rejectPlan } from '../../client/decisions';
import { setTenantBudget } from '../../client/tenant-budgets';
import { signalRunning } from '../../client/ops';
import { TenantBudgets, utcDay } from '../../stores/tenant-budgets';
import { withinTenantBudget } from '../../activities/tenant-budgets';
import { setOperatorPrices } from '../../telemetry/model-prices';
import { failureMessage } from '../../client/errors';
import { startEval, suiteFromJson } from '../../client/eval';
import { chatCompletion, startWireServer } from '../support/wire-server';
import { withEnv } from '../support/env';
import { tenantCapSignal, type Progress, type RunOutput } from '../../workflows/definitions';
import { final, progressOf, runInput, startWithAttributes, until, untilProgress } from '../support/harness';
import { nonEmptyLines, useCli } from '../support/cli';
import { gateTool } from '../support/gate-tool';
import { z } from 'zod';
import type { Tool } from '../../activities/tools/tool';
import { AGENT_TYPES, expectedResponse, typedAgent } from '../support/typed-agents';

jest.setTimeout(180_000);

const gate = gateTool();
/** A tool whose call for step 2 waits until released, so a run can be caught in a later execution. */
let releaseStepTwo: () => void = () => undefined;
const stepTwoHeld = new Promise<void>((r) => (releaseStepTwo = r));
const stepTwoTool: Tool<{ label: string }> = {
  type: 'StepTwoTool',
  description: 'Waits at step 2 until released by the test.',
  input: z.object({ label: z.string() }),
  async run({ label }) {
    if (label === 'step 2') await stepTwoHeld;
    return `released ${label}`;
  },
};
const cli = useCli('tenant-budget', { tools: [gate.tool, stepTwoTool as Tool<never>] });
const harness = () => cli.harness;
const budgets = () => new TenantBudgets(harness().db);
const today = () => utcDay(Date.now());

/** Dollars per million input tokens; output tokens are free. */
const PRICE = { input_per_million: 10, output_per_million: 0 };

function pricedAgent(type: AgentType, steps: number, toolType?: string): Record<string, unknown> {
  const agent = typedAgent(type, steps, toolType ? { toolType } : {});
  return { ...agent, llm: { ...(agent.llm as object), price: PRICE } };
}

type Run = WorkflowHandle<(i: ReturnType<typeof runInput>) => Promise<RunOutput>>;

function start(type: AgentType, tenant: string, question: string, steps = 2, toolType?: string): Promise<Run> {
  return startWithAttributes(harness(), runInput(pricedAgent(type, steps, toolType), question, { tenant_id: tenant }), 'tenant');
}

/** The tenant wait a run shows, if it waits at its tenant's cap. */
const tenantWait = (p: Progress) => (p.status === 'awaiting_budget' ? p.pending?.find((d) => d.budget?.reason === 'tenant') : undefined);

const atTenantCap = (id: string) => untilProgress(harness(), id, (p) => tenantWait(p) !== undefined, 'the wait at the tenant cap');

/** The most one of the model calls recorded since `from` cost (its prompt's tokens as the scripted model counts them). */
function maxCallCost(from: number): number {
  const tokens = harness().recorder.slice(from).map((r) => Math.ceil(((r.system ?? '') + r.messages.map((m) => m.content).join('')).length / 4));
  return (Math.max(...tokens) * PRICE.input_per_million) / 1e6;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('tenant daily budgets', () => {
  it('leave a tenant without a cap alone and count its spend; yesterday’s spend does not hold a run back', async () => {
    const yesterday = utcDay(Date.now() - 86_400_000);
    await budgets().setCap('t-new-day', 0.000001, 'test', new Date());
    await budgets().addSpend('t-new-day', yesterday, 5);
    const from = harness().recorder.length;
    const [free, fresh] = await Promise.all([start('plan_execute_and_reflect', 't-free', 'sum 1..2 free'), start('plan_execute_and_reflect', 't-new-day', 'sum 1..2 fresh')]);
    const out = await free.result();
    expect(out.response).toBe(expectedResponse('plan_execute_and_reflect', 2));
    expect(out.usage.cost_usd).toBeGreaterThan(0);
    expect(await budgets().spent('t-free', today())).toBeCloseTo(out.usage.cost_usd!, 12);
    // A new UTC day's spend starts at 0: the first call is made, and the cap holds the second.
    await atTenantCap(fresh.workflowId);
    expect(await budgets().spent('t-new-day', yesterday)).toBe(5);
    const first = await budgets().spent('t-new-day', today());
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(maxCallCost(from));
    await fresh.terminate('done with it');
  });

  it('checks a model call against the spend of the UTC day it begins in (the activity’s check, with the clock given)', async () => {
    const tomorrow = Date.now() + 86_400_000;
    const call = async () => ({ usage: { input_tokens: 1, output_tokens: 0, cost_usd: 0.5 } });
    const notMade = () => ({ usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 } });
    // t-new-day is over its cap today (the test above), not tomorrow.
    expect((await withinTenantBudget(budgets, 't-new-day', call, notMade)).tenant_budget).toMatchObject({ tenant: 't-new-day', day: today(), cap_usd: 0.000001 });
    const next = await withinTenantBudget(budgets, 't-new-day', call, notMade, () => tomorrow);
    expect(next.tenant_budget).toBeUndefined();
    expect(await budgets().spent('t-new-day', utcDay(tomorrow))).toBe(0.5);
    // And over the cap on that day once it has spent it.
    expect((await withinTenantBudget(budgets, 't-new-day', call, notMade, () => tomorrow)).tenant_budget).toMatchObject({ day: utcDay(tomorrow), spent_usd: 0.5 });
  });

  it('holds ten concurrent runs at the cap with an overshoot of at most the calls already running, then lets them go on when budget set raises it', async () => {
    const tenant = 't-acme';
    const tag = 'sum 1..3 for acme';
    const types = Array.from({ length: 10 }, (_, i) => AGENT_TYPES[i % AGENT_TYPES.length]);
    // A few runs' worth of what the ten runs would spend (a run of two steps cost what the first test counted): reached mid-way.
    const cap = 2.5 * (await budgets().spent('t-free', today()));
    expect(cap).toBeGreaterThan(0);
    await budgets().setCap(tenant, cap, 'test', new Date());
    const from = harness().recorder.length;
    const runs = await Promise.all(types.map((type, i) => start(type, tenant, `${tag} #${i}`, 3)));
    const ids = runs.map((r) => r.workflowId);
    // Every run has either ended or waits at the cap (none is in a model call).
    const settled = await until(
      () => Promise.all(ids.map((id) => progressOf(harness(), id))),
      (ps) => ps.every((p) => p.status === 'completed' || tenantWait(p) !== undefined),
      'every run to wait at the cap or end',
    );
    const waiting = ids.filter((_, i) => tenantWait(settled[i]) !== undefined);
    // Every agent type waits at the cap.
    expect(new Set(types.filter((_, i) => tenantWait(settled[i]) !== undefined))).toEqual(new Set(AGENT_TYPES));
    const spent = await budgets().spent(tenant, today());
    expect(spent).toBeGreaterThanOrEqual(cap);
    // One model call in flight per run at most when the cap was reached.
    expect(spent - cap).toBeLessThanOrEqual(10 * maxCallCost(from));
    const pending = tenantWait(settled[ids.indexOf(waiting[0])])!;
    expect(pending.budget).toMatchObject({ reason: 'tenant', tenant, max_cost_usd: cap, day: today() });
    expect(pending.budget!.cost_usd).toBeGreaterThanOrEqual(cap);
    expect(pending.answer).toEqual([`perflow budget set --tenant ${tenant} --usd-per-day N`, `perflow reject ${waiting[0]} --reason TEXT --stop`]);

    const shown = await cli.perflow(['pending', '--tenant', tenant]);
    expect(shown.stdout).toContain(`awaiting the tenant ${tenant}'s daily budget`);
    await until(() => listPending(harness().client, 100, tenant), (r) => r.length === waiting.length, 'the waits to be visible');
    const set = await cli.perflow(['budget', 'set', '--tenant', tenant, '--usd-per-day', '1000', '--by', 'carol']);
    expect(set.code).toBe(0);
    const running = settled.filter((p) => p.status !== 'completed').length;
    expect(nonEmptyLines(set.stdout)).toEqual([`tenant ${tenant}: $1000 per UTC day (set by carol); told ${running} running run(s), ${waiting.length} of them waiting`]);

    const outs = await Promise.all(runs.map((r) => r.result()));
    outs.forEach((out, i) => expect(out.response).toBe(expectedResponse(types[i], 3)));
    // Every call counted once: the day's spend is what the runs cost.
    expect(await budgets().spent(tenant, today())).toBeCloseTo(sum(outs.map((o) => o.usage.cost_usd!)), 10);
    const resumed = outs[ids.indexOf(waiting[0])];
    expect(resumed.metadata?.tenant_budget).toMatchObject({ tenant, decisions: [{ action: 'resume', by: 'carol', detail: `tenant ${tenant}: cap $1000 per day` }] });
    const recorded = await harness().memory.interactions.findOne({ memory_id: resumed.memory_id, origin: 'reviewer' });
    expect(recorded?.decision).toMatchObject({ kind: 'budget', action: 'resume', by: 'carol' });

    const show = await cli.perflow(['budget', 'show', '--tenant', tenant, '--json']);
    const [view] = JSON.parse(show.stdout) as { spent_usd: number; usd_per_day: number; remaining_usd: number; day: string }[];
    expect(view).toMatchObject({ usd_per_day: 1000, day: today() });
    expect(view.remaining_usd).toBeCloseTo(1000 - view.spent_usd, 10);
  });

  it('holds every agent type before its first call at a tenant already at its cap; reject --stop ends a wait', async () => {
    const tenant = 't-full';
    await budgets().setCap(tenant, 0.000001, 'test', new Date());
    await budgets().addSpend(tenant, today(), 0.00001);
    const runs = await Promise.all(AGENT_TYPES.map((type) => start(type, tenant, `sum 1..2 full ${type}`)));
    for (const run of runs) {
      const p = await atTenantCap(run.workflowId);
      expect(p.completed_steps).toHaveLength(0);
    }
    expect(harness().recorder.filter((r) => JSON.stringify(r.messages).includes('sum 1..2 full'))).toHaveLength(0);

    const [stopped, ...rest] = runs;
    const d = await rejectPlan(harness().client, stopped.workflowId, { reason: 'over for today', stop: true, by: 'dana' });
    expect(d).toMatchObject({ kind: 'budget', action: 'stop', by: 'dana', detail: 'over for today', tenant });
    const out = await stopped.result();
    expect(out.response).toMatch(/^Tenant Budget Reached \(tenant t-full: \$0\.00001 of \$0\.000001 per UTC day spent\)\. Stopped by dana: over for today\./);
    expect(out.metadata?.tenant_budget).toMatchObject({ decisions: [{ action: 'stop', by: 'dana' }] });
    // Visibility may still list the stopped run as running: `budget set` leaves out a run that
    // ended since (a cap below the spend changes nothing for the one still waiting).
    const reached = await signalRunning(harness().client, [stopped.workflowId, rest[0].workflowId], tenantCapSignal, { tenant, usd_per_day: 0.000001, by: 'test' });
    expect(reached).toEqual([rest[0].workflowId]);

    await until(() => listPending(harness().client, 100, tenant), (r) => r.length === rest.length, 'the waits to be visible');
    const set = await setTenantBudget(harness().perflow, { tenant, usdPerDay: 1000 });
    expect(set.notified.sort()).toEqual(rest.map((r) => r.workflowId).sort());
    expect(set.waiting.sort()).toEqual(set.notified);
    const outs = await Promise.all(rest.map((r) => r.result()));
    outs.forEach((o, i) => expect(o.response).toBe(expectedResponse(AGENT_TYPES[i + 1], 2)));
  });

  it('holds an executor child’s next turn once the cap is reached mid-step; reject --stop ends the run there', async () => {
    const tenant = 't-mid-step';
    await budgets().setCap(tenant, 1, 'test', new Date());
    gate.close();
    const turns = () => harness().recorder.filter((r) => r.position.role === 'executor').length;
    const before = turns();
    const run = await start('plan_execute_and_reflect', tenant, 'sum 1..1 mid-step', 1, 'WaitTool');
    // The step's first turn asked for the tool, which waits at the gate.
    await until(async () => turns(), (n) => n === before + 1, 'the step’s first turn');
    await budgets().addSpend(tenant, today(), 2);
    // A notice of a cap above the spend, come before the wait (as from a budget set racing the
    // refusal): the wait ends at once, the activity refuses again (the stored cap is still $1),
    // and the same notice does not end the next wait.
    await run.signal(tenantCapSignal, { tenant, usd_per_day: 100, by: 'early' });
    gate.release();
    const p = await untilProgress(harness(), run.workflowId, (q) => tenantWait(q)?.id === 'budget-2', 'the second wait');
    expect(p.current_step).toMatchObject({ index: 0 });
    expect(tenantWait(p)!.budget).toMatchObject({ tenant, max_cost_usd: 1 });
    expect(p.decisions).toEqual([expect.objectContaining({ decision_id: 'budget-1', action: 'resume', by: 'early', detail: `tenant ${tenant}: cap $100 per day` })]);
    // Ended there: the step keeps what it was told, and the run ends before its next call.
    await rejectPlan(harness().client, run.workflowId, { reason: 'enough for today', stop: true, by: 'erin' });
    const out = await run.result();
    expect(out.response).toMatch(/^Tenant Budget Reached \(tenant t-mid-step: \$2\.\d+ of \$1 per UTC day spent\)\. Stopped by erin: enough for today\. Here is a summary of the steps completed so far:\n\nCompleted steps:\n1\. add 1: Stopped by erin at the tenant t-mid-step's daily budget: enough for today/);
    expect(out.metadata?.tenant_budget).toMatchObject({ decisions: [{ action: 'resume', by: 'early' }, { action: 'stop', by: 'erin' }] });
  });

  it('holds a run that continued as new, which budget set still finds', async () => {
    const tenant = 't-continued';
    await budgets().setCap(tenant, 1, 'test', new Date());
    const input = runInput(pricedAgent('plan_execute_and_reflect', 3, 'StepTwoTool'), 'sum 1..3 continued', { tenant_id: tenant, continue_as_new_after_events: 10 });
    const run = await startWithAttributes(harness(), input, 'tenant');
    await untilProgress(harness(), run.workflowId, (p) => (p.continued_as_new ?? 0) >= 1 && p.current_step?.index === 1, 'step 2 after continue-as-new');
    await budgets().addSpend(tenant, today(), 2);
    releaseStepTwo();
    await atTenantCap(run.workflowId);
    await until(() => listPending(harness().client, 100, tenant), (r) => r.length === 1, 'the wait to be visible');
    expect((await setTenantBudget(harness().perflow, { tenant, usdPerDay: 10 })).notified).toEqual([run.workflowId]);
    const out = await run.result();
    expect(out.response).toBe('the total is 6');
    expect(out.metadata?.tenant_budget).toMatchObject({ decisions: [{ action: 'resume' }] });
  });

  it('keeps each UTC day’s spend in a collection of its own, and adopts what was counted today before days had one', async () => {
    await budgets().addSpend('t-days', today(), 2, 'days-call-1');
    await budgets().addSpend('t-days', today(), 2, 'days-call-1'); // the same call again counts once
    expect(await harness().db.collection(`perflow_tenant_spend.${today()}`).countDocuments({ tenant: 't-days' })).toBe(1);
    // Spend a worker recorded in the one collection of every day (before days had collections).
    const legacy = harness().db.collection<{ _id: string; tenant: string; day: string; usd: number; at: Date }>('perflow_tenant_spend');
    await legacy.insertMany([
      { _id: 'legacy-today', tenant: 't-days', day: today(), usd: 3, at: new Date() },
      { _id: 'legacy-old', tenant: 't-days', day: '2020-01-01', usd: 100, at: new Date() },
    ]);
    const upgraded = budgets();
    void upgraded.adoptEarlierSpend(new Date());
    expect(await upgraded.spent('t-days', today())).toBe(5); // the sum waits for the adoption
    await budgets().adoptEarlierSpend(new Date()); // another worker's start: counted once still
    expect(await budgets().spent('t-days', today())).toBe(5);
    expect(await budgets().spent('t-days', '2020-01-01')).toBe(0);
  });

  it('shows every tenant’s cap with the spend of the UTC day', async () => {
    const r = await cli.perflow(['budget', 'show']);
    expect(r.code).toBe(0);
    const lines = nonEmptyLines(r.stdout);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['t-acme', 't-continued', 't-full', 't-mid-step', 't-new-day']);
    expect(lines[0]).toMatch(new RegExp(`^t-acme: \\$[\\d.]+ of \\$1000\\.00 spent on ${today()} \\(UTC\\), \\$99\\d\\.\\d\\d left \\(set by carol at `));
  });

  it('refuses bad budget commands in one line (exit 2)', async () => {
    const cases: [string[], RegExp][] = [
      [['budget', 'set', '--tenant', 'x', '--usd-per-day=-1'], /--usd-per-day N \(a positive number of US dollars\), got "-1"/],
      [['budget', 'set', '--usd-per-day', '5'], /needs --tenant ID/],
      [['budget', 'frob'], /budget needs set or show/],
      [['budget', 'show', '--tenant', 'nobody'], /tenant nobody has no daily budget/],
    ];
    for (const [args, message] of cases) {
      const r = await cli.perflow(args);
      expect([r.code, nonEmptyLines(r.stderr).length]).toEqual([2, 1]);
      expect(r.stderr).toMatch(message);
    }
  });

  it("refuses a capped tenant's model that has no price the workers know, even at an agent file's price of 0: nothing reaches the model; the operator's price lets it run, and counts", async () => {
    const wire = await startWireServer();
    const restore = withEnv({ OPENAI_API_KEY: 'sk-test' });
    try {
      await budgets().setCap('t-unpriced', 10, 'test', new Date());
      const agent = { name: 'unpriced', type: 'plan_execute_and_reflect', llm: { interface: 'openai/v1/chat/completions', model: 'my-local-llama', base_url: wire.url, price: { input_per_million: 0, output_per_million: 0 } } };
      const refused = await startWithAttributes(harness(), runInput(agent, 'free?', { tenant_id: 't-unpriced' }), 'tenant');
      const why = await refused.result().then(() => 'completed', failureMessage);
      expect(why).toBe('Activity task failed: ' +
        'model "my-local-llama" has no price the workers know, and tenant t-unpriced has a daily budget: its calls cannot be counted (an agent file\'s own price does not count for a capped tenant); price it for the workers with PERFLOW_MODEL_PRICES={"my-local-llama": {"input_per_million": N, "output_per_million": N}}',
      );
      expect(wire.requests).toEqual([]);

      // The operator prices it (PERFLOW_MODEL_PRICES, as createWorker sets it): the run goes on, counted at that price.
      setOperatorPrices({ 'my-local-llama': { input_per_million: 1000, output_per_million: 0 } });
      wire.reply(chatCompletion({ content: final('priced now') }, { usage: [100, 10] }));
      const priced = await startWithAttributes(harness(), runInput(agent, 'priced?', { tenant_id: 't-unpriced' }), 'tenant');
      expect((await priced.result()).response).toBe('priced now');
      expect(wire.requests).toHaveLength(1);
      expect(await budgets().spent('t-unpriced', today())).toBeCloseTo(0.1, 12);
    } finally {
      setOperatorPrices({});
      restore();
      await wire.close();
    }
  });

  it("counts an eval judge's call into the case's tenant", async () => {
    await budgets().setCap('t-judged', 1000, 'test', new Date());
    const judge = { interface: 'scripted', price: { input_per_million: 1_000_000, output_per_million: 0 }, script: { planner: [], judge: [JSON.stringify({ pass: true, reason: 'fine' })] } };
    const agent = { ...pricedAgent('plan_execute_and_reflect', 1), name: 'judged' };
    const suite = await suiteFromJson({ name: 'judged', agent: 'agent.json', cases: [{ id: 'one', question: 'sum 1..1 judged', checks: [{ judge: 'is fine', llm: judge }] }], params: { tenant_id: 't-judged' } }, 'suite.json', cli.dir, { agent: cli.agentFile('judged-agent', agent), extraToolTypes: ['GateTool', 'StepTwoTool'] });
    const { handle } = await startEval(harness().perflow, { suite });
    const result = await handle.result();
    expect(result.cases[0]).toMatchObject({ passed: true });
    const run = result.cases[0]!.cost_usd!;
    const judgePrompt = harness().recorder.filter((r) => r.position.role === 'task' && r.position.kind === 'judge').at(-1)!;
    expect(judgePrompt).toBeDefined();
    // The run's calls and the judge's: the judge's input tokens at $1 each.
    expect(await budgets().spent('t-judged', today())).toBeGreaterThan(run + 1);
  });
});
