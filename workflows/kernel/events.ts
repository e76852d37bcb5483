/**
 * The run's own events in its event stream — started, plan, step started and finished,
 * decisions, finished — published through a workflow sink: the worker writes them to MongoDB
 * before it reports the workflow task's commands, and they add nothing to the history. A sink is
 * not called when history is replayed; a task that runs again publishes again, and the keys
 * (execution and position) keep that from duplicating an event. An activation's events go in
 * one write at its end — or to what it starts, which writes them with its first text: a step's
 * end to the planning call after it (see {@link RunEvents.stepFinished}), the planner's last
 * text, the plan and `step_started` to the step's executor (see {@link RunEvents.startStep}),
 * `run_started` and the stream's head to the run's first activity (see {@link RunEvents.first}).
 */
import { proxySinks, workflowInfo, type Sinks } from '@temporalio/workflow';
import { EVENT_PREVIEW_CHARS, joinedEvents, modelCallName, modelRoleOf, wholeKeys, type KeyedRunEvents, type RunEventBody, type StreamHead, type StreamOpening } from '../../core/run-events';
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
const joined = (a: KeyedRunEvents, b: KeyedRunEvents): KeyedRunEvents => joinedEvents(a, b) ?? NONE;

/** A key of the run's as what it starts gets it: relative to the run (`#…`), which an activity of the run, or a child, knows (see `KeyedRunEvents.key_run`). */
function relativeKey(key: string): string {
  const runId = workflowInfo().runId;
  return key.startsWith(`${runId}#`) ? key.slice(runId.length) : key;
}

/**
 * The run's events that started a step, as its executor child gets them (`step_events`): those the
 * run held before it (the planner's last text, the plan), keys relative to the run (`#…`), and
 * `step_started` as its key and, where it is not the step's text, its label: the child builds it.
 * A plan held last that begins with the step's text goes as `plan`, and the child builds it too:
 * the text is in the child's input, in the parent's history every step, once.
 */
export interface StepEvents {
  before?: KeyedRunEvents;
  /** The plan event after `before`: its key, and its steps after the first, which is the step's text (absent: none). */
  plan?: { key: string; rest?: string[] };
  started_key: string;
  started_label?: string;
}

/** The events a step's executor child was handed, the plan and `step_started` built, keys relative to `parentRunId`. */
export function stepStartEvents(handed: StepEvents, index: number, text: string, parentRunId: string): KeyedRunEvents {
  const plan: RunEventBody[] = handed.plan ? [{ type: 'plan', steps: [text, ...(handed.plan.rest ?? [])] }] : [];
  const started: RunEventBody = { type: 'step_started', index, step: handed.started_label ?? preview(text, EVENT_PREVIEW_CHARS) };
  return {
    events: [...(handed.before?.events ?? []), ...plan, started],
    keys: [...(handed.before?.keys ?? []), ...(handed.plan ? [handed.plan.key] : []), handed.started_key],
    key_run: parentRunId,
  };
}

/** The events held before a step's start as its executor gets them, keys relative to the run: a plan last that begins with the step's text as `plan`. */
function handedBefore(before: KeyedRunEvents, text: string): Pick<StepEvents, 'before' | 'plan'> {
  const last = before.events.at(-1);
  const plan = last?.type === 'plan' && last.steps[0] === text ? last : undefined;
  const events = plan ? before.events.slice(0, -1) : before.events;
  const keys = (plan ? before.keys.slice(0, -1) : before.keys).map(relativeKey);
  return {
    ...(events.length > 0 ? { before: { events, keys } } : {}),
    ...(plan ? { plan: { key: relativeKey(before.keys.at(-1)!), ...(plan.steps.length > 1 ? { rest: plan.steps.slice(1) } : {}) } } : {}),
  };
}

/** Events keyed by whoever would have written them (a tool call's, handed on and not taken): written once per key. */
export function publishKeyed(run: string, { events, keys }: KeyedRunEvents): void {
  runEvents.publish(run, events, keys);
}

/** The run's events as the kernel emits them. */
export class RunEvents {
  private seq = 0;
  private plan: readonly string[] = [];
  /** Events held for what this activation starts (see {@link stepFinished}, {@link startStep}); written at its end otherwise. */
  private held: KeyedRunEvents = NONE;
  /** Events a planning call took in this activation: a write of the run's after them writes them again first, so none goes before them. */
  private handed: KeyedRunEvents = NONE;
  /** Events each running step's executor took (by unit): any write of the run's before the step ends writes them again first. */
  private readonly starting = new Map<number, KeyedRunEvents>();
  /** The run's first event and its stream's head, for its first activity to write (see {@link openLater}); any write of the run's before then writes them first. */
  private opening?: StreamOpening;
  private openingHanded = false;

  constructor(readonly run: string) {}

  emit(event: RunEventBody, head?: { memory_id: string; tenant_id?: string }): void {
    this.write(event, `${workflowInfo().runId}#${this.seq++}`, head);
  }

  /** The run's first event, with its stream's head: written by the first activity the run starts ({@link first}), so the first workflow task writes nothing. */
  openLater(event: RunEventBody, head: StreamHead): void {
    this.opening = { events: [event], keys: [`${workflowInfo().runId}#${this.seq++}`], head };
  }

  /** Runs the run's first activity, handing it the run's first event to write as it starts; should the activity fail, the run writes it. */
  async first<T>(activity: (opening?: StreamOpening) => Promise<T>): Promise<T> {
    const opening = this.openingHanded ? undefined : this.opening;
    if (!opening) return activity();
    this.openingHanded = true;
    try {
      return await activity({ ...opening, keys: opening.keys.map(relativeKey) });
    } catch (err) {
      this.publish(NONE);
      throw err;
    } finally {
      this.opening = undefined;
    }
  }

  /** One event after those held or handed, held to the activation's end (the stream's first, with its head, at once). */
  private write(event: RunEventBody, key: string, head?: { memory_id: string; tenant_id?: string }): void {
    if (!head) return this.hold({ events: [event], keys: [key] });
    const before = joined(this.taken(), this.takeHeld());
    runEvents.publish(this.run, [...before.events, event], [...before.keys, key], head);
  }

  /** What was handed on and may not be written yet (taken: this activation's planning call's, then the running steps'). */
  private taken(): KeyedRunEvents {
    const taken = [...this.starting.values()].reduce(joined, this.handed);
    this.handed = NONE;
    return taken;
  }

  /**
   * The events held for a planning call, for its activity to write before the call's text (in
   * its first write); the workflow does not write them unless it writes later events in this
   * activation (the keys keep them from being written twice).
   */
  handHeld(): KeyedRunEvents {
    const held = this.takeHeld();
    if (held.events.length > 0 && atActivationEnd(() => (this.handed = NONE))) this.handed = joined(this.handed, held);
    // Keys relative to the run (`#…`): the call's activity knows its run.
    return { events: held.events, keys: held.keys.map(relativeKey) };
  }

  /**
   * A step starts: `step_started`, with the events held before it (the planner's last text, the
   * plan), for the step's executor to write before its first text — one write fewer a step. The
   * keys go relative to the run (the child knows it as its parent). Until the step ends, any
   * write of the run's writes them first (their keys keep them written once).
   */
  startStep(index: number, label: string, text: string): StepEvents {
    // Steps still starting (a parallel group): their events first, so whichever executor writes first writes them in order.
    const held = this.takeHeld();
    const before = joined([...this.starting.values()].reduce(joined, NONE), held);
    const key = `${workflowInfo().runId}#${this.seq++}`;
    const step = preview(label, EVENT_PREVIEW_CHARS);
    this.starting.set(index, joined(held, { events: [{ type: 'step_started', index, step }], keys: [key] }));
    // `step_started` goes as its key (and its label, where it is not the step's text): the child builds it.
    return {
      ...handedBefore(before, text),
      started_key: relativeKey(key),
      ...(step !== preview(text, EVENT_PREVIEW_CHARS) ? { started_label: step } : {}),
    };
  }

  /** The step's executor ended: its events are written, unless it failed before it could (then the run writes them, once by their keys). */
  stepEnded(index: number, failed: boolean): void {
    const started = this.starting.get(index);
    this.starting.delete(index);
    if (failed && started) this.hold(started);
  }

  /**
   * Events a planning call took and may not have written (its activity failed): held again, so
   * the run's next write or this activation's end writes them (their keys keep a copy the
   * activity did write from being written twice).
   */
  putBack(taken: KeyedRunEvents): void {
    if (taken.events.length > 0) this.hold(wholeKeys({ ...taken, key_run: workflowInfo().runId }));
  }

  private takeHeld(): KeyedRunEvents {
    const held = this.held;
    this.held = NONE;
    return held;
  }

  /** Held for what this activation starts; written at the activation's end otherwise (at once without that hook). */
  private hold(more: KeyedRunEvents): void {
    this.held = joined(this.held, more);
    if (!atActivationEnd(() => this.writeHeld())) this.writeHeld();
  }

  /** The held events, after what was handed on and may not be written yet (nothing held: nothing written). */
  private writeHeld(): void {
    const held = this.takeHeld();
    if (held.events.length > 0) this.publish(joined(this.taken(), held));
  }

  /** Writes events, after the run's first event (with the stream's head) while no activity has written it. */
  private publish({ events, keys }: KeyedRunEvents): void {
    const opening = this.opening;
    this.opening = undefined;
    if (opening) runEvents.publish(this.run, [...opening.events, ...events], [...opening.keys, ...keys], opening.head);
    else if (events.length > 0) runEvents.publish(this.run, events, keys);
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
