/**
 * A run's Temporal histories and what the benchmark counts in them: events, protobuf bytes,
 * tasks, activity timeouts and retries.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const { EventType } = temporal.api.enums.v1;

/** A run's executions (the continue-as-new chain, in order) and its executor children's histories. */
export interface RunHistories {
  executions: History[];
  children: History[];
}

/** Applies `fn` to every item, at most `limit` at a time (the server stays responsive). */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** The histories of a finished run, from its first execution along its continue-as-new chain (and its children's, unless told not). */
export async function fetchRunHistories(client: Client, workflowId: string, firstRunId?: string, options = { children: true }): Promise<RunHistories> {
  const executions: History[] = [];
  for (let runId = firstRunId; ; ) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    executions.push(history);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    if (!runId) break;
  }
  if (!options.children) return { executions, children: [] };
  const started = executions.flatMap((h) => (h.events ?? []).flatMap((e) => e.childWorkflowExecutionStartedEventAttributes?.workflowExecution ?? []));
  const children = await mapLimit(started, 16, (c) => client.workflow.getHandle(c.workflowId ?? '', c.runId ?? undefined).fetchHistory());
  return { executions, children };
}

/** Every history of several runs, parents and children. */
export const allHistories = (runs: readonly RunHistories[]): History[] => runs.flatMap((r) => [...r.executions, ...r.children]);

/** The histories of many runs, a few at a time. */
export function fetchManyRunHistories(client: Client, runs: readonly { workflowId: string; firstExecutionRunId: string }[]): Promise<RunHistories[]> {
  return mapLimit(runs, 8, (r) => fetchRunHistories(client, r.workflowId, r.firstExecutionRunId));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export const eventCount = (histories: readonly History[]): number => sum(histories.map((h) => h.events?.length ?? 0));

export const historyBytes = (histories: readonly History[]): number => sum(histories.map((h) => temporal.api.history.v1.History.encode(h).finish().length));

/** Workflow and activity tasks the workers ran: one STARTED event each (an activity's retries share its one). */
export function temporalTasks(histories: readonly History[]): number {
  const started = new Set([EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED]);
  return sum(histories.map((h) => (h.events ?? []).filter((e) => started.has(e.eventType ?? 0)).length));
}

/** The run's start event (WorkflowExecutionStarted, with the run's input), protobuf-encoded. */
export const startEventBytes = (history: History): number => temporal.api.history.v1.HistoryEvent.encode(history.events?.[0] ?? {}).finish().length;

/** The bytes of the state a continued execution's input carries (`carried`, as JSON), 0 for a first execution or an encrypted input. */
export function carriedStateBytes(history: History): number {
  const data = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  if (!data) return 0;
  try {
    const carried = (JSON.parse(Buffer.from(data).toString('utf8')) as { carried?: unknown }).carried;
    return carried === undefined ? 0 : Buffer.byteLength(JSON.stringify(carried));
  } catch {
    return 0;
  }
}

/**
 * Activity retries (attempts beyond the first) and activities that timed out: a retried attempt
 * leaves no event of its own, only the attempt number and last failure on the activity's
 * STARTED event; an activity out of attempts ends with ACTIVITY_TASK_TIMED_OUT.
 */
export function activityTrouble(histories: readonly History[]): { timeouts: number; retries: number } {
  let timeouts = 0;
  let retries = 0;
  for (const h of histories) {
    const timedOut = new Set<string>(); // by the activity's scheduled event ID
    for (const e of h.events ?? []) {
      const started = e.activityTaskStartedEventAttributes;
      if (started) retries += Math.max(0, (started.attempt ?? 1) - 1);
      if (started?.lastFailure?.timeoutFailureInfo) timedOut.add(String(started.scheduledEventId));
      if (e.activityTaskTimedOutEventAttributes) timedOut.add(String(e.activityTaskTimedOutEventAttributes.scheduledEventId));
    }
    timeouts += timedOut.size;
  }
  return { timeouts, retries };
}
