/**
 * A long plan_and_execute run moves its earliest executed plan steps out of its carried state:
 * the prompts, read back with the stored texts at their markers, are the prompts the run would
 * have sent carrying everything; statistics, the step count and the batches still count them.
 * A long step_by_step run carries its latest steps and results, and its step prompt says how
 * many earlier results memory holds.
 */
import {
  carriedVariableListing,
  completedListing,
  foldStepByStep,
  variableListing,
  finalAnswerPrompt,
  foldEarlierSteps,
  initialPlanAndExecuteState,
  planAndExecuteForkPoint,
  planAndExecuteMetadata,
  readyBatch,
  recordResult,
  stepActionText,
  stepsRun,
  stepView,
  type EarlierStepByStep,
  type PlanAndExecuteState,
  type Variable,
} from '../../../core/agent-types';
import { fillEarlierSteps } from '../../../core/template';

/** A state that ran `ran` of `planned` steps (every third failed, a re-plan after step 4), the rest pending. */
function ranState(ran: number, planned: number): PlanAndExecuteState {
  const state = initialPlanAndExecuteState();
  state.plan = Array.from({ length: planned }, (_, i) => stepView({ step_num: i + 1, goal: `goal ${i + 1}`, primary_tools: i % 2 === 0 ? ['Calc'] : [], success_criteria: 'done' }));
  for (let i = 0; i < ran; i++) {
    state.plan[i].attempts = 1 + (i % 3 === 2 ? 1 : 0);
    recordResult(state, state.plan[i], `observation ${i + 1} `.padEnd(400, '.'), i % 3 === 2 ? 'failed' : undefined);
  }
  state.replans.push({ after_step: 4, trigger: 'keyword', reason: 'r4' }, { after_step: ran, trigger: 'viability', reason: 'late' });
  state.cursor = ran;
  state.unit = ran;
  state.countersAt = state.plan.map(() => ({ plannerCalls: 1, viabilityCalls: 0, verificationCalls: 0 }));
  return state;
}

/** The stored parts, as the model activity reads them back. */
const readBack = (parts: Record<string, string>[]) => (prompt: string) =>
  fillEarlierSteps(prompt, new Map(['completed', 'summaries', 'observations'].map((k) => [k, parts.map((p) => p[k]).join('\n')])));

describe('plan_and_execute: earlier steps moved to memory', () => {
  it('leaves the latest steps in the state and prompts that read as before, across two moves', () => {
    const whole = ranState(130, 140);
    const state = ranState(130, 140);
    const parts: Record<string, string>[] = [];
    // Two continue-as-news: the first moves 30, the second moves what passed the window since.
    const first = ranState(80, 140);
    parts.push(foldEarlierSteps(first, 50)!);
    expect(first.earlier).toMatchObject({ steps: 30, last_step_num: 30, replans: 1 });
    expect(first.cursor).toBe(50);
    // Carry on from the folded state to 130 steps, then fold again.
    Object.assign(state, first, { earlier: { ...first.earlier!, id: 'root:earlier-steps', chunks: 1 } });
    for (let i = 80; i < 130; i++) {
      state.plan[i - 30].attempts = 1 + (i % 3 === 2 ? 1 : 0);
      recordResult(state, state.plan[i - 30], `observation ${i + 1} `.padEnd(400, '.'), i % 3 === 2 ? 'failed' : undefined);
    }
    state.cursor = 100;
    parts.push(foldEarlierSteps(state, 50)!);
    expect(state.earlier).toMatchObject({ id: 'root:earlier-steps', chunks: 1, steps: 80, last_step_num: 80 });
    expect([state.results.length, state.observations.length, state.plan.length, state.cursor]).toEqual([50, 50, 60, 50]);
    expect(state.results[0].step_num).toBe(81);

    const read = readBack(parts);
    expect(read(finalAnswerPrompt(state, 'q'))).toBe(finalAnswerPrompt(whole, 'q'));
    expect(read(completedListing(state.results, state.earlier))).toBe(completedListing(whole.results));
    // The step prompt counts every planned step and shows the latest observations.
    const at = { attempt: 1, lastObservation: '', query: 'q', executionInstructions: '' };
    expect(stepActionText(state, state.plan[state.cursor], at)).toBe(stepActionText(whole, whole.plan[whole.cursor], at));
    expect(stepsRun(state)).toBe(130);
  });

  it('counts moved steps in the statistics and the step budget, meets dependencies on them, and refuses a fork', () => {
    const whole = ranState(80, 90);
    const state = ranState(80, 90);
    foldEarlierSteps(state, 50);
    expect(planAndExecuteMetadata(state).summary).toEqual(planAndExecuteMetadata(whole).summary);
    expect(planAndExecuteMetadata(state).execution).toMatchObject({ earlier_steps: 30 });
    // A step depending on a moved one (and on a carried one) is ready; the budget counts moved steps.
    state.plan[state.cursor + 1].depends_on = [2, 79];
    expect(readyBatch(state, state.cursor, { max_parallel_steps: 4, max_steps: 1000 }).map((s) => s.step_num)).toEqual([81, 82]);
    expect(readyBatch(state, state.cursor, { max_parallel_steps: 4, max_steps: 81 }).map((s) => s.step_num)).toEqual([81]);
    expect(planAndExecuteForkPoint(state, [], 3).refused).toBe('its first 30 plan steps are no longer carried (a long run keeps its latest ones across continue-as-new): it cannot be forked');
  });

  it('moves nothing while the run has no more executed steps than it keeps', () => {
    const state = ranState(50, 60);
    expect(foldEarlierSteps(state, 50)).toBeUndefined();
    expect(state.earlier).toBeUndefined();
    expect(state.results).toHaveLength(50);
  });

  it('keeps a 5,000-step state small', () => {
    const state = ranState(5_000, 5_010);
    const before = JSON.stringify(state).length;
    foldEarlierSteps(state, 50);
    const after = JSON.stringify(state).length;
    expect(before).toBeGreaterThan(4_000_000);
    expect(after).toBeLessThan(100_000);
  });
});

describe('step_by_step: earlier steps and results no longer carried', () => {
  const views = (done: number, pending: number) => [
    ...Array.from({ length: done }, (_, i) => ({ stepNo: i + 1, status: i % 7 === 6 ? 'skipped' : 'completed' })),
    ...Array.from({ length: pending }, (_, i) => ({ stepNo: done + i + 1, status: 'pending' })),
  ];
  type State = { views: Array<{ stepNo: number; status: string }>; variables: Variable[]; earlier?: EarlierStepByStep };
  const variables = (n: number) => [{ name: 'query', value: 'the question' }, ...Array.from({ length: n }, (_, i) => ({ name: `total${i + 1}`, value: `${i + 1} `.padEnd(2_000, 'x') }))];

  it('keeps the question, the latest results and the steps from the latest executed ones on; counts the rest', () => {
    const state: State = { views: views(80, 5), variables: variables(75) };
    expect(foldStepByStep(state, 50)).toBe(true);
    expect(state.earlier).toEqual({ views: 30, variables: 25 });
    expect(state.views.map((v) => v.stepNo)).toEqual(Array.from({ length: 55 }, (_, i) => 31 + i));
    expect(state.variables.map((v) => v.name)).toEqual(['query', ...Array.from({ length: 50 }, (_, i) => `total${26 + i}`)]);
    // A second move adds to the counts.
    state.views.push(...views(90, 0).slice(85).map((v) => ({ ...v, status: 'completed' })));
    state.variables.push({ name: 'total76', value: '76' });
    expect(foldStepByStep(state, 50)).toBe(true);
    expect(state.earlier).toEqual({ views: 30 + 5, variables: 26 });
  });

  it('lists the question, a line for the results in memory, then the latest ones; a run that moved none lists all', () => {
    const state: State = { views: views(60, 0), variables: variables(52) };
    const all = variableListing(state.variables);
    expect(carriedVariableListing(state.variables, undefined)).toBe(all);
    foldStepByStep(state, 50);
    const listing = carriedVariableListing(state.variables, state.earlier);
    expect(listing.split('\n')[0]).toBe('- query: the question');
    expect(listing.split('\n')[1]).toBe('- (2 earlier results: in memory, not listed; the latest 50 follow)');
    expect(listing.endsWith(variableListing(state.variables.slice(-1)))).toBe(true);
    expect(listing).not.toContain('- total2:');
  });

  it('moves nothing while steps still to run come first or the run is short, and keeps a 5,000-step state small', () => {
    const waiting: State = { views: [{ stepNo: 1, status: 'pending' }, ...views(60, 0)], variables: variables(10) };
    expect(foldStepByStep(waiting, 50)).toBe(false);
    const long: State = { views: views(5_000, 3), variables: variables(5_000) };
    expect(JSON.stringify(long).length).toBeGreaterThan(10_000_000);
    foldStepByStep(long, 50);
    expect(JSON.stringify(long).length).toBeLessThan(150_000);
  });
});

