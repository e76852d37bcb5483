/**
 * The run's own events in its event stream — started, plan, step started and finished,
 * decisions, finished — published through a workflow sink: the worker writes them to MongoDB
 * before it reports the workflow task's commands, and they add nothing to the history. A sink is
 * not called when history is replayed; a task that runs again publishes again, and the keys
 * (execution and position) keep that from duplicating an event. A step's end may instead go to
 * the planning call the task starts, whose activity writes it with its first text (see
 * {@link RunEvents.stepFinished}).
 */
import { proxySinks, workflowInfo, type Sinks } from '@temporalio/workflow';
import { EVENT_PREVIEW_CHARS, modelCallName, modelRoleOf, type KeyedRunEvents, type RunEventBody } from '../../core/run-events';
import type { CallPosition } from '../../core/llm-types';
import { preview } from '../../core/text';
import { atActivationEnd } from './activation-end';

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

const NONE: KeyedRunEvents = { events: [], keys: [] };
const joined = (a: KeyedRunEvents, b: KeyedRunEvents): KeyedRunEvents => (b.events.length === 0 ? a : a.events.length === 0 ? b : { events: [...a.events, ...b.events], keys: [...a.keys, ...b.keys] });

/** Events keyed by whoever would have written them (a tool call's, handed on and not taken): written once per key. */
export function publishKeyed(run: string, { events, keys }: KeyedRunEvents): void {
  runEvents.publish(run, events, keys);
}

/** The run's events as the kernel emits them. */
export class RunEvents {
  private seq = 0;
  private plan: readonly string[] = [];
  /** Events held for a planning call started in this activation (see {@link stepFinished}). */
  private held: KeyedRunEvents = NONE;
  /** Events a planning call took in this activation: a write of the run's after them writes them again first, so none goes before them. */
  private handed: KeyedRunEvents = NONE;

  constructor(readonly run: string) {}

  emit(event: RunEventBody, head?: { memory_id: string; tenant_id?: string }): void {
    this.write(event, `${workflowInfo().runId}#${this.seq++}`, head);
  }

  /** One event after those held or handed in this activation, in one write. */
  private write(event: RunEventBody, key: string, head?: { memory_id: string; tenant_id?: string }): void {
    const before = joined(this.handed, this.takeHeld());
    this.handed = NONE;
    runEvents.publish(this.run, [...before.events, event], [...before.keys, key], head);
  }

  /**
   * The events held for a planning call, for its activity to write before the call's text (in
   * its first write); the workflow does not write them unless it writes later events in this
   * activation (the keys keep them from being written twice).
   */
  handHeld(): KeyedRunEvents {
    const held = this.takeHeld();
    if (held.events.length > 0 && atActivationEnd(() => (this.handed = NONE))) this.handed = joined(this.handed, held);
    return held;
  }

  /**
   * Events a planning call took and may not have written (its activity failed): held again, so
   * the run's next write or this activation's end writes them (their keys keep a copy the
   * activity did write from being written twice).
   */
  putBack(taken: KeyedRunEvents): void {
    if (taken.events.length > 0) this.hold(taken);
  }

  private takeHeld(): KeyedRunEvents {
    const held = this.held;
    this.held = NONE;
    return held;
  }

  /** Held for a planning call made in this activation; written at the activation's end otherwise (at once without that hook). */
  private hold(more: KeyedRunEvents): void {
    this.held = joined(this.held, more);
    if (!atActivationEnd(() => this.writeHeld())) this.writeHeld();
  }

  private writeHeld(): void {
    const { events, keys } = this.takeHeld();
    if (events.length > 0) runEvents.publish(this.run, events, keys);
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
    this.write({ type: 'model_delta', role: modelRoleOf(position), call, text }, `${workflowInfo().runId}#text:${call}`);
  }

  /**
   * A step's end. Held until the end of the activation: when the run's next planning call starts
   * in it (the step's end is what the planner reflects on), the call's activity writes the event
   * with the first piece of the call's text, one write fewer per step; otherwise the run writes it
   * at the activation's end, as before. Either way it is written before anything the activation
   * starts writes its own events.
   */
  stepFinished(index: number, ok: boolean, result: string): void {
    this.hold({ events: [{ type: 'step_finished', index, ok, result: preview(result, EVENT_PREVIEW_CHARS) }], keys: [`${workflowInfo().runId}#${this.seq++}`] });
  }
}
