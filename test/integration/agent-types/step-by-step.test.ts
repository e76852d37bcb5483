/** step_by_step (Axon Ivy IvyAgent) runs on real servers with the scripted model: planning, adaptive steps, progress, MCP tools and an early COMPLETE. */
import { resolve } from 'node:path';
import { gateTool } from '../../support/gate-tool';
import type { StepView } from '../../../workflows';
import { useHarness, progressOf, runInput, scriptedAgent, startAgentRun, requestsAbout } from '../../support/harness';
import { calculatorTurns } from '../../support/script';
import { mappedStep, stepByStepAgent } from '../../support/step-by-step-agent';

jest.setTimeout(90_000);

const waitTool = gateTool();

const harnessOf = useHarness({ tools: [waitTool.tool] });

describe('the step_by_step agent', () => {
  it('inserts and executes adaptive step 1002 after a YES decision, then finishes the plan', async () => {
    const question = 'What is (6*7) + 2^10, checked?';
    const plan = [mappedStep(1, 'multiply', 'product'), mappedStep(2, 'power', 'power'), mappedStep(3, 'add', 'sum')];
    const adaptive = [{ stepNo: 1, name: 'check the product', toolId: 'CalculatorTool', resultName: 'check', resultDescription: 'product again' }];
    const handle = await startAgentRun(
      harnessOf(),
      stepByStepAgent(
        {
          planner: ['1. multiply 6 by 7\n2. raise 2 to 10\n3. add both'],
          mapping: [JSON.stringify(plan)],
          executor: [calculatorTurns('6*7', '42'), calculatorTurns('2^10', '1024'), calculatorTurns('6*7', 'still 42'), calculatorTurns('42+1024', '1066')],
          decision: ['Decision: NO', `Decision: YES\n${JSON.stringify(adaptive)}`, 'Decision: NO', 'Decision: NO'],
        },
        question,
      ),
      'sbs',
    );
    const out = await handle.result();
    expect(out.response).toBe('1066');
    expect(out.steps_executed).toBe(4);

    const steps = (out.metadata?.steps ?? []) as StepView[];
    expect(steps.map((s) => [s.stepNo, s.status, s.adaptive, s.decision])).toEqual([
      [1, 'completed', false, 'NO'],
      [2, 'completed', false, 'YES'],
      [1002, 'completed', true, 'NO'],
      [3, 'completed', false, 'NO'],
    ]);
    expect(out.metadata?.variables).toEqual([
      { name: 'query', value: question },
      { name: 'product', value: '42' },
      { name: 'power', value: '1024' },
      { name: 'check', value: 'still 42' },
      { name: 'sum', value: '1066' },
    ]);

    const calls = requestsAbout(harnessOf(), question);
    // The planning prompt carries the goal, the planning instruction and the tools.
    const planning = calls.find((r) => r.position.role === 'planner')!;
    expect(planning.messages[0].content).toContain('GOAL: Compute the requested number exactly\n\nPlan one calculation per step.\n\nUSER QUERY: What is (6*7) + 2^10, checked?');
    expect(planning.messages[0].content).toContain('CalculatorTool: ');
    // The DataMapping call lists the seed's field explanations and gets the crude plan.
    const mapping = harnessOf().recorder.find((r) => r.position.role === 'task' && r.position.kind === 'mapping' && r.messages[0].content.includes('raise 2 to 10'))!;
    expect(mapping.messages[0].content).toContain('- stepNo: Incremental integer, starts at 1');
    expect(mapping.messages[0].content).toContain('- next: ID of next step, -1 if final');
    // Each step ran with its one tool; the last step saw the earlier results as variables.
    const executor = calls.filter((r) => r.position.role === 'executor');
    expect(executor.every((r) => (r.tools ?? []).map((t) => t.name).join() === 'CalculatorTool')).toBe(true);
    const lastStep = executor.find((r) => r.messages.at(-1)?.content.includes('STEP 3: add'));
    expect(lastStep?.messages.at(-1)?.content).toContain('- check: still 42');
    expect(lastStep?.messages.at(-1)?.content).toContain('Double-check every number.');
    // The decision prompt is the seed's EXECUTION_PROMPT_TEMPLATE.
    const decision = calls.find((r) => r.position.role === 'task' && r.position.kind === 'decision')!;
    expect(decision.messages[0].content).toContain('Current Step: multiply\nLatest Result: 42');
    expect(decision.messages[0].content).toContain('Decision: [YES - update plan | NO - continue | COMPLETE - goal achieved]');

    const progress = await progressOf(harnessOf(), handle.workflowId);
    expect(progress.status).toBe('completed');
    expect(progress.agent_type).toBe('step_by_step');
    expect(progress.steps?.map((s) => s.stepNo)).toEqual([1, 2, 1002, 3]);
    expect(progress.variables).toEqual(['query', 'product', 'power', 'check', 'sum']);
    expect(progress.completed_steps.map((s) => s.executor_workflow_id)).toEqual([1, 2, 3, 4].map((n) => `${handle.workflowId}/step-${n}`));
    // Every executed step is in memory.
    const traces = await harnessOf().memory.interactions.find({ memory_id: out.memory_id, origin: 'planner' }).toArray();
    expect(traces.map((t) => t.response).sort()).toEqual(['1024', '1066', '42', 'still 42']);
  });

  it('shows the step list with statuses in the progress query while a step runs', async () => {
    waitTool.close();
    const handle = await startAgentRun(
      harnessOf(),
      runInput(
        scriptedAgent(
          {
            planner: ['wait, then multiply'],
            mapping: [JSON.stringify([mappedStep(1, 'wait', 'waited', 'WaitTool'), mappedStep(2, 'multiply', 'product')])],
            executor: [[{ tool_calls: [{ name: 'WaitTool', input: { label: 'one' } }] }, { content: 'waited' }], calculatorTurns('6*7', '42')],
            decision: ['Decision: NO', 'Decision: NO'],
          } as never,
          { type: 'step_by_step', goal: 'g', tools: [{ type: 'WaitTool' }, { type: 'CalculatorTool' }] },
        ),
        'live progress',
      ),
    );
    let live = await progressOf(harnessOf(), handle.workflowId).catch(() => undefined);
    for (let i = 0; i < 100 && live?.current_step === undefined; i++) {
      await new Promise((done) => setTimeout(done, 100));
      live = await progressOf(harnessOf(), handle.workflowId).catch(() => undefined);
    }
    expect(live).toMatchObject({
      status: 'executing',
      agent_type: 'step_by_step',
      plan: ['wait', 'multiply'],
      current_step: { index: 0, step: 'step 1: wait', executor_workflow_id: `${handle.workflowId}/step-1` },
    });
    expect(live?.steps?.map((s) => [s.stepNo, s.status])).toEqual([
      [1, 'running'],
      [2, 'pending'],
    ]);
    expect(live?.memory_id).toMatch(/^[0-9a-f-]{36}$/);
    waitTool.release();
    expect((await handle.result()).response).toBe('42');
  });

  it("runs a step with an MCP server's tool, named by its toolId", async () => {
    const out = await (
      await startAgentRun(
        harnessOf(),
        runInput(
          scriptedAgent(
            {
              planner: ['add 2 and 40 with the MCP tool'],
              mapping: [JSON.stringify([mappedStep(1, 'add', 'sum', 'add')])],
              executor: [[{ tool_calls: [{ name: 'add', input: { a: 2, b: 40 } }] }, { content: 'the MCP tool says 42' }]],
              decision: ['Decision: COMPLETE'],
            } as never,
            {
              type: 'step_by_step',
              goal: 'add',
              mcp_servers: [{ name: 'calc', command: process.execPath, args: ['--require', 'tsx/cjs', resolve(__dirname, '../../support/mcp-test-server.ts')] }],
            },
          ),
          'MCP step',
        ),
      )
    ).result();
    expect(out.response).toBe('the MCP tool says 42');
    const [call] = await harnessOf().memory.interactions.find({ memory_id: out.executor_agent_memory_id, origin: 'tool' }).toArray();
    expect([call.tool_name, call.response]).toEqual(['add', '42 (computed by mcp)']);
  });

  it('stops early on a COMPLETE decision and skips the rest of the plan', async () => {
    const question = 'Only the product, please';
    const out = await (
      await startAgentRun(
        harnessOf(),
        stepByStepAgent(
          {
            planner: ['multiply, then power, then add'],
            mapping: [JSON.stringify([mappedStep(1, 'multiply', 'product'), mappedStep(2, 'power', 'power'), mappedStep(3, 'add', 'sum')])],
            executor: [calculatorTurns('6*7', '42')],
            decision: ['The goal is achieved.\nDecision: COMPLETE'],
          },
          question,
        ),
      )
    ).result();
    expect(out.response).toBe('42');
    expect(out.steps_executed).toBe(1);
    expect((out.metadata?.steps as StepView[]).map((s) => s.status)).toEqual(['completed', 'skipped', 'skipped']);
    expect(requestsAbout(harnessOf(), question).filter((r) => r.position.role === 'executor')).toHaveLength(2);
  });

});
