/**
 * step_by_step on real servers, steered by its decisions and stopped by its limits: a step's
 * `next` after NO, an unreadable decision asked again, an unknown tool, an unparseable step list,
 * and max_iterations.
 */
import type { StepView } from '../../../workflows';
import { useHarness, failureOf, progressOf, runInput, scriptedAgent, startAgentRun, runAgent, requestsAbout } from '../../support/harness';
import { calculatorTurns } from '../../support/script';
import { mappedStep, stepByStepAgent } from '../../support/step-by-step-agent';

jest.setTimeout(90_000);

const harnessOf = useHarness();

describe('the step_by_step agent', () => {
  describe("follows a step's next after a NO decision", () => {
    const withNext = (stepNo: number, name: string, next: number) => ({ ...mappedStep(stepNo, name, `r${stepNo}`), next });
    const run = async (plan: unknown[], executor: unknown[][], decision: string[], question: string, parameters: Record<string, unknown> = {}) =>
      runAgent(harnessOf(), stepByStepAgent({ planner: ['a plan'], mapping: [JSON.stringify(plan)], executor, decision }, question, parameters));

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
      mapping: [JSON.stringify([mappedStep(1, 'multiply', 'product'), mappedStep(2, 'power', 'power')])],
      executor: [calculatorTurns('6*7', '42')],
      decision: ['I am not sure what to do.'],
      decision_retry: ['Still thinking.', 'Done.\nDecision: COMPLETE'],
    };
    const out = await runAgent(harnessOf(), stepByStepAgent(script, question));
    expect(out.response).toBe('42');
    expect((out.metadata?.steps as StepView[]).map((s) => [s.status, s.decision])).toEqual([['completed', 'COMPLETE'], ['skipped', undefined]]);
    const retries = requestsAbout(harnessOf(), question).filter((r) => r.position.role === 'task' && r.position.kind === 'decision_retry');
    expect(retries).toHaveLength(2);
    expect(retries[0].messages[0].content).toContain('Your previous answer could not be read');
  });

  it('rejects a plan whose step names an unknown tool, as "Tool not found"', async () => {
    const handle = await startAgentRun(
      harnessOf(),
      stepByStepAgent({ planner: ['use the shredder'], mapping: [JSON.stringify([mappedStep(1, 'shred', 'pieces', 'ShredderTool')])] }, 'shred it'),
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
        stepByStepAgent({ planner: ['multiply'], mapping: ['Sure! Step one is to multiply.', JSON.stringify([mappedStep(1, 'multiply', 'product')])], executor: [calculatorTurns('6*7', '42')], decision: ['Decision: COMPLETE'] }, 'parse retry'),
      )
    ).result();
    expect(recovered.response).toBe('42');
    const retry = harnessOf().recorder.find((r) => r.position.role === 'task' && r.position.kind === 'mapping' && r.position.call === 1 && r.messages[0].content.includes('INPUT:\nmultiply'));
    expect(retry?.messages[0].content).toContain('Your previous answer could not be parsed');

    const handle = await startAgentRun(harnessOf(), stepByStepAgent({ planner: ['multiply'], mapping: ['no', 'still no', '[]'] }, 'never parses'));
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
              mapping: [JSON.stringify([mappedStep(1, 'multiply', 'product'), mappedStep(2, 'power', 'power')])],
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
