/**
 * People in the loop, for plan_execute_and_reflect and plan_and_execute on real servers with
 * the scripted model: plan approval (approve, edit, reject with a reason, reject and stop, an
 * invalid edit, the timeout with each action), tool approval (approve, deny, edited input),
 * guidance reaching the next planning call, pause and resume, and every decision recorded in
 * progress and memory.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentType } from '../../core/agent';
import { approvePlan, approveTool, denyTool, guideRun, listPending, pauseRun, rejectPlan, resumeRun } from '../../client/decisions';
import { SearchAttributes, type PendingDecision, type Progress, type RunOutput } from '../../workflows/definitions';
import { readConversation } from '../../stores/conversation';
import { FEEDBACK_HEADING } from '../../workflows/kernel/human';
import { gateTool } from '../support/gate-tool';
import { createHarness, progressOf, runInput, startWithAttributes, untilProgress, useHarness } from '../support/harness';
import { expectedResponse, typedAgent } from '../support/typed-agents';

jest.setTimeout(180_000);

const gate = gateTool('GateTool');
const harness = useHarness({ tools: [gate.tool] });

type Run = WorkflowHandle<(i: ReturnType<typeof runInput>) => Promise<RunOutput>>;

/** Starts a run with perflow's search attributes, as `perflow run` does. */
function start(agent: Record<string, unknown>, question: string, params: Record<string, unknown> = {}): Promise<Run> {
  return startWithAttributes(harness(), runInput(agent, question, params), 'hitl');
}

const until = (id: string, ok: (p: Progress) => boolean, what: string) => untilProgress(harness(), id, ok, what);

const pendingOf = (id: string, kind: PendingDecision['kind']) =>
  until(id, (p) => (p.pending ?? []).some((d) => d.kind === kind), `a pending ${kind} decision`).then((p) => p.pending!.find((d) => d.kind === kind)!);

/** The planning prompts of a question's runs, in order. */
const plannerPrompts = (question: string) =>
  harness()
    .recorder.filter((r) => r.position.role === 'planner' && r.messages[0].content.includes(question))
    .map((r) => r.messages[0].content);

/** A typed agent whose planner has one more answer at the front: the plan proposed again after a rejection. */
function withRepeatedPlan(agent: Record<string, unknown>): Record<string, unknown> {
  const llm = agent.llm as { script: { planner: string[] } };
  const planner = llm.script.planner;
  return { ...agent, llm: { ...llm, script: { ...llm.script, planner: [planner[0], ...planner] } } };
}

/** A typed agent whose tools need approval. */
function withApproval(agent: Record<string, unknown>): Record<string, unknown> {
  return { ...agent, tools: (agent.tools as object[]).map((t) => ({ ...t, requires_approval: true })) };
}

/** The decision events of a run's stream (and its step starts), in order, as short lines. */
async function decisionEvents(id: string): Promise<string[]> {
  const events = await harness().memory.eventLog().readAll(id);
  return events.flatMap((e) => {
    if (e.type === 'decision_pending') return [`decision_pending ${e.kind} ${e.id}: ${e.kind === 'plan' ? (e.plan ?? []).join(' | ') : e.tool}`];
    if (e.type === 'decision') return [`decision ${e.id}: ${e.kind} ${e.action} by ${e.by}`];
    return e.type === 'step_started' && e.index === 0 ? [`step_started ${e.index}`] : [];
  });
}

const searchAttribute = async (run: Run) => (await run.describe()).typedSearchAttributes.get(SearchAttributes.pending);

const TYPES: AgentType[] = ['plan_execute_and_reflect', 'plan_and_execute'];

describe.each(TYPES)('%s with people in the loop', (type) => {
  it('waits for plan approval (status, plan, search attribute), and runs the plan once approved', async () => {
    const run = await start(typedAgent(type, 2), `approve me ${type}`, { plan_approval: 'first' });
    const pending = await pendingOf(run.workflowId, 'plan');
    const progress = await progressOf(harness(), run.workflowId);
    expect(progress.status).toBe('awaiting_approval');
    expect(pending.plan).toEqual(['add 1', 'add 2']);
    expect(pending.answer).toContain(`perflow approve ${run.workflowId}`);
    expect(progress.steps_executed).toBe(0);
    for (let i = 0; i < 50 && (await searchAttribute(run)) !== 'plan'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await searchAttribute(run)).toBe('plan');
    // The Temporal UI's current details show the plan and how to answer.
    const metadata = (await run.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain('**Awaiting approval of the plan:**\n1. add 1\n2. add 2');
    expect(metadata.currentDetails).toContain(`- \`perflow approve ${run.workflowId}\``);

    const decision = await approvePlan(harness().client, run.workflowId, { by: 'alice' });
    expect(decision).toMatchObject({ kind: 'plan', action: 'approve', by: 'alice', decision_id: 'plan-1' });
    expect((await run.result()).response).toBe(expectedResponse(type, 2));
    // The run's events: the plan waited for approval, alice approved it, then the steps ran.
    expect(await decisionEvents(run.workflowId)).toEqual(['decision_pending plan plan-1: add 1 | add 2', 'decision plan-1: plan approve by alice', 'step_started 0']);
    // `first`: the later plans of plan_execute_and_reflect ran without a review.
    const done = await progressOf(harness(), run.workflowId);
    expect(done.decisions).toHaveLength(1);
    expect(done.pending).toBeUndefined();
    expect(await searchAttribute(run)).toBe('none');
  });

  it('runs an edited plan: the executor gets the edited step', async () => {
    const run = await start(typedAgent(type, 2), `edit me ${type}`, { plan_approval: 'first' });
    await pendingOf(run.workflowId, 'plan');
    await approvePlan(harness().client, run.workflowId, { steps: ['add 1 as the reviewer wrote it', 'add 2'], by: 'bob' });
    expect((await run.result()).response).toBe(expectedResponse(type, 2));
    const executed = harness().recorder.filter((r) => r.position.role === 'executor' && JSON.stringify(r.messages).includes('add 1 as the reviewer wrote it'));
    expect(executed.length).toBeGreaterThan(0);
    const p = await progressOf(harness(), run.workflowId);
    expect(p.decisions?.[0]).toMatchObject({ action: 'edit', by: 'bob', detail: '1. add 1 as the reviewer wrote it\n2. add 2' });
  });

  it('rejects an invalid edit in the validator and keeps waiting', async () => {
    const run = await start(typedAgent(type, 1), `invalid edit ${type}`, { plan_approval: 'first' });
    await pendingOf(run.workflowId, 'plan');
    await expect(approvePlan(harness().client, run.workflowId, { steps: [] })).rejects.toThrow(/did not accept the decidePlan decision: an edited plan needs at least one step/);
    await expect(rejectPlan(harness().client, run.workflowId, { reason: ' ' })).rejects.toThrow(/a rejection needs a reason/);
    await expect(approveTool(harness().client, run.workflowId)).rejects.toThrow(/no tool call is awaiting approval/);
    const p = await progressOf(harness(), run.workflowId);
    expect(p.status).toBe('awaiting_approval');
    expect(p.decisions).toBeUndefined();
    await approvePlan(harness().client, run.workflowId);
    expect((await run.result()).response).toBe(expectedResponse(type, 1));
    await expect(approvePlan(harness().client, run.workflowId)).rejects.toThrow(/the run has ended \(completed\)/);
  });

  it('asks the planner again with the reason after a rejection', async () => {
    const question = `reject me ${type}`;
    const run = await start(withRepeatedPlan(typedAgent(type, 1)), question, { plan_approval: 'first' });
    await pendingOf(run.workflowId, 'plan');
    await rejectPlan(harness().client, run.workflowId, { reason: 'use the calculator for every sum', by: 'carol' });
    const second = await until(run.workflowId, (p) => p.pending?.[0]?.id === 'plan-2', 'the second plan');
    expect(second.status).toBe('awaiting_approval');
    const prompts = plannerPrompts(question);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).not.toContain('use the calculator for every sum');
    expect(prompts[1]).toContain(FEEDBACK_HEADING);
    expect(prompts[1]).toContain('rejected by carol');
    expect(prompts[1]).toContain('Reason: use the calculator for every sum');
    await approvePlan(harness().client, run.workflowId, { by: 'carol' });
    expect((await run.result()).response).toBe(expectedResponse(type, 1));
  });

  it('ends cleanly with the reason when the reviewer stops it, and memory records the decision', async () => {
    const run = await start(typedAgent(type, 2), `stop me ${type}`, { plan_approval: 'first' });
    await pendingOf(run.workflowId, 'plan');
    await rejectPlan(harness().client, run.workflowId, { reason: 'not worth the tokens', stop: true, by: 'dave' });
    const out = await run.result();
    expect(out.response).toBe('Plan rejected by dave; the run stopped. Reason: not worth the tokens');
    expect(out.steps_executed).toBe(0);
    const view = await readConversation(harness().memory, out.memory_id);
    expect(view?.runs[0].response).toBe(out.response);
    expect(view?.runs[0].decisions).toEqual([expect.objectContaining({ kind: 'plan', action: 'stop', by: 'dave', detail: 'not worth the tokens', after_steps: 0 })]);
    expect(view?.runs[0].steps).toEqual([]);
  });

  it('approves when nobody answers within approval_timeout with approve', async () => {
    const run = await start(typedAgent(type, 1), `timeout approve ${type}`, { plan_approval: 'every', approval_timeout: 1, approval_timeout_action: 'approve' });
    const out = await run.result();
    expect(out.response).toBe(expectedResponse(type, 1));
    const p = await progressOf(harness(), run.workflowId);
    expect(p.decisions?.[0]).toMatchObject({ kind: 'plan', action: 'approve', by: 'approval_timeout' });
  });

  it('rejects when nobody answers within approval_timeout with reject, re-planning up to max_plan_rejections', async () => {
    const question = `timeout reject ${type}`;
    const run = await start(withRepeatedPlan(typedAgent(type, 1)), question, { plan_approval: 'first', approval_timeout: '1s', max_plan_rejections: 1 });
    const out = await run.result();
    expect(out.response).toMatch(/^Plan rejected by approval_timeout; the run stopped\. Reason: nobody answered within 1 s/);
    const prompts = plannerPrompts(question);
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('nobody answered within 1 s');
    const p = await progressOf(harness(), run.workflowId);
    expect(p.decisions?.map((d) => d.action)).toEqual(['reject', 'reject']);
  });

  it('shows guidance to the next planning call and records it', async () => {
    const question = `guide me ${type}`;
    gate.close();
    // plan_and_execute re-plans the rest after guidance: its planner answers the remaining step.
    const agent = typedAgent(type, 2, { toolType: 'GateTool' });
    if (type === 'plan_and_execute') {
      const llm = agent.llm as { script: { planner: string[] } };
      llm.script.planner.push(JSON.stringify([{ goal: 'add 2', primary_tools: ['GateTool'], success_criteria: 'a total' }]));
    }
    const run = await start(agent, question);
    await until(run.workflowId, (p) => p.status === 'executing', 'the first step');
    await guideRun(harness().client, run.workflowId, 'prefer exact arithmetic', { by: 'erin' });
    // What waits for the next planning call is bounded: a text over the limit, and a 21st piece, are refused.
    await expect(guideRun(harness().client, run.workflowId, 'x'.repeat(10_001))).rejects.toThrow('guidance: 10001 characters is above the limit of 10000');
    for (let i = 2; i <= 20; i++) await guideRun(harness().client, run.workflowId, `note ${i}`, { by: 'erin' });
    await expect(guideRun(harness().client, run.workflowId, 'one more')).rejects.toThrow('the run holds 20 pieces of guidance its next planning call has not seen yet: send more once it has planned');
    gate.release();
    expect((await run.result()).response).toBe(expectedResponse(type, 2));
    const prompts = plannerPrompts(question);
    expect(prompts[0]).not.toContain('prefer exact arithmetic');
    expect(prompts[1]).toContain(`${FEEDBACK_HEADING}\n- Guidance from erin: prefer exact arithmetic`);
    // Seen once: the planning calls after it do not repeat it.
    expect(prompts.slice(2).some((p) => p.includes('prefer exact arithmetic'))).toBe(false);
    const out = await run.result();
    const view = await readConversation(harness().memory, out.memory_id);
    expect(view?.runs[0].decisions[0]).toEqual(expect.objectContaining({ kind: 'guidance', action: 'guide', by: 'erin', detail: 'prefer exact arithmetic' }));
    expect(view?.runs[0].decisions.map((d) => d.detail)).toEqual(['prefer exact arithmetic', ...Array.from({ length: 19 }, (_, i) => `note ${i + 2}`)]);
  });

  it('pauses between steps until resumed', async () => {
    gate.close();
    const run = await start(typedAgent(type, 2, { toolType: 'GateTool' }), `pause me ${type}`);
    await until(run.workflowId, (p) => p.status === 'executing', 'the first step');
    await pauseRun(harness().client, run.workflowId, { by: 'frank' });
    await expect(pauseRun(harness().client, run.workflowId)).rejects.toThrow(/already paused/);
    gate.release();
    const paused = await until(run.workflowId, (p) => p.status === 'paused', 'the pause');
    expect(paused.steps_executed).toBe(1);
    await new Promise((r) => setTimeout(r, 1_500));
    const still = await progressOf(harness(), run.workflowId);
    expect(still.status).toBe('paused');
    expect(still.steps_executed).toBe(1);
    expect(await searchAttribute(run)).toBe('paused');
    await resumeRun(harness().client, run.workflowId, { by: 'frank' });
    expect((await run.result()).response).toBe(expectedResponse(type, 2));
    const done = await progressOf(harness(), run.workflowId);
    expect(done.decisions?.map((d) => `${d.kind}:${d.by}:${d.after_steps}`)).toEqual(['pause:frank:0', 'resume:frank:1']);
  });

  it('holds a tool call that requires approval, and runs it once approved', async () => {
    const run = await start(withApproval(typedAgent(type, 1)), `tool approve ${type}`);
    const pending = await pendingOf(run.workflowId, 'tool');
    expect(pending).toMatchObject({ tool: 'CalculatorTool', input: { expression: '0+1' }, step: { index: 0 } });
    expect((await progressOf(harness(), run.workflowId)).status).toBe('awaiting_approval');
    await approveTool(harness().client, run.workflowId, { by: 'gina' });
    const out = await run.result();
    expect(out.response).toBe(expectedResponse(type, 1));
    expect(await decisionEvents(run.workflowId)).toEqual(['step_started 0', 'decision_pending tool tool-1-1: CalculatorTool', 'decision tool-1-1: tool approve by gina']);
    const calls = await harness().memory.interactions.find({ memory_id: out.executor_agent_memory_id, origin: 'tool' }).toArray();
    expect(calls.map((c) => [c.input, c.response])).toEqual([['{"expression":"0+1"}', '1']]);
  });

  it('gives the model the denial as the observation of a denied tool call', async () => {
    const question = `tool deny ${type}`;
    // A denied call is a tool error: plan_and_execute's step fails (one attempt) and the run goes on.
    const run = await start(withApproval(typedAgent(type, 1)), question, type === 'plan_and_execute' ? { max_step_attempts: 1 } : {});
    await pendingOf(run.workflowId, 'tool');
    await denyTool(harness().client, run.workflowId, { reason: 'no arithmetic today', by: 'hank' });
    const out = await run.result();
    const next = harness().recorder.find((r) => r.position.role === 'executor' && r.position.iteration === 1 && JSON.stringify(r.messages).includes('no arithmetic today'));
    expect(next?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'The call was denied by hank, who reviews this tool\'s calls: no arithmetic today', is_error: true });
    expect(await harness().memory.interactions.countDocuments({ memory_id: out.executor_agent_memory_id, origin: 'tool' })).toBe(0);
  });

  it('is cancelled cleanly while a tool call awaits approval', async () => {
    const run = await start(withApproval(typedAgent(type, 1)), `cancel waiting ${type}`);
    await pendingOf(run.workflowId, 'tool');
    await run.cancel();
    await expect(run.result()).rejects.toThrow();
    expect((await run.describe()).status.name).toBe('CANCELLED');
    const p = await progressOf(harness(), run.workflowId);
    expect(p.error).toBe('the run was cancelled');
    const root = await harness().memory.interactions.findOne({ _id: p.parent_interaction_id });
    expect(root?.response).toBe('Agent execution failed: the run was cancelled');
  });

  it('runs a tool call with the input a reviewer edited, after rejecting one that does not fit the schema', async () => {
    const run = await start(withApproval(typedAgent(type, 1)), `tool edit ${type}`);
    await pendingOf(run.workflowId, 'tool');
    await expect(approveTool(harness().client, run.workflowId, { input: { expression: 5 } })).rejects.toThrow(/does not fit CalculatorTool's input schema: input\.expression: expected string, got number/);
    await approveTool(harness().client, run.workflowId, { input: { expression: '100+1' }, by: 'ivy' });
    const out = await run.result();
    const calls = await harness().memory.interactions.find({ memory_id: out.executor_agent_memory_id, origin: 'tool' }).toArray();
    expect(calls.map((c) => [c.input, c.response])).toEqual([['{"expression":"100+1"}', '101']]);
    const p = await progressOf(harness(), run.workflowId);
    expect(p.decisions).toEqual([expect.objectContaining({ kind: 'tool', action: 'edit', by: 'ivy', detail: 'CalculatorTool: {"expression":"100+1"}' })]);
  });
});

describe.each<AgentType>(['step_by_step', 'todo_list'])('%s with people in the loop (tool approval, guidance, pause)', (type) => {
  // Their plans are Axon Ivy's step and todo lists: plan_approval is refused for them (unit tested).
  it('holds a tool call for approval, shows guidance to the call that steers the run, and pauses between steps', async () => {
    const question = `steer ${type}`;
    const run = await start(withApproval(typedAgent(type, 2)), question);
    await pendingOf(run.workflowId, 'tool');
    await pauseRun(harness().client, run.workflowId, { by: 'jo' });
    await guideRun(harness().client, run.workflowId, 'mind the totals', { by: 'jo' });
    await approveTool(harness().client, run.workflowId, { by: 'jo' });
    const paused = await until(run.workflowId, (p) => p.status === 'paused', 'the pause');
    expect(paused.steps_executed).toBe(1);
    await resumeRun(harness().client, run.workflowId, { by: 'jo' });
    await pendingOf(run.workflowId, 'tool');
    await approveTool(harness().client, run.workflowId, { by: 'jo' });
    expect((await run.result()).response).toBe(expectedResponse(type, 2));
    // step_by_step's decision after a step, todo_list's goal assessment: the calls that steer these runs.
    const kind = type === 'step_by_step' ? 'decision' : 'goal';
    const steering = harness().recorder.filter((r) => r.position.role === 'task' && r.position.kind === kind && JSON.stringify(r.messages).includes('mind the totals'));
    expect(steering).toHaveLength(1);
    expect(steering[0].messages[0].content).toContain(`${FEEDBACK_HEADING}\n- Guidance from jo: mind the totals`);
    const done = await progressOf(harness(), run.workflowId);
    expect(done.decisions?.map((d) => `${d.kind}:${d.action}`)).toEqual(['pause:pause', 'guidance:guide', 'tool:approve', 'resume:resume', 'tool:approve']);
    const events = await decisionEvents(run.workflowId);
    expect(events.filter((e) => e.startsWith('decision_pending'))).toEqual(['decision_pending tool tool-1-1: CalculatorTool', 'decision_pending tool tool-2-1: CalculatorTool']);
    expect(events.filter((e) => e.startsWith('decision ')).map((e) => e.split(': ')[1])).toEqual(['pause pause by jo', 'guidance guide by jo', 'tool approve by jo', 'resume resume by jo', 'tool approve by jo']);
  });
});

describe('perflow pending', () => {
  it('lists a run whose workers are gone from what its search attributes say, without its details, and the other runs with theirs', async () => {
    const gone = await createHarness();
    const stranded = await startWithAttributes(gone, runInput(typedAgent('plan_execute_and_reflect', 1), 'stranded', { plan_approval: 'first' }), 'stranded');
    try {
      // Waiting for its plan's approval, then its worker stops: its progress can no longer be asked.
      await untilProgress(gone, stranded.workflowId, (p) => (p.pending ?? []).length > 0, 'the plan to approve');
      await gone.close();
      const live = await start(typedAgent('plan_execute_and_reflect', 1), 'live and waiting', { plan_approval: 'first' });
      await pendingOf(live.workflowId, 'plan');
      let listed: Awaited<ReturnType<typeof listPending>> = [];
      for (let i = 0; i < 50 && !(listed.some((r) => r.workflow_id === stranded.workflowId) && listed.some((r) => r.workflow_id === live.workflowId)); i++) {
        listed = await listPending(harness().client, 1_000);
      }
      expect(listed.find((r) => r.workflow_id === stranded.workflowId)).toEqual({ workflow_id: stranded.workflowId, waiting_for: 'plan', pending: [] });
      expect(listed.find((r) => r.workflow_id === live.workflowId)?.pending.map((d) => d.kind)).toEqual(['plan']);
      await rejectPlan(harness().client, live.workflowId, { reason: 'done', stop: true });
    } finally {
      await harness().client.workflow.getHandle(stranded.workflowId).terminate('test over').catch(() => undefined);
    }
  });
});
