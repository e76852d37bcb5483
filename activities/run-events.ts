/**
 * What activities publish to their run's event stream: model text as it is written, tool calls
 * and their results, and `retry` when an attempt is a retry (consumers drop what the failed
 * attempt streamed). Publishing never fails a call: a stream write that fails is logged.
 */
import { Context, log } from '@temporalio/activity';
import { handedToolEvents, modelCallName, modelRoleOf, streamOf, toolCallEvent, toolResultEvent, wholeKeys, type HandedToolCall, type KeyedRunEvents, type RunEventBody, type StreamHead, type StreamOpening } from '../core/run-events';
import type { CallPosition } from '../core/llm-types';
import type { RunEventLog } from '../stores/run-events';

/** Deltas are sent in batches at most this often (the first at once: the first token is what people wait for). */
export const DELTA_FLUSH_MS = 100;

/**
 * The stream of the current activity's run, and which attempt this is; undefined outside an
 * activity or without a log. `before`: the run's own events the workflow handed the activity
 * (`events_before`), written first, with the activity's first write.
 */
export function activityStream(log?: RunEventLog, before?: HandedEvents): ActivityStream | undefined {
  if (!log) return undefined;
  let info: Context['info'];
  try {
    info = Context.current().info;
  } catch {
    return undefined;
  }
  const workflowId = info.workflowExecution?.workflowId;
  // Keys relative to a run (`#…`) without saying whose are the activity's run's (a planning call's `events_before`).
  const handed = before && { ...wholeKeys({ ...before, key_run: before.key_run ?? info.workflowExecution?.runId }), holdMs: before.holdMs };
  return workflowId === undefined ? undefined : new ActivityStream(log, streamOf(workflowId), info.attempt, handed);
}

/**
 * The run's own events handed to an activity that opens or ends the run: `opening` (its first
 * event, with the stream's head) is written as the activity starts, beside `work`; `closing` (the
 * events that end it) once `work` is done, and the stream archived. Unlike other events, a failed
 * write fails the attempt (it is retried): a stream must have its start and its end. Keys
 * relative to the run are the activity's run's.
 */
export async function withRunEvents<T>(log: RunEventLog | undefined, { opening, closing }: { opening?: StreamOpening; closing?: KeyedRunEvents }, work: () => Promise<T>): Promise<T> {
  const run = (opening ?? closing) && Context.current().info.workflowExecution;
  if (!log || !run) return work();
  const write = (handed: KeyedRunEvents, head?: StreamHead) => {
    const { events, keys } = wholeKeys({ ...handed, key_run: run.runId });
    const at = new Date().toISOString();
    return log.publish(streamOf(run.workflowId), events.map((e) => ({ ...e, at })), keys, head);
  };
  const [, result] = await Promise.all([opening && write(opening, opening.head), work()]);
  if (closing) await write(closing);
  return result;
}

export class ActivityStream {
  private chain: Promise<void> = Promise.resolve();

  /** The run's events handed to the activity, not written yet: they go first in its next write (their keys: once, whichever attempt or the workflow writes them first). */
  private before?: KeyedRunEvents;
  private beforeTimer?: NodeJS.Timeout;

  constructor(
    private readonly log: RunEventLog,
    readonly run: string,
    readonly attempt: number,
    before?: HandedEvents,
  ) {
    if (!before || before.events.length === 0) return;
    this.before = { events: before.events, keys: before.keys };
    // Waiting for the activity's first write at most `holdMs`: then alone (a model slow to its first token); unbounded, until it writes or hands them on.
    if (before.holdMs <= 0) void this.publish();
    else if (Number.isFinite(before.holdMs)) this.beforeTimer = setTimeout(() => void this.publish(), before.holdMs).unref();
  }

  /** The events handed to the activity go on, unwritten, to what the workflow runs next (which it is told). */
  private dropBefore(): void {
    this.before = undefined;
    clearTimeout(this.beforeTimer);
  }

  /** Queues events for the stream, in order after those queued before; each is stamped now unless it has its own `at`. */
  publish(...events: (RunEventBody & { at?: string })[]): Promise<void> {
    const now = new Date().toISOString();
    const before = this.before;
    this.before = undefined;
    clearTimeout(this.beforeTimer);
    const all: (RunEventBody & { at?: string })[] = [...(before?.events ?? []), ...events];
    const keys = before ? [...before.keys, ...events.map(() => undefined)] : undefined;
    this.chain = this.chain.then(() =>
      this.log.append(this.run, all.map((e) => ({ ...e, at: e.at ?? now })), keys).then(
        () => undefined,
        (err: unknown) => log.warn('a run event could not be published', { run: this.run, error: String(err) }),
      ),
    );
    return this.chain;
  }

  /** Waits for everything queued (and writes the events handed to the activity, when nothing else was written). */
  async close(): Promise<void> {
    if (this.before) await this.publish();
    await this.chain;
  }

  /**
   * A model call's text as it is written: `push` pieces, `end` when the call returned. A retried
   * attempt first says `retry`.
   */
  modelText(position: CallPosition, step: number | undefined): ModelText {
    const call = modelCallName(position);
    const role = modelRoleOf(position);
    const where = step !== undefined ? { step } : {};
    if (this.attempt > 1) void this.publish({ type: 'retry', call, attempt: this.attempt, role, ...where });
    // Each piece stays an event of its own, stamped when it was written; the pieces written
    // meanwhile are sent together.
    let pieces: { text: string; at: string }[] = [];
    let sent = false;
    let published = '';
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      if (pieces.length === 0) return;
      const texts = pieces;
      pieces = [];
      sent = true;
      published += texts.map((p) => p.text).join('');
      void this.publish(...texts.map(({ text, at }) => ({ type: 'model_delta' as const, role, ...where, call, text, at })));
    };
    return {
      push: (text: string) => {
        if (text === '') return;
        pieces.push({ text, at: new Date().toISOString() });
        if (!sent) flush();
        else timer ??= setTimeout(flush, DELTA_FLUSH_MS);
      },
      end: async (answer?: string, handOn = false) => {
        clearTimeout(timer);
        // The last piece, when it is the rest of the answer, is left to the caller (one piece: every
        // piece stays an event); nothing streamed, the answer is that piece.
        // The run's events handed to the call still waiting (nothing written yet): the answer goes
        // with them, none of it left to the caller (one write either way).
        const waiting = this.before !== undefined;
        if (waiting && pieces.length === 0 && published === '' && answer) pieces.push({ text: answer, at: new Date().toISOString() });
        const last = pieces.length === 1 ? pieces[0].text : pieces.length === 0 && published === '' ? answer : undefined;
        const handed = !waiting && answer !== undefined && answer !== '' && last !== undefined && published + last === answer;
        if (!handed) flush();
        // A turn that wrote nothing and asks for tool calls: the events it was handed go on to them, unwritten.
        if (handOn) this.dropBefore();
        await this.close();
        return handed ? published.length : undefined;
      },
    };
  }

  /** A tool call held back (see `toolCall`): published with its result when that comes first. */
  private heldCall?: { event: RunEventBody & { at: string }; timer: NodeJS.Timeout };

  /**
   * A tool call about to run (after `retry` when this attempt is one). With `holdMs`, it waits
   * that long: a call that ends sooner goes out with its result in one write; a slower one is
   * published then, so a watcher sees it running.
   */
  toolCall(step: number, tool: string, call: string, input: unknown, subRun?: { workflow_id: string; agent: string }, holdMs = 0): void {
    if (this.attempt > 1) void this.publish({ type: 'retry', call, attempt: this.attempt, tool, step });
    const event = { ...toolCallEvent(step, tool, call, input, subRun), at: new Date().toISOString() };
    if (holdMs <= 0) return void this.publish(event);
    const timer = setTimeout(() => this.releaseCall(), holdMs);
    this.heldCall = { event, timer };
  }

  /** Publishes the held call (its timer ran out), or it with the result that came first. */
  private releaseCall(...after: RunEventBody[]): void {
    const held = this.heldCall;
    this.heldCall = undefined;
    if (held) clearTimeout(held.timer);
    const events = [...(held ? [held.event] : []), ...after];
    if (events.length > 0) void this.publish(...events);
  }

  /** A tool call's outcome (with its call, when that was held back until now). */
  async toolResult(step: number, tool: string, call: string, ok: boolean, output: string): Promise<void> {
    this.releaseCall(toolResultEvent(step, tool, call, ok, output));
    await this.close();
  }

  /**
   * A tool call's events go on to the step's next model call (`hand_events`): a call still held
   * is not published here. Returns whether it was (a slow call shows while it runs), once written.
   */
  async handOn(): Promise<boolean> {
    const held = this.heldCall;
    this.heldCall = undefined;
    if (held) clearTimeout(held.timer);
    // Unpublished, the events handed to the call go on with its own (the workflow passes them on).
    if (held) this.dropBefore();
    await this.close();
    return held === undefined;
  }
}

/** Run events the workflow handed an activity (`events_before`), and how long they may wait for its first write (`Infinity`: until it writes or hands them on). */
export interface HandedEvents extends KeyedRunEvents {
  holdMs: number;
}

/**
 * The events of tool calls handed on to the current activity (an executor turn), keyed by its
 * workflow execution as the tool calls' workflow keys them (see `handedToolEvents`).
 */
export function handedToolCalls(step: number, calls: readonly HandedToolCall[], holdMs: number): HandedEvents | undefined {
  if (calls.length === 0) return undefined;
  let runId: string | undefined;
  try {
    runId = Context.current().info.workflowExecution?.runId;
  } catch {
    return undefined;
  }
  return runId === undefined ? undefined : { ...handedToolEvents(runId, step, calls), holdMs };
}

/** How long a planning call holds the run's events handed to it for its first piece of text: a step's end shows at most this late. */
export const EVENTS_BEFORE_HOLD_MS = 1_000;

export interface ModelText {
  push(text: string): void;
  /**
   * The call returned: publishes what is left. With the call's `answer`, a last piece that is the
   * answer's end (the whole answer, when nothing was pushed) is not published: returns where it
   * begins, for the caller to publish (undefined: everything was published).
   */
  end(answer?: string, handOn?: boolean): Promise<number | undefined>;
}
