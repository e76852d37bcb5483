/**
 * plan_and_execute (seed 003) runs on real servers with the scripted model: each re-planning
 * trigger in its own run, the adapted plan keeping completed steps and renumbering, the
 * run metadata with exact statistics, and a long run that carries only its latest plan steps.
 */
import type { PlanStep, StepResult } from '../../../core/agent-types';
import type { Replan } from '../../../workflows';
import { carriedAgentStates, useHarness, progressOf, runInput, scriptedAgent, startAgentRun } from '../../support/harness';
import { calculatorTurns, onTrack, planStep, withCalculator } from '../../support/script';
import { expectedResponse, typedAgent } from '../../support/typed-agents';
import { CARRIED_STEPS } from '../../../workflows/kernel/lifecycle';

jest.setTimeout(90_000);

const harnessOf = useHarness();

/** A plan step whose criteria name its goal (the StepVerifier's prompt shows them). */
const step = (goal: string, extra: Record<string, unknown> = {}) => planStep(goal, { success_criteria: `${goal} is known`, ...extra });
const noReplan = (confidence = 0.1) => onTrack(confidence, 'the plan still works');

/** The StepVerifier's verdicts: every successful attempt meets its criteria unless a script says otherwise. */
const allMet = Array.from({ length: 10 }, () => JSON.stringify({ met: true, reason: 'met' }));

const agent = (script: Record<string, unknown>, question: string) =>
  runInput(scriptedAgent({ verification: allMet, ...script } as never, withCalculator({ type: 'plan_and_execute' })), question);

async function run(script: Record<string, unknown>, question: string) {
  const handle = await startAgentRun(harnessOf(), agent(script, question), 'pae');
  const out = await handle.result();
  const meta = out.metadata as {
    planning: { plan: PlanStep[]; replans: Replan[] };
    execution: { steps: StepResult[] };
    summary: Record<string, unknown>;
    agent_type: string;
  };
  return { handle, out, meta };
}

const planner = (question: string) =>
  harnessOf().recorder.filter((r) => r.position.role === 'planner' && r.messages[0].content.includes(question)).map((r) => r.messages[0].content);

describe('the plan_and_execute agent', () => {
  it('re-plans when a step failed after 3 attempts, keeping the completed step and renumbering', async () => {
    const question = 'trigger one: a step that keeps failing';
    const { handle, out, meta } = await run(
      {
        planner: [
          // step_num is missing: numbered 1, 2, 3 by position.
          JSON.stringify([step('the product'), step('read the broken sensor'), step('the total')]),
          // The adapted plan's own numbers are replaced: it continues after the kept steps.
          JSON.stringify([step('estimate the sensor value', { step_num: 1 }), step('the total', { step_num: 2, context: 'add the estimate' })]),
        ],
        // Step 2 has no executor turns three times: each attempt fails.
        executor: [calculatorTurns('6*7', '42'), [], [], [], calculatorTurns('10+5', '15'), calculatorTurns('42+15', '57')],
        viability: [noReplan(), noReplan(0.6)],
        final: ['The total is 57.'],
      },
      question,
    );
    expect(out.response).toBe('The total is 57.');
    expect(meta.agent_type).toBe('plan_and_execute');
    expect(meta.planning.plan.map((s) => [s.step_num, s.goal])).toEqual([
      [1, 'the product'],
      [2, 'read the broken sensor'],
      [3, 'estimate the sensor value'],
      [4, 'the total'],
    ]);
    expect(meta.planning.plan[3].context).toBe('add the estimate');
    expect(meta.planning.replans).toEqual([{ after_step: 2, trigger: 'step_failed', reason: expect.stringMatching(/^step 2 failed after 3 attempts: Step failed: /) }]);
    expect(meta.execution.steps.map((s) => [s.step_num, s.success, s.attempts, s.tool_used])).toEqual([
      [1, true, 1, 'CalculatorTool'],
      [2, false, 3, 'CalculatorTool'],
      [3, true, 1, 'CalculatorTool'],
      [4, true, 1, 'CalculatorTool'],
    ]);
    expect(meta.summary).toEqual({ total_steps: 4, successful_steps: 3, failed_steps: 1, success_rate: 75, total_attempts: 6, unique_tools: ['CalculatorTool'] });
    // The re-planning prompt names the completed work and the issue.
    const adapt = planner(question)[1];
    expect(adapt).toContain('✅ 1. the product [CalculatorTool]: 42');
    expect(adapt).toContain('ISSUE: step 2 failed after 3 attempts');
    expect(adapt).toContain('3. the total [CalculatorTool]');

    const progress = await progressOf(harnessOf(), handle.workflowId);
    expect(progress.agent_type).toBe('plan_and_execute');
    expect(progress.plan_steps?.map((s) => [s.step_num, s.status, s.attempts])).toEqual([
      [1, 'completed', 1],
      [2, 'failed', 3],
      [3, 'completed', 1],
      [4, 'completed', 1],
    ]);
    expect(progress.replans?.map((r) => r.trigger)).toEqual(['step_failed']);
    expect(progress.steps_executed).toBe(6);
  });

  it('re-plans when an observation says a prerequisite is missing', async () => {
    const question = 'trigger two: a missing prerequisite';
    const { out, meta } = await run(
      {
        planner: [
          JSON.stringify([step('look up the rate'), step('apply the rate')]),
          JSON.stringify([step('compute the rate from its parts'), step('apply the rate')]),
        ],
        executor: [[{ content: 'The rate table was not found in the database.' }], calculatorTurns('3/4', '0.75'), calculatorTurns('100*0.75', '75')],
        viability: [noReplan()],
        final: ['75'],
      },
      question,
    );
    expect(out.response).toBe('75');
    expect(meta.planning.replans).toEqual([
      { after_step: 1, trigger: 'keyword', reason: 'the observation of step 1 mentions "not found": The rate table was not found in the database.' },
    ]);
    expect(meta.planning.plan.map((s) => [s.step_num, s.goal])).toEqual([
      [1, 'look up the rate'],
      [2, 'compute the rate from its parts'],
      [3, 'apply the rate'],
    ]);
    expect(meta.summary).toEqual({ total_steps: 3, successful_steps: 3, failed_steps: 0, success_rate: 100, total_attempts: 3, unique_tools: ['CalculatorTool'] });
    // The keyword fired: no viability check after step 1; one after step 2 (not after the last).
    expect(harnessOf().recorder.filter((r) => r.position.role === 'task' && r.position.kind === 'viability' && r.messages[0].content.includes(question))).toHaveLength(1);
  });

  it('re-plans when the viability check is at least 0.7 confident the rest will not work, and synthesises the answer from the steps', async () => {
    const question = 'trigger three: the viability check';
    const { out, meta } = await run(
      {
        planner: [
          JSON.stringify([step('count the flights'), step('count them again'), step('report the count')]),
          JSON.stringify([step('report the count', { primary_tools: [] })]),
        ],
        executor: [calculatorTurns('12+30', '42 flights'), [{ content: 'There are 42 flights.' }]],
        viability: [JSON.stringify({ replan: true, confidence: 0.85, reason: 'counting twice adds nothing' })],
        final: ['There are 42 flights.'],
      },
      question,
    );
    expect(out.response).toBe('There are 42 flights.');
    expect(meta.planning.replans).toEqual([{ after_step: 1, trigger: 'viability', reason: 'viability check (confidence 0.85): counting twice adds nothing' }]);
    expect(meta.planning.plan.map((s) => [s.step_num, s.goal, s.primary_tools])).toEqual([
      [1, 'count the flights', ['CalculatorTool']],
      [2, 'report the count', []],
    ]);
    expect(meta.execution.steps.map((s) => s.tool_used)).toEqual(['CalculatorTool', '']);
    expect(meta.summary).toEqual({ total_steps: 2, successful_steps: 2, failed_steps: 0, success_rate: 100, total_attempts: 2, unique_tools: ['CalculatorTool'] });
    // The guided input of step 2 carries the earlier observation; the final prompt the step summaries.
    const step2 = harnessOf().recorder.find((r) => r.position.role === 'executor' && r.messages.at(-1)?.content.includes('Current step (2 of 2): report the count'));
    expect(step2?.messages.at(-1)?.content).toContain('Results of previous steps:\nStep 1 (CalculatorTool): 42 flights');
    expect(step2?.tools ?? []).toEqual([]);
    const finalPrompt = harnessOf().recorder.find((r) => r.position.role === 'task' && r.position.kind === 'final' && r.messages[0].content.includes(question));
    expect(finalPrompt?.messages[0].content).toContain('✅ Step 1: count the flights [tool: CalculatorTool] → 42 flights');
  });

  it('keeps the plan when the viability check is below the threshold', async () => {
    const question = 'no trigger: confidence 0.6';
    const { meta } = await run(
      {
        planner: [JSON.stringify([step('a'), step('b')])],
        executor: [calculatorTurns('1+1', '2'), calculatorTurns('2+2', '4')],
        viability: [JSON.stringify({ replan: true, confidence: 0.6, reason: 'unsure' })],
        final: ['4'],
      },
      question,
    );
    expect(meta.planning.replans).toEqual([]);
    expect(meta.summary).toEqual({ total_steps: 2, successful_steps: 2, failed_steps: 0, success_rate: 100, total_attempts: 2, unique_tools: ['CalculatorTool'] });
  });

  it("verifies each step's success criteria (StepVerifier): an unmet criterion is a failed attempt, retried, and feeds re-planning", async () => {
    const question = 'verified steps';
    const { handle, out, meta } = await run(
      {
        planner: [JSON.stringify([step('the verified product'), step('the verified sum')])],
        executor: [calculatorTurns('6*7', '41?'), calculatorTurns('6*7', '42'), calculatorTurns('42+1', '43')],
        verification: [JSON.stringify({ met: false, reason: 'not the exact product' }), JSON.stringify({ met: true }), JSON.stringify({ met: true })],
        viability: [noReplan()],
        final: ['43'],
      },
      question,
    );
    expect(out.response).toBe('43');
    expect(meta.execution.steps.map((st) => [st.step_num, st.success, st.attempts])).toEqual([
      [1, true, 2],
      [2, true, 1],
    ]);
    const checks = harnessOf().recorder.filter((r) => r.position.role === 'task' && r.position.kind === 'verification' && r.messages[0].content.includes('the verified'));
    expect(checks).toHaveLength(3);
    expect(checks[0].messages[0].content).toContain('SUCCESS CRITERIA: the verified product is known');
    expect(checks[0].messages[0].content).toContain('41?');
    // The second attempt was told why the first did not succeed.
    const second = harnessOf().recorder.find((r) => r.position.role === 'executor' && 'step' in r.position && r.position.step === 1 && r.messages.at(-1)?.content.includes(question));
    expect(second?.messages.at(-1)?.content).toContain('Attempt 2');

    // Planning calls run at the seed's planning temperature (the agent file sets none).
    const events = (await handle.fetchHistory()).events ?? [];
    const planning = events.map((e) => e.activityTaskScheduledEventAttributes).find((a) => a?.activityType?.name === 'planningModel')!;
    const input = JSON.parse(Buffer.from(planning.input!.payloads![0].data!).toString()) as { model: { parameters?: { temperature?: number } }; position: { role: string } };
    expect(input.position.role).toBe('planner');
    expect(input.model.parameters?.temperature).toBe(0.3);
  });

  it('a step whose criteria stay unmet fails after its attempts, and that re-plans', async () => {
    const question = 'never good enough';
    const notMet = JSON.stringify({ met: false, reason: 'wrong' });
    const { meta } = await run(
      {
        planner: [JSON.stringify([step('the product'), step('the sum')]), JSON.stringify([step('the product, again')])],
        executor: [calculatorTurns('6*7', 'a'), calculatorTurns('6*7', 'b'), calculatorTurns('6*7', 'c'), calculatorTurns('6*7', '42')],
        verification: [notMet, notMet, notMet, JSON.stringify({ met: true })],
        final: ['42'],
      },
      question,
    );
    expect(meta.execution.steps[0]).toMatchObject({ step_num: 1, success: false, attempts: 3, error: expect.stringContaining('the success criteria are not met: wrong') });
    expect(meta.planning.replans).toEqual([expect.objectContaining({ after_step: 1, trigger: 'step_failed' })]);
  });

  it('a long run carries only its latest plan steps across continue-as-new; its prompts still list every step, read back from memory', async () => {
    const STEPS = CARRIED_STEPS + 10;
    const question = `sum 1..${STEPS}, one plan step each`;
    // A few plan steps an execution: one of the continues-as-new past CARRIED_STEPS moves steps, whatever the exact event counts.
    const handle = await startAgentRun(harnessOf(), runInput(typedAgent('plan_and_execute', STEPS), question, { max_steps: STEPS + 5, continue_as_new_after_events: 80 }), 'pae-long');
    const out = await handle.result();
    expect(out.response).toBe(expectedResponse('plan_and_execute', STEPS));
    const meta = out.metadata as { execution: { steps: StepResult[]; earlier_steps?: number }; summary: Record<string, unknown> };
    // The metadata counts every step; it lists the carried ones (the others are in memory).
    expect(meta.summary).toMatchObject({ total_steps: STEPS, successful_steps: STEPS, total_attempts: STEPS, unique_tools: ['CalculatorTool'] });
    const earlier = meta.execution.earlier_steps ?? 0;
    expect(earlier).toBeGreaterThan(0);
    expect(meta.execution.steps.map((s) => s.step_num)).toEqual(Array.from({ length: STEPS - earlier }, (_, i) => earlier + i + 1));

    // Each continued execution's input carries at most the latest CARRIED_STEPS steps and what one execution adds.
    const carried = await carriedAgentStates<{ results: unknown[]; earlier?: { steps: number } }>(harnessOf(), handle.workflowId);
    expect(carried.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...carried.map((s) => s.results.length))).toBeLessThan(CARRIED_STEPS + 15);
    expect(carried.some((s) => (s.earlier?.steps ?? 0) > 0)).toBe(true);

    // The final answer's prompt shows every step's summary and observation, in order, as a run carrying them all would.
    const total = (k: number) => (k * (k + 1)) / 2;
    const final = harnessOf().recorder.find((r) => r.position.role === 'task' && 'kind' in r.position && r.position.kind === 'final' && r.messages[0].content.includes(question))!;
    const prompt = final.messages[0].content;
    const summaries = Array.from({ length: STEPS }, (_, i) => `✅ Step ${i + 1}: add ${i + 1} [tool: CalculatorTool] → total ${total(i + 1)}`);
    const observations = Array.from({ length: STEPS }, (_, i) => `Step ${i + 1} (CalculatorTool): total ${total(i + 1)}`);
    expect(prompt).toContain(summaries.join('\n'));
    expect(prompt).toContain(observations.join('\n'));
    expect(prompt).not.toContain('⟦earlier steps');
    // So does the last viability check's listing of completed steps.
    const viability = harnessOf().recorder.filter((r) => r.position.role === 'task' && 'kind' in r.position && r.position.kind === 'viability' && r.messages[0].content.includes(question)).at(-1)!;
    expect(viability.messages[0].content).toContain(`✅ 1. add 1 [CalculatorTool]: total 1\n✅ 2. add 2`);
    expect(viability.messages[0].content).toContain(`✅ ${STEPS - 1}. add ${STEPS - 1} [CalculatorTool]: total ${total(STEPS - 1)}`);
  });
});
