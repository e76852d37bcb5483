/**
 * The worker's side of the workflows' event sink (workflows/kernel/events.ts): writes a run's
 * own events to its stream before the workflow task's commands are reported, so they precede
 * everything the commands start.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { RunEventSinks } from '../workflows/kernel/events';
import type { RunEventLog } from '../stores/run-events';
import type { RunEventBody } from '../core/run-events';

/** Attempts of a sink write before it is given up (logged): the workflow task waits for them. */
const ATTEMPTS_MS = [0, 250, 1_000];

export function runEventSinks(log: RunEventLog, warn: (message: string, attrs: Record<string, unknown>) => void): InjectedSinks<RunEventSinks> {
  /**
   * The worker calls an activation's sink calls at once: each run's are queued in the order made,
   * and what queued up meanwhile is written as one batch (one insert for an activation's events).
   */
  const queues = new Map<string, Array<Publish & { written: () => void }>>();
  const drain = async (run: string, queue: Array<Publish & { written: () => void }>) => {
    while (queue.length > 0) {
      const batch = queue.splice(0);
      await publish(run, {
        events: batch.flatMap((p) => p.events),
        keys: batch.flatMap((p) => p.keys),
        ...(batch.find((p) => p.head)?.head ? { head: batch.find((p) => p.head)!.head } : {}),
      });
      batch.forEach((p) => p.written());
    }
    queues.delete(run);
  };
  return {
    runEvents: {
      publish: {
        fn: (_info, run, events, keys, head) =>
          new Promise<void>((written) => {
            let queue = queues.get(run);
            const fresh = !queue;
            if (!queue) queues.set(run, (queue = []));
            queue.push({ events, keys, ...(head ? { head } : {}), written });
            // After this tick, when the activation's other calls have queued too.
            if (fresh) setImmediate(() => void drain(run, queue));
          }),
        callDuringReplay: false,
      },
    },
  };

  /** Writes the events (retrying a failed write a few times); gives up with a warning. An ended run's stream goes to the archive. */
  async function publish(run: string, { events, keys, head }: Publish): Promise<void> {
    const at = new Date().toISOString();
    let error: unknown;
    for (const wait of ATTEMPTS_MS) {
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        await log.publish(run, events.map((e) => ({ ...e, at })), keys, head);
        return;
      } catch (err) {
        error = err;
      }
    }
    warn('run events could not be published', { run, types: events.map((e) => e.type).join(','), error: String(error) });
  }
}

interface Publish {
  events: RunEventBody[];
  keys: string[];
  head?: { memory_id: string; tenant_id?: string };
}

/** A worker that writes no streams (`runEvents: false`) still takes the workflows' calls: a sink not registered is an error logged at every call. */
export function noRunEventSinks(): InjectedSinks<RunEventSinks> {
  return { runEvents: { publish: { fn: () => undefined, callDuringReplay: false } } };
}
