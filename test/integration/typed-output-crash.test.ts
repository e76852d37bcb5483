/**
 * A worker SIGKILLed between typed-output attempts (`output_schema`): the first reply, which
 * does not conform, was recorded; a fresh worker asks the second attempt with what was wrong,
 * and the run ends with the typed answer. Nothing is lost (the run's usage is that of the same
 * run uninterrupted) and no call is made twice (one planning call per plan, one typed-output
 * call per attempt).
 */
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { workflowTypeFor, type RunOutput } from '../../workflows/definitions';
import { final, plan, runInput, scriptedAgent } from '../support/harness';
import { calculatorTurns, withCalculator } from '../support/script';
import { useWorkerProcess } from '../support/spawn-worker';

jest.setTimeout(180_000);

const fixture = useWorkerProcess('typed-output-crash');

const agent = scriptedAgent(
  { planner: [plan('count to one'), final('one')], executor: [calculatorTurns('0+1', '1')] },
  {
    ...withCalculator(),
    // Every call takes 1.5 s: the kill lands while the second attempt is asked.
    llm: { interface: 'scripted', parameters: { latency_ms: 1_500 }, script: { planner: [plan('count to one'), final('one')], executor: [calculatorTurns('0+1', '1')], output: ['not JSON at all', '{"total": 1}'] } },
    output_schema: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'], additionalProperties: false },
  },
);
const QUESTION = 'How many, typed?';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const eventsOf = async (id: string): Promise<HistoryEvent[]> => (await fixture.client.workflow.getHandle(id).fetchHistory()).events ?? [];
/** The scheduled events of an activity type, and how many of them completed. */
function activity(events: HistoryEvent[], type: string): { scheduled: HistoryEvent[]; completed: number } {
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type);
  const ids = new Set(scheduled.map((e) => String(e.eventId)));
  const completed = events.filter((e) => e.activityTaskCompletedEventAttributes && ids.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId))).length;
  return { scheduled, completed };
}

async function start(workflowId: string) {
  const input = runInput(agent, QUESTION);
  return fixture.client.workflow.start<(i: typeof input) => Promise<RunOutput>>(workflowTypeFor('plan_execute_and_reflect'), { taskQueue: fixture.taskQueue, workflowId, args: [input] });
}

it('a worker SIGKILL between typed-output attempts loses nothing and repeats no call', async () => {
  await fixture.restart();
  const control = await (await start(`typed-control-${randomUUID().slice(0, 8)}`)).result();

  const handle = await start(`typed-crash-${randomUUID().slice(0, 8)}`);
  // Once the first attempt's reply is recorded, the worker dies.
  for (let i = 0; ; i++) {
    if (activity(await eventsOf(handle.workflowId), 'typedOutput').completed >= 1) break;
    if (i > 600) throw new Error('the first typed-output attempt never completed');
    await new Promise((r) => setTimeout(r, 50));
  }
  await fixture.restart();
  const out = await handle.result();

  expect(out.output).toEqual({ total: 1 });
  expect(out.response).toBe('{"total":1}');
  const events = await eventsOf(handle.workflowId);
  const typed = activity(events, 'typedOutput');
  expect([typed.scheduled.length, typed.completed]).toEqual([2, 2]);
  // The second attempt was told what the recorded first reply got wrong.
  const second = defaultPayloadConverter.fromPayload<{ previous?: { reply: string; problems: string[] } }>(typed.scheduled[1].activityTaskScheduledEventAttributes!.input!.payloads![0]);
  expect(second.previous?.reply).toBe('not JSON at all');
  expect(activity(events, 'planningModel')).toMatchObject({ completed: 2 });
  expect(activity(events, 'planningModel').scheduled).toHaveLength(2);
  // Nothing lost or counted twice: the usage of the same run that nobody interrupted.
  expect(out.usage).toEqual(control.usage);
  expect(control.output).toEqual({ total: 1 });
});
