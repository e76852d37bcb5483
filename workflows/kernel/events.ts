/**
 * The run's own events in its event stream — started, plan, step started and finished,
 * decisions, finished — published through a workflow sink: the worker writes them to MongoDB
 * before it reports the workflow task's commands, and they add nothing to the history. A sink is
 * not called when history is replayed; a task that runs again publishes again, and the keys
 * (execution and position) keep that from duplicating an event.
 */
import { proxySinks, workflowInfo, type Sinks } from '@temporalio/workflow';
import { EVENT_PREVIEW_CHARS, modelCallName, modelRoleOf, type RunEventBody } from '../../core/run-events';
import type { CallPosition } from '../../core/llm-types';
import { preview } from '../../core/text';

export interface RunEventSinks extends Sinks {
  runEvents: {
    /**
     * Publishes events to a run's stream. `head` opens the stream (the run's first event); `keys`
     * identify each event in every execution of the workflow task that publishes it.
     */
    publish(run: string, events: RunEventBody[], keys: string[], head?: { memory_id: string; tenant_id?: string }): void;
  };
}

const { runEvents } = proxySinks<RunEventSinks>();

/** The run's events as the kernel emits them. */
export class RunEvents {
  private seq = 0;
  private plan: readonly string[] = [];

  constructor(readonly run: string) {}

  emit(event: RunEventBody, head?: { memory_id: string; tenant_id?: string }): void {
    runEvents.publish(this.run, [event], [`${workflowInfo().runId}#${this.seq++}`], head);
  }

  /** The steps still to do, when they are a new plan (not the last one with steps done). */
  planned(steps: readonly string[]): void {
    const known = steps.length <= this.plan.length && steps.every((s, i) => s === this.plan[this.plan.length - steps.length + i]);
    this.plan = [...steps];
    if (!known) this.emit({ type: 'plan', steps: [...steps] });
  }

  /**
   * The end of a planning call's text that its activity left to the workflow (`tail_from`): in
   * the write of the events that follow the call. Keyed by the call, not by position in the
   * sequence, so runs recorded before (which have no tails) number their events as they did.
   */
  modelTextTail(position: CallPosition, text: string): void {
    const call = modelCallName(position);
    runEvents.publish(this.run, [{ type: 'model_delta', role: modelRoleOf(position), call, text }], [`${workflowInfo().runId}#text:${call}`]);
  }

  stepFinished(index: number, ok: boolean, result: string): void {
    this.emit({ type: 'step_finished', index, ok, result: preview(result, EVENT_PREVIEW_CHARS) });
  }
}
