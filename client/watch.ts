/**
 * Following a run's event stream (MongoDB, MONGODB_URI) from any offset until the run ends:
 * `perflow watch`, `run --follow` and the client library's {@link watchRun}.
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import type { RunEvent, RunEventBody } from '../core/run-events';
import type { RunEventLog } from '../stores/run-events';
import { textSealer } from '../codec/encryption';
import type { PerflowClient } from './connect';
import { PerflowError } from './errors';
import { withMemory } from './stores';

export interface WatchOptions {
  /**
   * The first offset to give. Default: the run's first event (0, unless the workflow ID was used
   * again for a later run: then that run's first event).
   */
  from?: number;
  /** How often to look for new events while there are none (default 100 ms). */
  pollMs?: number;
  /** Stops the watch (the iteration ends). */
  signal?: AbortSignal;
  /**
   * An agent tree's stream: the events of the runs its agent tools start (and theirs) follow in
   * it as they are published, each with its `run` and `agent_path`. Each run's events stay in
   * order and gapless (their offsets are their run's). `from` applies to the run watched.
   * @default true
   */
  descendants?: boolean;
}

/** The events cannot be read from here: MongoDB (MONGODB_URI) cannot be reached. */
export class StreamUnavailableError extends PerflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}

/** How often a watch with nothing new asks Temporal whether the run ended without saying so (terminated, timed out). */
const CLOSED_CHECK_MS = 2_000;

/**
 * How long a watch waits, at a run's `run_finished`, for Temporal to close the run: the event is
 * written just before the run's last workflow task completes, and a caller told the run ended
 * (an AG-UI client's next message, a script's next `run --memory-id`) must find it closed.
 */
const CLOSE_WAIT_MS = 5_000;

/** How a closed workflow ended, in the words of a run's `run_finished` event (evals use them too); a tripped run's workflow completed. */
export const END_STATUS: Partial<Record<WorkflowExecutionStatusName, Exclude<Extract<RunEventBody, { type: 'run_finished' }>['status'], 'tripped'>>> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
};

/**
 * A run's events from offset `from` on, each once, in order, as they are published, until the
 * run ends (`run_finished`, the last event, given once Temporal has closed the run: a
 * conversation's next message is accepted then). Re-attaching with `from: K` gives the events from K
 * on. A run that ended without a `run_finished` (terminated, timed out) gets one, so every
 * stream ends.
 *
 * @throws WorkflowNotFoundError when there is no such run; {@link StreamUnavailableError}
 *   (`unavailable`) when MongoDB cannot be reached; a PerflowError (`conflict`) when the run has
 *   no stream (it ran before perflow streamed events)
 */
export async function* watchRun(perflow: PerflowClient, workflowId: string, options: WatchOptions = {}): AsyncGenerator<RunEvent> {
  const encryption = perflow.config.encryption;
  const log = await withMemory(perflow, async (memory) => memory.eventLog(encryption ? textSealer(encryption) : undefined)).catch((err: unknown) => {
    throw err instanceof PerflowError && err.kind === 'unavailable' ? new StreamUnavailableError(err.message, { cause: err.cause }) : err;
  });
  yield* options.descendants === false ? follow(perflow, log, workflowId, options) : followTree(perflow, log, workflowId, options);
}

/**
 * A run's events with its descendants': each agent tool's `tool_call` (published once the
 * sub-agent's run exists) starts following that run, and the streams are merged as they
 * produce — but the call's `tool_result` waits until the sub-agent's stream has ended, so a
 * sub-agent's events always sit between the call that started its run and that call's result
 * (an ended tree, read at once, keeps that order too). The watch ends with the last stream.
 */
async function* followTree(perflow: PerflowClient, log: RunEventLog, workflowId: string, options: WatchOptions): AsyncGenerator<RunEvent> {
  interface Source {
    events: AsyncGenerator<RunEvent>;
    /** A descendant: its run and agent path. */
    run?: string;
    path?: string[];
    /** Its agent tools' calls whose runs are still followed, by call name. */
    open: Map<string, Source>;
    /** A call's result held until that call's run has ended. */
    held?: { event: RunEvent; until: Source };
    parent?: Source;
  }
  const waiting = new Map<Source, Promise<{ source: Source; next: IteratorResult<RunEvent> }>>();
  const pull = (source: Source) => {
    const next = source.events.next().then((n) => ({ source, next: n }));
    next.catch(() => undefined); // raced below; one left pending when the watch ends must not go unhandled
    waiting.set(source, next);
  };
  const shown = (source: Source, event: RunEvent): RunEvent => (source.path ? { ...event, run: source.run, agent_path: source.path } : event);
  let rootAgent = '';
  const followed = new Set<string>();
  // One signal stops every stream followed: the caller's, or the end of this watch.
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  pull({ events: follow(perflow, log, workflowId, { ...options, signal: stop.signal }), open: new Map() });
  try {
    while (waiting.size > 0) {
      const { source, next } = await Promise.race(waiting.values());
      if (next.done) {
        waiting.delete(source);
        // A sub-agent's stream ended: the result its caller holds follows now.
        const parent = source.parent;
        if (parent?.held?.until === source) {
          yield shown(parent, parent.held.event);
          parent.held = undefined;
          pull(parent);
        }
        continue;
      }
      const event = next.value;
      if (event.type === 'tool_result' && source.open.has(event.call)) {
        const until = source.open.get(event.call)!;
        source.open.delete(event.call);
        if (waiting.has(until)) {
          source.held = { event, until };
          waiting.delete(source);
          continue;
        }
      }
      if (source.path === undefined && event.type === 'run_started') rootAgent = event.agent;
      yield shown(source, event);
      // (An announcement published again by a retried attempt is followed once.)
      if (event.type === 'tool_call' && event.sub_run && !followed.has(event.sub_run.workflow_id)) {
        followed.add(event.sub_run.workflow_id);
        const { workflow_id, agent } = event.sub_run;
        const child: Source = { events: follow(perflow, log, workflow_id, { pollMs: options.pollMs, signal: stop.signal }), run: workflow_id, path: [...(source.path ?? [rootAgent]), agent], open: new Map(), parent: source };
        source.open.set(event.call, child);
        pull(child);
      }
      pull(source);
    }
  } finally {
    // A watch left early stops following every stream: their loops see the signal.
    stop.abort();
    for (const source of waiting.keys()) void source.events.return(undefined).catch(() => undefined);
  }
}

async function* follow(perflow: PerflowClient, log: RunEventLog, workflowId: string, options: WatchOptions): AsyncGenerator<RunEvent> {
  const head = await log.head(workflowId);
  let next = options.from ?? head?.start ?? 0;
  let batch: number | undefined;
  let checked = 0;
  const handle = perflow.client.workflow.getHandle(workflowId);
  /** An ended run's events, moved to the archive: yields them; true when they end the run. */
  async function* archived(): AsyncGenerator<RunEvent, boolean> {
    for (const event of await log.readArchived(workflowId, next)) {
      if (event.type === 'run_finished') await closed(perflow, handle);
      yield event;
      next = event.offset + 1;
      if (event.type === 'run_finished') return true;
    }
    return false;
  }
  if (head?.archived && next < head.archived.next && (yield* archived())) return;
  for (;;) {
    if (options.signal?.aborted) return;
    const read = await log.read(workflowId, next, batch);
    batch = read.batch;
    for (const event of read.events) {
      if (event.type === 'run_finished') await closed(perflow, handle);
      yield event;
      next = event.offset + 1;
      if (event.type === 'run_finished') return;
    }
    if (read.events.length > 0) continue;
    if (Date.now() - checked >= CLOSED_CHECK_MS) {
      checked = Date.now();
      const state = await settleEnded(handle, log, workflowId, next, batch);
      if (state === 'over' || (state === 'archived' && (yield* archived()))) return;
      if (state !== 'waiting') continue;
    }
    // Each look is one read by `_id` in the run's live shard: it costs the events of the runs in that shard only.
    await sleep(options.pollMs ?? 100, options.signal);
  }
}

/** Returns once the run has closed (or after {@link CLOSE_WAIT_MS}: a reset run goes on under its ID). */
async function closed(perflow: PerflowClient, handle: ReturnType<PerflowClient['client']['workflow']['getHandle']>): Promise<void> {
  await perflow.client.withDeadline(Date.now() + CLOSE_WAIT_MS, () => handle.result()).catch(() => undefined);
}

/**
 * Whether a run whose stream has nothing new has ended: `over` when the reader is past its end
 * (it re-attached after it), `archived` when the rest was moved to the archive meanwhile — or the
 * run ended without a `run_finished` (terminated, timed out) and one was added (idempotently:
 * watchers may race) and the stream archived — `more` when there is more to read, else `waiting`. A run with no stream at
 * all fails here: unknown, or from before streams.
 */
async function settleEnded(
  handle: ReturnType<PerflowClient['client']['workflow']['getHandle']>,
  log: RunEventLog,
  workflowId: string,
  next: number,
  batch: number | undefined,
): Promise<'over' | 'archived' | 'more' | 'waiting'> {
  const { status } = await handle.describe(); // an unknown workflow ID fails here
  const ended = END_STATUS[status.name];
  if (!ended) return 'waiting';
  // A run's own last event is written before it ends: read again before adding one.
  if ((await log.read(workflowId, next, batch)).events.length > 0) return 'more';
  const head = await log.head(workflowId);
  if (!head) throw new PerflowError('conflict', `run ${workflowId} has no event stream: it ran before perflow published events (use perflow status / history)`);
  if (head.archived) return next < head.archived.next ? 'archived' : 'over';
  if (next > 0 && (await log.read(workflowId, next - 1)).events[0]?.type === 'run_finished') return 'over';
  await log.append(workflowId, [{ type: 'run_finished', status: ended, response: '', at: new Date().toISOString() }], ['ended-without-event']);
  // Its stream has ended: it leaves its live shard, as a run's own last event moves it.
  await log.archiveStream(workflowId);
  return 'archived';
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // The listener goes with the timer: a long watch adds none per poll.
    const abort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal?.removeEventListener('abort', abort), resolve()), ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}
