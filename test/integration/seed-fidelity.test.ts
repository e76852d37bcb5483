/**
 * Seed behaviour that involves a run: a continued conversation does not take a failed run's
 * "Agent execution failed: …" for an answer, and a tool's own timeout sets its activity's.
 */
import { final, plan, runInput, scriptedAgent, useHarness, workflowId } from '../support/harness';
import { planExecuteReflect, type RunOutput } from '../../workflows';
import { startRun } from '../../client/run';
import { denseParameters } from '../../core/agent';
import { readMemory } from '../../client/memory';
import { calculatorTurns, withCalculator } from '../support/script';

jest.setTimeout(120_000);

const harness = useHarness();

async function run(agent: unknown, question: string, params: Record<string, unknown> = {}, memoryId?: string) {
  const input = { ...runInput(agent, question, params), ...(memoryId ? { memory_id: memoryId } : {}) };
  return harness().client.workflow.start(planExecuteReflect, { taskQueue: harness().taskQueue, workflowId: workflowId('seed'), args: [input] });
}

it('a continued conversation shows the planner its earlier answers but not a failed run', async () => {
  const first = await (await run(scriptedAgent({ planner: [final('the first answer')] }), 'first question')).result();
  const failing = await run(scriptedAgent({ planner: ['no', 'json', 'ever'] }), 'second question', {}, first.memory_id);
  await expect(failing.result()).rejects.toThrow();
  const third = await (await run(scriptedAgent({ planner: [final('done')] }), 'third question', {}, first.memory_id)).result();
  expect(third.response).toBe('done');
  const prompt = harness().recorder.find((r) => r.position.role === 'planner' && r.messages[0]?.content.includes('third question'))!.messages[0].content;
  expect(prompt).toContain('the first answer');
  expect(prompt).not.toContain('second question');
  expect(prompt).not.toContain('Agent execution failed');
});

it("a tool's timeout_seconds over the default sets its activity's timeout, and its retries are bounded", async () => {
  const agent = scriptedAgent(
    { planner: [plan('compute'), final('ok')], executor: [calculatorTurns('1+1', '2')] },
    { tools: [{ type: 'CalculatorTool', parameters: { timeout_seconds: 250 } }] },
  );
  const handle = await run(agent, 'slow tool');
  await handle.result();
  const events = (await harness().client.workflow.getHandle(`${handle.workflowId}/step-1`).fetchHistory()).events ?? [];
  const scheduled = events.map((e) => e.activityTaskScheduledEventAttributes).find((a) => a?.activityType?.name === 'callTool')!;
  expect(Number(scheduled.startToCloseTimeout?.seconds)).toBe(310);
  expect(scheduled.retryPolicy?.maximumAttempts).toBe(20);
});

it('renders ${parameters.x} in the system prompts and inside parameter values, never in the question', async () => {
  const agent = scriptedAgent(
    { planner: [plan('look'), final('ok')], executor: [[{ content: 'seen' }]] },
    {
      parameters: {
        persona: 'a careful analyst',
        system_prompt: 'You are ${parameters.persona}. ${parameters.plan_execute_reflect_response_format}',
        executor_system_prompt: 'Execute as ${parameters.persona}.',
        planner_prompt: 'Plan as ${parameters.persona}, briefly.',
      },
    },
  );
  await (await run(agent, 'what does ${parameters.persona} mean?')).result();
  const planner = harness().recorder.find((r) => r.position.role === 'planner' && r.messages[0]?.content.includes('briefly'))!;
  expect(planner.system).toMatch(/^You are a careful analyst\. Response Instructions:/);
  expect(planner.messages[0].content).toContain('Plan as a careful analyst, briefly.');
  // The question is the user's text: inserted as it is.
  expect(planner.messages[0].content).toContain('Objective: what does ${parameters.persona} mean?');
  const executor = harness().recorder.find((r) => r.position.role === 'executor' && r.messages.some((m) => m.content === 'look'))!;
  expect(executor.system).toBe('Execute as a careful analyst.');
});

it('tenant_id stamps every memory document and interaction, executor_agent_id is stored, and executor_agent_memory_id continues that executor memory', async () => {
  const agentFile = (step: string) =>
    scriptedAgent({ planner: [plan(step), final(`${step} done`)], executor: [calculatorTurns('2+2', `${step}: 4`)] }, withCalculator());
  const start = async (step: string, params: Record<string, unknown>) => {
    const input = runInput(agentFile(step), `${step}?`, params);
    const started = await startRun(harness().perflow, { agent: input.agent, parameters: denseParameters(input), question: `${step}?` });
    return (await started.handle.result()) as RunOutput;
  };
  const first = await start('first step', { tenant_id: 'acme', executor_agent_id: 'exec-7' });
  const second = await start('second step', { tenant_id: 'acme', memory_id: first.memory_id, executor_agent_memory_id: first.executor_agent_memory_id });
  expect([second.memory_id, second.executor_agent_memory_id]).toEqual([first.memory_id, first.executor_agent_memory_id]);

  const memories = await harness().memory.memories.find({ _id: { $in: [first.memory_id, first.executor_agent_memory_id] } }).toArray();
  expect(memories.map((m) => m.tenant_id)).toEqual(['acme', 'acme']);
  expect(memories.find((m) => m.role === 'executor')?.agent_id).toBe('exec-7');
  const interactions = await harness().memory.interactions.find({ memory_id: { $in: [first.memory_id, first.executor_agent_memory_id] } }).toArray();
  expect(interactions.length).toBeGreaterThanOrEqual(8); // two roots each side, step traces, executor records, tool calls
  expect(interactions.filter((d) => d.tenant_id !== 'acme')).toEqual([]);

  // The second run's executor saw the first run's step in its history.
  const executor = harness().recorder.find((r) => r.position.role === 'executor' && r.messages.at(-1)?.content === 'second step')!;
  expect(executor.messages.map((m) => m.content)).toEqual(expect.arrayContaining(['first step', 'first step: 4']));

  // `perflow memory --tenant` shows the conversation to its tenant only.
  expect((await readMemory(harness().perflow, first.memory_id, 'acme'))?.runs).toHaveLength(2);
  expect(await readMemory(harness().perflow, first.memory_id, 'someone-else')).toBeUndefined();
});
