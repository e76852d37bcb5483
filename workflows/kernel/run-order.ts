/**
 * A second message to a busy conversation (`on_busy`, see client/busy-memory.ts): a run that
 * waits for the earlier runs of its conversation before it starts, and a run that a newer
 * message interrupts, whose partial work the conversation keeps as its answer.
 */
import { isCancellation, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { preview } from '../../core/text';
import { EVENT_PREVIEW_CHARS } from '../../core/run-events';
import { interruptSignal, SearchAttributes, type Progress } from './definitions';
import { runOrderActivities } from './activity-presets';
import type { RunEvents } from './events';

/** The run's progress learns who interrupted it; the cancellation that follows ends it (see `interruptedAnswer`). */
export function acceptInterrupts(progress: Progress): void {
  setHandler(interruptSignal, ({ by }) => {
    progress.interrupted_by ??= by;
  });
}

export const interruptedMessage = (by: string) => `interrupted by a newer message to the conversation (run ${by})`;

/**
 * What an interrupted run leaves in its conversation as its answer: that it was interrupted,
 * and the steps it completed, so the run that interrupted it goes on from there.
 */
export function interruptedAnswer(progress: Progress): string {
  const steps = progress.completed_steps.map((s) => `- ${s.step}: ${preview(s.result_preview, 500)}`);
  return [
    `(Interrupted by a newer message after ${progress.steps_executed} step${progress.steps_executed === 1 ? '' : 's'}.)`,
    ...(steps.length > 0 ? ['Completed so far:', ...steps] : []),
  ].join('\n');
}

function setStatusAttribute(status: string): void {
  if (workflowInfo().typedSearchAttributes.get(SearchAttributes.agent) === undefined) return;
  upsertSearchAttributes([{ key: SearchAttributes.status, value: status }]);
}

/**
 * Holds a queued run until the earlier runs of its conversation (`after`) have ended. Cancelled
 * or interrupted while it waits, it ends here: nothing of it reached memory.
 */
export async function waitForEarlierRuns(after: string[], progress: Progress, events: RunEvents): Promise<void> {
  progress.status = 'queued';
  progress.waiting_for = after;
  setStatusAttribute('queued');
  try {
    // The run's first activity: it writes the run's start as it begins to wait.
    await events.first((opening) => runOrderActivities.waitForRuns({ workflow_ids: after, ...(opening ? { opening } : {}) }));
  } catch (err) {
    progress.status = 'failed';
    progress.error = progress.interrupted_by !== undefined ? interruptedMessage(progress.interrupted_by) : isCancellation(err) ? 'the run was cancelled while queued' : err instanceof Error ? err.message : String(err);
    setStatusAttribute('failed');
    events.emit({ type: 'run_finished', status: isCancellation(err) ? 'cancelled' : 'failed', response: '', error: preview(progress.error, EVENT_PREVIEW_CHARS) });
    throw err;
  }
  progress.status = 'planning';
  delete progress.waiting_for;
  setStatusAttribute('running');
}
