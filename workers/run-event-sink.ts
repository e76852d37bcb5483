/**
 * The worker's side of the workflows' event sink (workflows/kernel/events.ts): writes a run's
 * own events to its stream before the workflow task's commands are reported, so they precede
 * everything the commands start.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { RunEventSinks } from '../workflows/kernel/events';
import type { RunEventLog } from '../memory/run-events';
import type { RunEventBody } from '../core/run-events';

/** Attempts of a sink write before it is given up (logged): the workflow task waits for them. */
const ATTEMPTS_MS = [0, 250, 1_000];

export function runEventSinks(log: RunEventLog, warn: (message: string, attrs: Record<string, unknown>) => void): InjectedSinks<RunEventSinks> {
  // The worker calls an activation's sink calls at once: each run's are written one after the other, in the order made.
  const queues = new Map<string, Promise<void>>();
  const inOrder = (run: string, write: () => Promise<void>): Promise<void> => {
    const done = (queues.get(run) ?? Promise.resolve()).then(write);
    queues.set(run, done);
    return done.finally(() => {
      if (queues.get(run) === done) queues.delete(run);
    });
  };
  return {
    runEvents: {
      publish: {
        fn: (_info, run, events, keys, head) => inOrder(run, () => publish(run, events, keys, head)),
        callDuringReplay: false,
      },
    },
  };

  /** Writes the events (retrying a failed write a few times); gives up with a warning. */
  async function publish(run: string, events: RunEventBody[], keys: string[], head?: { memory_id: string; tenant_id?: string }): Promise<void> {
    const at = new Date().toISOString();
    let error: unknown;
    for (const wait of ATTEMPTS_MS) {
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        if (head) await log.open(run, head);
        const first = await log.append(run, events.map((e) => ({ ...e, at })), keys);
        // A workflow ID used again: its new run's events begin here.
        if (head && first !== undefined && first > 0) await log.markStart(run, first);
        await log.saveHint(run);
        if (events.some((e) => e.type === 'run_finished')) log.forget(run);
        return;
      } catch (err) {
        error = err;
      }
    }
    warn('run events could not be published', { run, types: events.map((e) => e.type).join(','), error: String(error) });
  }
}
