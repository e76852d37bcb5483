/** step_by_step (Axon Ivy IvyAgent) runs on real servers with the scripted model. */
import { resolve } from 'node:path';
import { gateTool } from '../../support/gate-tool';
import type { StepView } from '../../../workflows';
import { useHarness, failureOf, progressOf, runInput, scriptedAgent, startAgentRun, runAgent } from '../../support/harness';
import { calculatorTurns } from '../../support/script';

jest.setTimeout(90_000);

const waitTool = gateTool();

const harnessOf = useHarness({ tools: [waitTool.tool] });

const step = (stepNo: number, name: string, resultName: string, toolId = 'CalculatorTool') => ({
  stepNo,
  name,
  analysis: `why ${name}`,
  toolId,
  previous: stepNo - 1,
  next: stepNo === 3 ? -1 : stepNo + 1,
  resultName,
  resultDescription: `the ${resultName}`,
});

const agent = (script: Record<string, unknown>, question: string, parameters: Record<string, unknown> = {}) =>
  runInput(
    scriptedAgent(script as never, {
      type: 'step_by_step',
      goal: 'Compute the requested number exactly',
      tools: [{ type: 'CalculatorTool' }],
      instructions: [
        { type: 'planning', content: 'Plan one calculation per step.' },
        { type: 'execution', content: 'Double-check every number.' },
      ],
      parameters,
    }),
    question,
  );

const forQuestion = (question: string) => harnessOf().recorder.filter((r) => JSON.stringify(r.messages).includes(question));

describe('the step_by_step agent', () => {
  it('inserts and executes adaptive step 1002 after a YES decision, then finishes the plan', async () => {
    const question = 'What is (6*7) + 2^10, checked?';
    const plan = [step(1, 'multiply', 'product'), step(2, 'power', 'power'), step(3, 'add', 'sum')];
    const adaptive = [{ stepNo: 1, name: 'check the product', toolId: 'CalculatorTool', resultName: 'check', resultDescription: 'product again' }];
    const handle = await startAgentRun(
      harnessOf(),
      agent(
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

    const calls = forQuestion(question);
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
            mapping: [JSON.stringify([step(1, 'wait', 'waited', 'WaitTool'), step(2, 'multiply', 'product')])],
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
              mapping: [JSON.stringify([step(1, 'add', 'sum', 'add')])],
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
        agent(
          {
            planner: ['multiply, then power, then add'],
            mapping: [JSON.stringify([step(1, 'multiply', 'product'), step(2, 'power', 'power'), step(3, 'add', 'sum')])],
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
    expect(forQuestion(question).filter((r) => r.position.role === 'executor')).toHaveLength(2);
  });

  describe("follows a step's next after a NO decision", () => {
    const withNext = (stepNo: number, name: string, next: number) => ({ ...step(stepNo, name, `r${stepNo}`), next });
    const run = async (plan: unknown[], executor: unknown[][], decision: string[], question: string, parameters: Record<string, unknown> = {}) =>
      runAgent(harnessOf(), agent({ planner: ['a plan'], mapping: [JSON.stringify(plan)], executor, decision }, question, parameters));

    it('-1 (FINALIZE_STEP) ends the run there, the rest skipped', async () => {
      const out = await run([withNext(1, 'one', -1), withNext(2, 'two', 3), withNext(3, 'three', -1)], [calculatorTurns('1+0', '1')], ['Decision: NO'], 'finalize early');
      expect(out.response).toBe('1');
      expect((out.metadata?.steps as StepView[]).map((s) => [s.stepNo, s.status])).toEqual([[1, 'completed'], [2, 'skipped'], [3, 'skipped']]);
    });

    it('a later step is jumped to, the steps between skipped', async () => {
      const out = await run([withNext(1, 'one', 3), withNext(2, 'two', 3), withNext(3, 'three', -1)], [calculatorTurns('1+0', '1'), calculatorTurns('3+0', '3')], ['Decision: NO', 'Decision: NO'], 'jump ahead');
      expect(out.response).toBe('3');
      expect((out.metadata?.steps as StepView[]).map((s) => [s.stepNo, s.status])).toEqual([[1, 'completed'], [2, 'skipped'], [3, 'completed']]);
    });

    it('an earlier step runs again, bounded by max_iterations', async () => {
      const out = await run(
        [withNext(1, 'one', 2), withNext(2, 'two', 1), withNext(3, 'three', -1)],
        [calculatorTurns('1+0', '1'), calculatorTurns('2+0', '2'), calculatorTurns('1+0', '1 again'), calculatorTurns('2+0', '2 again')],
        ['Decision: NO', 'Decision: NO', 'Decision: NO', 'Decision: NO'],
        'round and round',
        { max_iterations: 4 },
      );
      expect(out.steps_executed).toBe(4);
      expect(out.response).toMatch(/^Max Iterations \(4\) Reached\./);
      expect((out.metadata?.steps as StepView[]).map((s) => [s.stepNo, s.status, s.repeated ?? false])).toEqual([
        [1, 'completed', false],
        [2, 'completed', false],
        [1, 'completed', true],
        [2, 'completed', true],
        [1, 'skipped', true], // the next repeat, when the limit ended the run
        [3, 'skipped', false],
      ]);
    });
  });

  it('asks an unreadable decision again (bounded) instead of taking it for NO', async () => {
    const question = 'decide clearly';
    const script = {
      planner: ['two steps'],
      mapping: [JSON.stringify([step(1, 'multiply', 'product'), step(2, 'power', 'power')])],
      executor: [calculatorTurns('6*7', '42')],
      decision: ['I am not sure what to do.'],
      decision_retry: ['Still thinking.', 'Done.\nDecision: COMPLETE'],
    };
    const out = await runAgent(harnessOf(), agent(script, question));
    expect(out.response).toBe('42');
    expect((out.metadata?.steps as StepView[]).map((s) => [s.status, s.decision])).toEqual([['completed', 'COMPLETE'], ['skipped', undefined]]);
    const retries = forQuestion(question).filter((r) => r.position.role === 'task' && r.position.kind === 'decision_retry');
    expect(retries).toHaveLength(2);
    expect(retries[0].messages[0].content).toContain('Your previous answer could not be read');
  });

  it('rejects a plan whose step names an unknown tool, as "Tool not found"', async () => {
    const handle = await startAgentRun(
      harnessOf(),
      agent({ planner: ['use the shredder'], mapping: [JSON.stringify([step(1, 'shred', 'pieces', 'ShredderTool')])] }, 'shred it'),
    );
    const failure = await failureOf(handle.result());
    expect(failure.type).toBe('Agent.ToolNotFound');
    expect(failure.message).toMatch(/^Tool not found: ShredderTool \(step 1 "shred"\); the agent's tools: CalculatorTool$/);
    const progress = await progressOf(harnessOf(), handle.workflowId);
    expect(progress.status).toBe('failed');
    expect(progress.error).toContain('Tool not found: ShredderTool');
  });

  it('asks again after an unparseable step list, and fails with Agent.OutputInvalid when it never parses', async () => {
    const recovered = await (
      await startAgentRun(
        harnessOf(),
        agent({ planner: ['multiply'], mapping: ['Sure! Step one is to multiply.', JSON.stringify([step(1, 'multiply', 'product')])], executor: [calculatorTurns('6*7', '42')], decision: ['Decision: COMPLETE'] }, 'parse retry'),
      )
    ).result();
    expect(recovered.response).toBe('42');
    const retry = harnessOf().recorder.find((r) => r.position.role === 'task' && r.position.kind === 'mapping' && r.position.call === 1 && r.messages[0].content.includes('INPUT:\nmultiply'));
    expect(retry?.messages[0].content).toContain('Your previous answer could not be parsed');

    const handle = await startAgentRun(harnessOf(), agent({ planner: ['multiply'], mapping: ['no', 'still no', '[]'] }, 'never parses'));
    const failure = await failureOf(handle.result());
    expect(failure.type).toBe('Agent.OutputInvalid');
    expect(failure.message).toMatch(/^the structured steps could not be parsed after 3 attempts \(the list of steps is empty\); last answer: "\[\]"$/);
  });

  it('stops at max_iterations with the memory_id to continue with', async () => {
    const out = await (
      await startAgentRun(
        harnessOf(),
        runInput(
          scriptedAgent(
            {
              planner: ['two steps'],
              mapping: [JSON.stringify([step(1, 'multiply', 'product'), step(2, 'power', 'power')])],
              executor: [calculatorTurns('6*7', '42')],
              decision: ['Decision: NO'],
            } as never,
            { type: 'step_by_step', goal: 'g', tools: [{ type: 'CalculatorTool' }], parameters: { max_iterations: 1 } },
          ),
          'iteration limit',
        ),
      )
    ).result();
    expect(out.response).toMatch(/^Max Iterations \(1\) Reached\. /);
    expect(out.response).toContain(out.memory_id);
    expect((out.metadata?.steps as StepView[]).map((s) => s.status)).toEqual(['completed', 'skipped']);
  });
});
