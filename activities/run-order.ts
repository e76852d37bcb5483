/**
 * A run queued behind earlier messages to its conversation (`on_busy: enqueue` or `interrupt`)
 * waits here until each of those runs has ended. It long-polls each run's close event, as the
 * client's `result()` does, so it starts as soon as the last one ends; a worker crash only
 * restarts the wait (the heartbeat timeout reschedules it).
 */
import { Context } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import type { StreamOpening } from '../core/run-events';

/** How often the waiting activity heartbeats while a long poll is open (its heartbeat timeout is a multiple). */
const HEARTBEAT_MS = 3_000;

type CloseEvent = temporal.api.history.v1.IHistoryEvent;

/** The run a close event hands over to, when the workflow goes on under the same ID (continue-as-new, retry, cron). */
function nextExecution(ev: CloseEvent): string | undefined {
  return (
    ev.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ??
    ev.workflowExecutionCompletedEventAttributes?.newExecutionRunId ??
    ev.workflowExecutionFailedEventAttributes?.newExecutionRunId ??
    ev.workflowExecutionTimedOutEventAttributes?.newExecutionRunId ??
    undefined
  ) || undefined;
}

const isNotFound = (err: unknown) => (err as { code?: number }).code === 5;

/** Resolves once the run has ended (or does not exist); rejects when the activity is cancelled. */
async function untilClosed(ctx: Context, workflowId: string): Promise<void> {
  const service = ctx.client.workflowService;
  const req: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest = {
    namespace: ctx.info.workflowNamespace,
    execution: { workflowId },
    skipArchival: true,
    waitNewEvent: true,
    historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
  };
  for (;;) {
    let res: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
    try {
      // A long poll: the server answers when the run closes or its poll interval ends (empty).
      res = await Promise.race([service.getWorkflowExecutionHistory(req), ctx.cancelled]);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const [ev] = res.history?.events ?? [];
    if (!ev) {
      req.nextPageToken = res.nextPageToken;
      continue;
    }
    const next = nextExecution(ev);
    if (next === undefined) return;
    req.execution = { workflowId, runId: next };
    req.nextPageToken = undefined;
  }
}

/** Waits until every run of `workflow_ids` has ended, one after the other (`opening`: the waiting run's first event, which the worker writes as it starts). */
export async function waitForRuns(input: { workflow_ids: string[]; opening?: StreamOpening }): Promise<void> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
  try {
    for (const id of input.workflow_ids) await untilClosed(ctx, id);
  } finally {
    clearInterval(beat);
  }
}
