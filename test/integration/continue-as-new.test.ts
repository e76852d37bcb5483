/**
 * Long runs continue-as-new between steps and carry their state: a 60-step run with a low
 * event budget spans several executions and still returns the right result; it carries only its
 * latest completed steps (`progress` lists those and counts the others, memory holds them all). A long step stays small too: its turns
 * send earlier tool outputs by reference.
 */
import { temporal } from '@temporalio/proto';
import { diffRuns } from '../../client/diff';
import { planExecuteReflect, progressQuery } from '../../workflows';
import { forkPointQuery } from '../../workflows/definitions';
import { CARRIED_STEPS } from '../../workflows/kernel/lifecycle';
import { final, plan, runInput, scriptedAgent, useHarness, workflowId } from '../support/harness';
import { calculatorCall, withCalculator } from '../support/script';
import { z } from 'zod';
import type { Tool } from '../../activities/tools/tool';

jest.setTimeout(180_000);

const OUTPUT_CHARS = 8_000;
/** A tool whose every answer is 8 KB: a step of many iterations piles them up. */
const bigOutputTool: Tool<{ i: number }> = {
  type: 'BigOutputTool',
  description: 'Answers 8 KB.',
  input: z.object({ i: z.number() }),
  run: async ({ i }) => `output ${i}: `.padEnd(OUTPUT_CHARS, 'x'),
};

const harness = useHarness({ tools: [bigOutputTool as Tool<never>] });

/** Past CARRIED_STEPS (50): the later executions carry only the latest steps. */
const STEPS = 60;

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
  it('spans executions past the event budget, keeps every step in memory and carries only the latest', async () => {
    const input = runInput(countingAgent(), 'What is 1 + 2 + … + 60?', { max_steps: 70, continue_as_new_after_events: 120 });
    const handle = await harness().client.workflow.start(planExecuteReflect, { taskQueue: harness().taskQueue, workflowId: workflowId('can'), args: [input] });
    const out = await handle.result();
    expect(out.response).toBe('the total is 1830');
    expect(out.steps_executed).toBe(STEPS);

    const progress = await handle.query(progressQuery);
    expect(progress.status).toBe('completed');
    expect(progress.continued_as_new).toBeGreaterThanOrEqual(2);
    // The latest steps are listed; the earlier ones are counted (memory holds them all).
    const omitted = progress.completed_steps_omitted ?? 0;
    expect(omitted).toBeGreaterThan(0);
    expect(progress.completed_steps.length).toBeLessThan(CARRIED_STEPS + 10);
    expect(progress.completed_steps.map((s) => [s.index, s.result_preview])).toEqual(
      Array.from({ length: STEPS - omitted }, (_, k) => [omitted + k, `total ${((omitted + k + 1) * (omitted + k + 2)) / 2}`]),
    );
    const fork = await handle.query(forkPointQuery, 3);
    expect(fork.refused).toBe(`its first ${omitted} steps are no longer carried (a long run keeps its latest ones across continue-as-new): it cannot be forked`);

    // Every execution of the chain stayed near the budget, and each step ran exactly once.
    const runs: string[] = [];
    const starts: number[] = [];
    for await (const w of harness().client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) {
      runs.push(w.runId);
      starts.push(w.startTime.getTime());
    }
    expect(runs.length).toBe((progress.continued_as_new ?? 0) + 1);
    let planned = 0;
    for (const runId of runs) {
      const history = await harness().client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const events = history.events ?? [];
      expect(events.length).toBeLessThan(120 + 40);
      planned += events.filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED).length;
    }
    expect(planned).toBe(STEPS);

    // The planner saw all earlier steps after each continue-as-new: its last prompt lists step 60.
    const lastPlanner = harness().recorder.filter((r) => r.position.role === 'planner').at(-1)!;
    expect(lastPlanner.messages[0].content).toContain('total 1\n');
    expect(lastPlanner.messages[0].content).toContain('total 1830');
    const docs = await harness().memory.interactions.countDocuments({ memory_id: out.memory_id, origin: 'planner' });
    expect(docs).toBe(STEPS);
    // perflow diff reads the whole chain: every planner call of every execution, and the steps the run lists.
    const diff = await diffRuns(harness().client, handle.workflowId, handle.workflowId);
    expect(diff.a.plans).toHaveLength(STEPS + 1);
    expect(diff.steps).toHaveLength(STEPS - omitted);
    expect(diff.steps.every((s) => s.same)).toBe(true);

    // Continuing is not failing: the root interaction never received an error.
    const root = await harness().memory.interactions.findOne({ _id: out.parent_interaction_id });
    expect(root?.response).toBe('the total is 1830');
    expect(root?.error).toBeUndefined();
    // Written by the last execution, created when the first one started (the run's place in its conversation).
    starts.sort((a, b) => a - b);
    expect(Math.abs(root!.created.getTime() - starts[0])).toBeLessThan(1_000);
    expect(root!.created.getTime()).toBeLessThan(starts[1]);
  });

  it('keeps a long step with 8 KB tool outputs small: its turns send earlier outputs by reference', async () => {
    // Sent whole, turn k would carry the k outputs before it: 40 iterations would put
    // 40·39/2 outputs (6.2 MB) into the turns' inputs alone, and 120 would pass Temporal's 50 MB
    // history limit near iteration 110 (the benchmark measures the 200 that executor_max_iterations allows).
    // By reference, each output is in the history about once.
    const calls = 39;
    const wholeBytes = ((calls * (calls + 1)) / 2) * OUTPUT_CHARS;
    const turns = [...Array.from({ length: calls }, (_, i) => ({ tool_calls: [{ name: 'BigOutputTool', input: { i } }] })), { content: 'read them all' }];
    const agent = scriptedAgent({ planner: [plan('read every output'), final('done')], executor: [turns] }, { tools: [{ type: 'BigOutputTool' }] });
    const input = runInput(agent, `Read ${calls} outputs.`, { executor_max_iterations: calls + 1 });
    const handle = await harness().client.workflow.start(planExecuteReflect, { taskQueue: harness().taskQueue, workflowId: workflowId('long-step'), args: [input] });
    expect((await handle.result()).response).toBe('done');
    const step = await harness().client.workflow.getHandle(`${handle.workflowId}/step-1`).fetchHistory();
    const bytes = temporal.api.history.v1.History.encode(step).finish().length;
    console.log(`a step of ${calls + 1} iterations with ${OUTPUT_CHARS}-character tool outputs: ${step.events?.length} events, ${(bytes / 1e6).toFixed(2)} MB of history`);
    expect(bytes).toBeLessThan(wholeBytes / 3);
    // The model still read every output: its last turn had them all, whole.
    const last = harness().recorder.filter((r) => r.position.role === 'executor' && r.position.step === 0).at(-1)!;
    const outputs = last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(outputs).toHaveLength(calls);
    expect(outputs.every((o, i) => o === `output ${i}: `.padEnd(OUTPUT_CHARS, 'x'))).toBe(true);
  });
});
