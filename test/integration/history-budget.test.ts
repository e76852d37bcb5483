/**
 * Regression guards on history size (not timings): what one more step adds to a run's parent
 * history, and an executor child with one tool call, stay within their event and byte budgets.
 * Static prompt material travels by reference, so neither grows with the prompts.
 */
import { temporal } from '@temporalio/proto';
import { useHarness, runInput, scriptedAgent, startAgentRun, plan, final } from '../support/harness';
import { calculatorCall, withCalculator } from '../support/script';

jest.setTimeout(120_000);

const harness = useHarness();

/** A step as a user's planner writes one: 60 characters. */
const stepText = (n: number) => `Count the flights from Beijing to Seattle departing on day ${n}`;

/** A plan-execute-reflect run of `steps` steps, planned one at a time, each one calculator call. */
function agent(steps: number) {
  const planner = Array.from({ length: steps }, (_, i) => plan(stepText(i + 1)));
  planner.push(final('done'));
  const executor = Array.from({ length: steps }, (_, i) => [
    calculatorCall(`${i}+1`),
    { content: `result ${i + 1}` },
  ]);
  return scriptedAgent({ planner, executor }, withCalculator());
}

async function historyOf(id: string) {
  const history = await harness().client.workflow.getHandle(id).fetchHistory();
  return { events: history.events?.length ?? 0, bytes: temporal.api.history.v1.History.encode(history).finish().length };
}

// Measured with prompt material by reference, step memory in the model calls, completed steps by
// count, children told to take step memory (no patch marker), the short build ID, and a step's
// text once in its child's input: 15 events and ~3.9 KB per step in the parent (the scripted
// model's script, in the start event twice, is ~380 B of it), 23 events and ~6.9 KB for the child.
// A worker's identity (`pid@hostname`) is in 11 events a step: a longer hostname adds to both.
it('one more step adds at most 15 events and 4 KB to the parent; an executor child with one tool call stays within 23 events and 8 KB', async () => {
  const runOf = async (steps: number) => {
    const handle = await startAgentRun(harness(), runInput(agent(steps), `budget ${steps}`), 'budget');
    await handle.result();
    return { id: handle.workflowId, parent: await historyOf(handle.workflowId), child: await historyOf(`${handle.workflowId}/step-2`) };
  };
  const three = await runOf(3);
  const six = await runOf(6);
  const perStep = { events: (six.parent.events - three.parent.events) / 3, bytes: (six.parent.bytes - three.parent.bytes) / 3 };
  expect(perStep.events).toBeLessThanOrEqual(15);
  expect(perStep.bytes).toBeLessThanOrEqual(4_096);
  expect(three.child.events).toBeLessThanOrEqual(23);
  expect(three.child.bytes).toBeLessThanOrEqual(8_192);
  const parentEvents = (await harness().client.workflow.getHandle(six.id).fetchHistory()).events!;
  // Every workflow task records the worker's build ID: perflow's is short.
  const buildIds = new Set(parentEvents.map((e) => e.workflowTaskCompletedEventAttributes?.workerVersion?.buildId).filter(Boolean));
  expect([...buildIds]).toEqual([expect.stringMatching(/^perflow\+[0-9a-f]{20}$/)]);
  // The run's start event carries the agent and what differs from the default texts, not the texts.
  const startBytes = temporal.api.history.v1.HistoryEvent.encode(parentEvents[0]).finish();
  expect(startBytes.length).toBeLessThanOrEqual(8_192);
  expect(Buffer.from(startBytes).includes(Buffer.from('thoughtful and analytical planner'))).toBe(false);
  // The planner's calls carry no prompt text: system prompt, templates and parameters travel by
  // reference (stored once per run as its prompt material).
  const planning = parentEvents.map((e) => e.activityTaskScheduledEventAttributes).filter((a) => a?.activityType?.name === 'planningModel');
  expect(planning).toHaveLength(7);
  for (const a of planning) {
    const input = Buffer.from(temporal.api.common.v1.Payloads.encode(a!.input!).finish());
    expect(input.includes(Buffer.from('thoughtful and analytical planner'))).toBe(false);
    expect(input.length).toBeLessThan(1_500);
  }
  // A child's input names its step's text once: the plan that starts with it goes by key.
  const children = parentEvents.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
  expect(children).toHaveLength(6);
  for (const [i, c] of children.entries()) {
    const input = Buffer.from(c.input!.payloads![0].data!).toString();
    expect(input.split(stepText(i + 1)).length - 1).toBe(1);
    expect(JSON.parse(input)).toMatchObject({ step_events: { plan: { key: expect.any(String) } } });
  }
});
