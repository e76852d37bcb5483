/**
 * Assessments of every agent type that has them — plan_and_execute's verification and
 * viability check, todo_list's completion and goal assessments, step_by_step's decision — are
 * asked again when their answer cannot be read; an answer still unreadable after
 * `max_parse_retries` retries takes the default verdict, which the run records as assumed.
 */
import type { AssumedVerdict } from '../../../workflows';
import { progressOf, runInput, scriptedAgent, startAgentRun, useHarness } from '../../support/harness';
import { calculatorTurns } from '../../support/script';

jest.setTimeout(90_000);

const harnessOf = useHarness();

const tools = [{ type: 'CalculatorTool' }];

async function run(type: string, script: Record<string, unknown>, question: string, params: Record<string, unknown> = {}) {
  const seen = harnessOf().recorder.length;
  const handle = await startAgentRun(harnessOf(), runInput(scriptedAgent(script as never, { type, tools, ...(type === 'step_by_step' ? { goal: 'an exact number' } : {}) }), question, params), 'judged');
  const out = await handle.result();
  const progress = await progressOf(harnessOf(), handle.workflowId);
  // The files' runs go one after another: this run's calls are the ones recorded since it started.
  const calls = (kind: string) => harnessOf().recorder.slice(seen).filter((r) => r.position.role === 'task' && r.position.kind === kind);
  return { handle, out, progress, calls, assumed: (out.metadata?.assumed_verdicts ?? []) as AssumedVerdict[] };
}

describe('an assessment whose answer cannot be read', () => {
  it('is asked again in plan_and_execute, and a viability check unreadable after max_parse_retries keeps the plan, recorded as assumed', async () => {
    const question = 'two steps whose checks answer badly';
    const step = (goal: string) => ({ goal, primary_tools: ['CalculatorTool'], success_criteria: `${goal} is known` });
    const { out, progress, calls, assumed } = await run(
      'plan_and_execute',
      {
        planner: [JSON.stringify([step('the product'), step('the sum')])],
        executor: [calculatorTurns('6*7', '42'), calculatorTurns('42+1', '43')],
        verification: ['it looks fine to me', JSON.stringify({ met: true }), JSON.stringify({ met: true })],
        viability: ['probably viable', 'viable, I think'],
        final: ['43'],
      },
      question,
      { max_parse_retries: 1 },
    );
    expect(out.response).toBe('43');
    // Step 1's verification is asked again with why its answer could not be read, and then met.
    const verifications = calls('verification');
    expect(verifications.map((r) => 'call' in r.position && r.position.call)).toEqual([0, 1, 2]);
    expect(verifications[1].messages[0].content).toContain('Your previous answer could not be read');
    expect(calls('viability')).toHaveLength(2);
    const viability = { kind: 'viability', after_steps: 1, assumed: 'the remaining plan is viable', error: expect.any(String) };
    expect(assumed).toEqual([viability]);
    expect(progress.assumed_verdicts).toEqual([viability]);
    expect(out.steps_executed).toBe(2);
  });

  it('is asked again in todo_list: a completion at its own retry position, the goal at its next one', async () => {
    const question = 'one todo whose assessments answer badly first';
    const { out, calls, assumed } = await run(
      'todo_list',
      {
        planner: [JSON.stringify([{ stepNo: 1, description: 'the product', successCriteria: 'an exact number', availableToolIds: ['CalculatorTool'] }])],
        executor: [calculatorTurns('6*7', '42')],
        completion: ['I would say so'],
        completion_retry: ['COMPLETED'],
        goal: ['mostly there', 'GOAL_ACHIEVED'],
      },
      question,
    );
    expect(out.response).toBe('42');
    expect(out.metadata?.goal_achieved).toBe(true);
    expect(calls('completion_retry')[0].messages[0].content).toContain('Your previous answer could not be read');
    expect(calls('goal')).toHaveLength(2);
    expect(assumed).toEqual([]);
  });

  it('takes step_by_step\'s decision as NO after max_parse_retries unreadable answers, recorded as assumed', async () => {
    const question = 'a decision that never reads';
    const { out, progress, calls, assumed } = await run(
      'step_by_step',
      {
        planner: ['one step'],
        mapping: [JSON.stringify([{ stepNo: 1, name: 'multiply', toolId: 'CalculatorTool' }])],
        executor: [calculatorTurns('6*7', '42')],
        decision: ['hmm'],
        decision_retry: ['still hmm'],
      },
      question,
      { max_parse_retries: 1 },
    );
    expect(out.response).toBe('42');
    expect(calls('decision_retry')).toHaveLength(1);
    const decision = { kind: 'decision', after_steps: 1, assumed: 'NO (the plan goes on)', error: expect.any(String) };
    expect(assumed).toEqual([decision]);
    expect(progress.assumed_verdicts).toEqual([decision]);
  });
});

describe('an assessment', () => {
  // Past the 2,000-character preview the history keeps: only the whole result has the end.
  const long = `${'x'.repeat(3_000)} END OF THE RESULT`;
  const huge = `${'y'.repeat(60_000)} NEVER SHOWN`;

  it('judges a step\'s whole result in every agent type: verification, completion and decision', async () => {
    const step = { goal: 'the long one', primary_tools: ['CalculatorTool'], success_criteria: 'it ends' };
    const pae = await run('plan_and_execute', { planner: [JSON.stringify([step])], executor: [[{ content: long }]], verification: [JSON.stringify({ met: true })], final: ['done'] }, 'judge the whole observation');
    expect(pae.calls('verification')[0].messages[0].content).toContain('END OF THE RESULT');
    const todo = await run(
      'todo_list',
      { planner: [JSON.stringify([{ stepNo: 1, description: 'the long one', successCriteria: 'it ends' }])], executor: [[{ content: long }]], completion: ['COMPLETED'], goal: ['GOAL_ACHIEVED'] },
      'judge the whole todo result',
    );
    expect(todo.calls('completion')[0].messages[0].content).toContain('END OF THE RESULT');
    const sbs = await run(
      'step_by_step',
      { planner: ['one step'], mapping: [JSON.stringify([{ stepNo: 1, name: 'the long one', toolId: 'CalculatorTool' }])], executor: [[{ content: long }]], decision: ['Decision: COMPLETE'] },
      'judge the whole step result',
    );
    expect(sbs.calls('decision')[0].messages[0].content).toContain('END OF THE RESULT');
    // The decision's activity input in the history holds the marker the activity filled, not the result.
    const events = (await sbs.handle.fetchHistory()).events ?? [];
    const inputs = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.input?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString());
    const decision = inputs.find((i) => i.includes('"kind":"decision"'))!;
    expect(decision).toContain('⟦whole result of step 1⟧');
    expect(decision).not.toContain('END OF THE RESULT');
  });

  it('is shown at most 50,000 characters of a result, and told it was cut', async () => {
    const { calls } = await run(
      'todo_list',
      { planner: [JSON.stringify([{ stepNo: 1, description: 'the huge one', successCriteria: 'it ends' }])], executor: [[{ content: huge }]], completion: ['COMPLETED'], goal: ['GOAL_ACHIEVED'] },
      'judge a huge result',
    );
    const prompt = calls('completion')[0].messages[0].content;
    expect(prompt).toContain('…[cut: the result has 60012 characters; the first 50000 are shown]');
    expect(prompt).not.toContain('NEVER SHOWN');
  });
});
