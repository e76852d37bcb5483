/**
 * Long runs continue-as-new between steps and carry their state: a 30-step run with a low
 * event budget spans several executions and still returns the right result, and `progress`
 * (which follows the chain) shows every completed step.
 */
import { temporal } from '@temporalio/proto';
import { diffRuns } from '../../client/diff';
import { planExecuteReflect, progressQuery } from '../../workflows';
import { final, plan, runInput, scriptedAgent, useHarness, workflowId } from '../support/harness';
import { calculatorCall, withCalculator } from '../support/script';

jest.setTimeout(180_000);

const harness = useHarness();

const STEPS = 30;

/** Step i adds i+1 to a running total with the calculator: the answer needs every step. */
function countingAgent() {
  const planner: string[] = [];
  const executor: unknown[][] = [];
  for (let i = 0; i < STEPS; i++) {
    planner.push(plan(`add ${i + 1}`, ...(i + 1 < STEPS ? [`add ${i + 2}`] : [])));
    const before = (i * (i + 1)) / 2;
    executor.push([
      calculatorCall(`${before}+${i + 1}`),
      { content: `total ${before + i + 1}` },
    ]);
  }
  planner.push(final(`the total is ${(STEPS * (STEPS + 1)) / 2}`));
  return scriptedAgent({ planner, executor }, withCalculator());
}

describe('continue-as-new', () => {
  it('spans executions past the event budget and keeps every step', async () => {
    const input = runInput(countingAgent(), 'What is 1 + 2 + … + 30?', { max_steps: 40, continue_as_new_after_events: 120 });
    const handle = await harness().client.workflow.start(planExecuteReflect, { taskQueue: harness().taskQueue, workflowId: workflowId('can'), args: [input] });
    const out = await handle.result();
    expect(out.response).toBe('the total is 465');
    expect(out.steps_executed).toBe(STEPS);

    const progress = await handle.query(progressQuery);
    expect(progress.status).toBe('completed');
    expect(progress.continued_as_new).toBeGreaterThanOrEqual(2);
    expect(progress.completed_steps.map((s) => s.result_preview)).toEqual(
      Array.from({ length: STEPS }, (_, i) => `total ${((i + 1) * (i + 2)) / 2}`),
    );

    // Every execution of the chain stayed near the budget, and each step ran exactly once.
    const runs: string[] = [];
    for await (const w of harness().client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBe((progress.continued_as_new ?? 0) + 1);
    let planned = 0;
    for (const runId of runs) {
      const history = await harness().client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const events = history.events ?? [];
      expect(events.length).toBeLessThan(120 + 40);
      planned += events.filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED).length;
    }
    expect(planned).toBe(STEPS);

    // The planner saw all earlier steps after each continue-as-new: its last prompt lists step 30.
    const lastPlanner = harness().recorder.filter((r) => r.position.role === 'planner').at(-1)!;
    expect(lastPlanner.messages[0].content).toContain('total 1\n');
    expect(lastPlanner.messages[0].content).toContain('total 465');
    const docs = await harness().memory.interactions.countDocuments({ memory_id: out.memory_id, origin: 'planner' });
    expect(docs).toBe(STEPS);
    // perflow diff reads the whole chain: every planner call of every execution, all 30 steps.
    const diff = await diffRuns(harness().client, handle.workflowId, handle.workflowId);
    expect(diff.a.plans).toHaveLength(STEPS + 1);
    expect(diff.steps).toHaveLength(STEPS);
    expect(diff.steps.every((s) => s.same)).toBe(true);

    // Continuing is not failing: the root interaction never received an error.
    const root = await harness().memory.interactions.findOne({ _id: out.parent_interaction_id });
    expect(root?.response).toBe('the total is 465');
    expect(root?.error).toBeUndefined();
  });
});
