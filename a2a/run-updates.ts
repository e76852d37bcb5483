/**
 * A run's event stream as A2A task updates: a WORKING status per plan, step, tool call and
 * decision (worded as `perflow watch` words them; model text is left out), INPUT_REQUIRED when
 * it waits for a person, and at its end the answer's artifact and the final state. Each update
 * carries the event's stream offset (`metadata.perflow.offset`): re-attaching from it gives the
 * updates after it, none lost and none twice.
 */
import { TaskState, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { PerflowClient } from '../client/connect';
import { StepTexts } from '../client/text-views';
import { StreamUnavailableError, watchRun } from '../client/watch';
import { endOf, progressLine } from '../mcp/agent-runs';
import { META, status, statusUpdate, textPart } from './parts';
import { askFor, endedStatus } from './run-tasks';

export type TaskUpdate = { kind: 'statusUpdate'; data: TaskStatusUpdateEvent } | { kind: 'artifactUpdate'; data: TaskArtifactUpdateEvent };

export interface RunUpdatesOptions {
  /** The first stream offset to read. @default 0 */
  from?: number;
  /** Give nothing until the `decision` event that answers this pending decision (a client's answer was just sent). */
  after?: string;
  /** End at the first INPUT_REQUIRED (a turn of the executor ends there; a subscriber reads on). */
  stopAtInput?: boolean;
  signal?: AbortSignal;
}

/** The updates of run `taskId` until it ends (or, with `stopAtInput`, waits for a person). */
export async function* runUpdates(perflow: PerflowClient, taskId: string, contextId: string, o: RunUpdatesOptions = {}): AsyncGenerator<TaskUpdate> {
  const steps = new StepTexts();
  let waitingFor = o.after;
  const update = (state: TaskState, text: string, offset: number): TaskUpdate => ({ kind: 'statusUpdate', data: statusUpdate(taskId, contextId, status(taskId, contextId, state, [textPart(text)]), offset) });
  try {
    for await (const e of watchRun(perflow, taskId, { from: o.from ?? 0, descendants: false, ...(o.signal ? { signal: o.signal } : {}) })) {
      if (waitingFor !== undefined) {
        if (e.type === 'decision' && e.id === waitingFor) waitingFor = undefined;
        continue;
      }
      if (e.type === 'run_finished') {
        yield* ended(perflow, taskId, contextId, e.offset);
        return;
      }
      if (e.type === 'decision_pending') {
        const { type: _t, offset: _o, at: _a, run: _r, agent_path: _p, ...pending } = e;
        yield { kind: 'statusUpdate', data: statusUpdate(taskId, contextId, status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, askFor(pending)), e.offset) };
        if (o.stopAtInput) return;
        continue;
      }
      const line = progressLine(e, steps.of(e));
      if (line !== undefined) yield update(TaskState.TASK_STATE_WORKING, line, e.offset);
    }
  } catch (err) {
    // Without a stream (MongoDB unreachable) the task still ends, without its steps.
    if (!(err instanceof StreamUnavailableError)) throw err;
    if (!o.signal?.aborted) yield* ended(perflow, taskId, contextId, undefined);
  }
}

/** The answer's artifact (a completed run) and the final status. */
async function* ended(perflow: PerflowClient, taskId: string, contextId: string, offset: number | undefined): AsyncGenerator<TaskUpdate> {
  const end = await endOf(perflow, taskId, contextId);
  const { status: final, artifact } = endedStatus(taskId, contextId, end);
  const metadata = offset !== undefined ? { [META]: { offset } } : {};
  if (artifact) yield { kind: 'artifactUpdate', data: { taskId, contextId, artifact, append: false, lastChunk: true, metadata } };
  yield { kind: 'statusUpdate', data: statusUpdate(taskId, contextId, final, offset) };
}

/** The stream offset an update carries, if any. */
export function offsetOf(u: { metadata?: Record<string, unknown> | undefined }): number | undefined {
  const meta = u.metadata?.[META] as { offset?: unknown } | undefined;
  return typeof meta?.offset === 'number' ? meta.offset : undefined;
}
