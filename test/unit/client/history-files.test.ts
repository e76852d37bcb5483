/**
 * History files as `perflow replay --history` reads them: the proto JSON of the Temporal CLI,
 * the Web UI and `perflow history --out`, the object form of earlier perflow files, and the
 * workflow ID to replay them as.
 */
import { historyJSON, historyWorkflowId, parseHistoryJSON } from '../../../client/ops';
import { temporal } from '@temporalio/proto';

const T = temporal.api.enums.v1.EventType;
const history = temporal.api.history.v1.History.fromObject({
  events: [
    {
      eventId: 1,
      eventTime: { seconds: 1_795_924_361, nanos: 588_238_108 },
      eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
      workflowExecutionStartedEventAttributes: {
        workflowType: { name: 'planExecuteReflect' },
        taskQueue: { name: 'perflow', kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        input: { payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"question":"q"}') }] },
        workflowTaskTimeout: { seconds: 10 },
      },
    },
    { eventId: 2, eventTime: { seconds: 1_795_924_362 }, eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, workflowTaskScheduledEventAttributes: { startToCloseTimeout: { seconds: 10 } } },
  ],
});

/** What a reader needs of a history: event IDs, types, times and the input payload's bytes. */
const essentials = (h: temporal.api.history.v1.IHistory) =>
  h.events!.map((e) => ({
    id: Number(e.eventId),
    type: e.eventType,
    time: `${String(e.eventTime?.seconds)}.${e.eventTime?.nanos ?? 0}`,
    input: e.workflowExecutionStartedEventAttributes?.input?.payloads?.map((p) => Buffer.from(p.data!).toString()),
  }));

describe('history files', () => {
  it('perflow history --out writes the proto JSON the Temporal CLI writes, with the workflow ID beside the events', () => {
    const json = JSON.parse(historyJSON(history, 'wf-1')) as { workflowId: string; events: Record<string, unknown>[] };
    expect(json.workflowId).toBe('wf-1');
    expect(json.events[0]).toMatchObject({ eventId: '1', eventTime: '2026-11-29T03:52:41.588238108Z', eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED' });
    expect(essentials(parseHistoryJSON(json))).toEqual(essentials(history));
  });

  it('reads the Temporal CLI and Web UI form, and the PascalCase event types of older exports', () => {
    const exported = JSON.parse(historyJSON(history)) as { events: Record<string, unknown>[] };
    expect(essentials(parseHistoryJSON(exported))).toEqual(essentials(history));
    const older = { events: exported.events.map((e) => ({ ...e, eventType: String(e.eventType).replace('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', 'WorkflowExecutionStarted').replace('EVENT_TYPE_WORKFLOW_TASK_SCHEDULED', 'WorkflowTaskScheduled') })) };
    expect(essentials(parseHistoryJSON(older))).toEqual(essentials(history));
  });

  it('reads the object form of files written by perflow 0.2 (times as seconds and nanos)', () => {
    const object = temporal.api.history.v1.History.toObject(history as temporal.api.history.v1.History, { longs: String, enums: String, bytes: String });
    expect(essentials(parseHistoryJSON({ workflowId: 'wf-1', ...object }))).toEqual(essentials(history));
  });

  it('rejects JSON without events, and a value the proto JSON reader cannot read, naming it', () => {
    expect(() => parseHistoryJSON({ workflowId: 'x' })).toThrow('expected an object with an array of events');
    expect(() => parseHistoryJSON({ events: [{ eventId: '1', eventTime: 'yesterday', workflowExecutionStartedEventAttributes: {} }] })).toThrow('invalid timestamp: "yesterday"');
  });
});

describe('the workflow ID a history file replays as', () => {
  it('is the one the file records, else --workflow-id', () => {
    expect(historyWorkflowId('h.json', 'wf-1', undefined)).toBe('wf-1');
    expect(historyWorkflowId('h.json', 'wf-1', 'wf-1')).toBe('wf-1');
    expect(historyWorkflowId('h.json', undefined, 'wf-2')).toBe('wf-2');
  });

  it('fails in one line naming --workflow-id when neither has it, or when they differ', () => {
    expect(() => historyWorkflowId('h.json', undefined, undefined)).toThrow(
      'h.json does not record its workflow ID (Temporal CLI and Web UI exports do not): give it with --workflow-id ID',
    );
    expect(() => historyWorkflowId('h.json', 'wf-1', 'wf-2')).toThrow('h.json is the history of workflow ID wf-1, not wf-2: leave out --workflow-id');
  });
});
