import { temporal } from '@temporalio/proto';
import { clientConfigFromEnv } from '../../../config/env';
import { workflowUrl } from '../../../client/connect';
import { historyJSON, listQuery, parseHistoryJSON, parseResetTarget, resetEventId } from '../../../client/ops';
import { progressChanges } from '../../../client/text-views';
import { parseParams, slug, truncateBytes } from '../../../client/run';
import { databaseFromUri, redact, workerConfigFromEnv } from '../../../config/env';
import type { Progress } from '../../../workflows';

const base: Progress = {
  memory_id: 'm',
  parent_interaction_id: 'p',
  executor_agent_memory_id: 'em',
  executor_agent_parent_interaction_id: 'ep',
  status: 'planning',
  agent: 'a',
  question: 'q',
  plan: [],
  completed_steps: [],
  steps_executed: 0,
  max_steps: 10,
  usage: { input_tokens: 0, output_tokens: 0 },
} as Progress;

describe('client helpers', () => {
  it('parses --param values as JSON when they are JSON', () => {
    expect(parseParams(['max_steps=5', 'name=bob', 'flag=true', 'x=a=b'])).toEqual({ max_steps: 5, name: 'bob', flag: true, x: 'a=b' });
    expect(() => parseParams(['nope'])).toThrow('key=value');
  });

  it('slugs agent names and cuts summaries on UTF-8 byte limits', () => {
    expect(slug('My Agent!  v2')).toBe('my-agent-v2');
    expect(slug('***')).toBe('agent');
    const cut = truncateBytes('é'.repeat(300), 200);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(200);
    expect(cut.endsWith('…')).toBe(true);
    expect(truncateBytes('short', 200)).toBe('short');
  });

  it('reports progress changes once', () => {
    const planned = { ...base, status: 'executing' as const, plan: ['s1'], current_step: { index: 0, step: 's1', executor_workflow_id: 'w/step-1' } };
    expect(progressChanges(undefined, planned)).toEqual(['plan: 1. s1', 'step 1 running: s1 (executor w/step-1)', 'status: executing']);
    expect(progressChanges(planned, planned)).toEqual([]);
    const done = {
      ...planned,
      current_step: undefined,
      completed_steps: [{ index: 0, step: 's1', result_preview: 'r1', result_chars: 0, ok: true, executor_workflow_id: 'w/step-1' }],
      usage: { input_tokens: 3, output_tokens: 4 },
    };
    expect(progressChanges(planned, done)).toEqual(['step 1 done: s1 → r1', 'tokens: in 3 / out 4']);
    // A server that sends no usage: its counts are a lower bound, said as such (and once only the flag changed).
    const unreported = { ...done, usage: { input_tokens: 3, output_tokens: 4, tokens_unknown: true as const } };
    expect(progressChanges(done, unreported)).toEqual(['tokens: in ≥3 / out ≥4 (not all reported)']);
    expect(progressChanges(planned, { ...planned, usage: { input_tokens: 0, output_tokens: 0, tokens_unknown: true as const } })).toEqual(['tokens: unknown']);
    // Steps running at once are each reported when they start.
    const step = (n: number) => ({ index: n - 1, step: `s${n}`, executor_workflow_id: `w/step-${n}` });
    const both = { ...planned, current_steps: [step(1), step(2)] };
    expect(progressChanges(planned, both)).toEqual(['step 2 running: s2 (executor w/step-2)']);
  });

  it('shows a pending decision once, with the commands that answer it', () => {
    const pending = {
      id: 'plan-1',
      kind: 'plan' as const,
      since: '2026-01-01T00:00:00.000Z',
      plan: ['a', 'b'],
      timeout: { at: '2026-01-01T00:10:00.000Z', action: 'reject' as const },
      answer: ['perflow approve w', 'perflow reject w --reason TEXT [--stop]'],
    };
    const waiting = { ...base, status: 'awaiting_approval' as const, pending: [pending] };
    expect(progressChanges(base, waiting)).toEqual([
      'status: awaiting_approval',
      'awaiting approval of the plan (plan-1):',
      '  1. a',
      '  2. b',
      '  (reject at 2026-01-01T00:10:00.000Z if nobody answers)',
      '  answer: perflow approve w',
      '  answer: perflow reject w --reason TEXT [--stop]',
    ]);
    expect(progressChanges(waiting, waiting)).toEqual([]);
  });

  it('builds list queries, UI links and configs', () => {
    const anyType = "(WorkflowType = 'planExecuteReflect' OR WorkflowType = 'stepByStep' OR WorkflowType = 'todoList' OR WorkflowType = 'planAndExecute')";
    expect(listQuery('running')).toBe(`${anyType} AND ExecutionStatus = 'Running'`);
    expect(listQuery()).toBe(anyType);
    const c = clientConfigFromEnv({ PERFLOW_TEMPORAL_UI_URL: 'http://ui:1/' });
    expect(workflowUrl(c, 'w', 'r')).toBe('http://ui:1/namespaces/default/workflows/w/r/history');
    expect(c.taskQueue).toBe('perflow');
  });

  it('reads the worker config from the environment', () => {
    expect(databaseFromUri('mongodb://u:p@h:1/mydb?x=1')).toBe('mydb');
    expect(databaseFromUri('mongodb://h:1/')).toBe('perflow');
    expect(databaseFromUri('mongodb://h:1')).toBe('perflow');
    expect(redact('mongodb://u:secret@h:1/db')).toBe('mongodb://u:***@h:1/db');
    expect(workerConfigFromEnv({})).toMatchObject({ temporalAddress: 'localhost:7233', namespace: 'default', taskQueue: 'perflow', database: 'perflow' });
  });

  it('finds reset points and round-trips history JSON', () => {
    const T = temporal.api.enums.v1.EventType;
    const history = temporal.api.history.v1.History.fromObject({
      events: [
        { eventId: 1, eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, workflowExecutionStartedEventAttributes: { workflowType: { name: 'x' } } },
        { eventId: 4, eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, workflowTaskCompletedEventAttributes: { scheduledEventId: 2 } },
        { eventId: 9, eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, workflowTaskCompletedEventAttributes: { scheduledEventId: 7 } },
      ],
    });
    expect(resetEventId(history, parseResetTarget(undefined))).toBe(9);
    expect(resetEventId(history, parseResetTarget('first-workflow-task'))).toBe(4);
    expect(resetEventId(history, parseResetTarget('12'))).toBe(12);
    expect(parseResetTarget('failed-activity')).toBe('failed-activity');
    expect(() => parseResetTarget('soon')).toThrow('--to');
    const back = parseHistoryJSON(JSON.parse(historyJSON(history, 'wf-1')));
    expect(back.events?.map((e) => Number(e.eventId))).toEqual([1, 4, 9]);
    expect(back.events?.[1]?.workflowTaskCompletedEventAttributes).toBeTruthy();
  });
});
