/**
 * The worker's side of the workflows' event sink (workflows/kernel/events.ts): writes a run's
 * own events to its stream before the workflow task's commands are reported, so they precede
 * everything the commands start.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { RunEventSinks } from '../workflows/kernel/events';
import type { RunEventLog } from '../memory/run-events';

/** Attempts of a sink write before it is given up (logged): the workflow task waits for them. */
const ATTEMPTS_MS = [0, 250, 1_000];

export function runEventSinks(log: RunEventLog, warn: (message: string, attrs: Record<string, unknown>) => void): InjectedSinks<RunEventSinks> {
  return {
    runEvents: {
      publish: {
        async fn(_info, run, events, keys, head) {
          const at = new Date().toISOString();
          let error: unknown;
          for (const wait of ATTEMPTS_MS) {
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            try {
              if (head) await log.open(run, head);
              await log.append(
                run,
                events.map((e) => ({ ...e, at })),
                keys,
              );
              await log.saveHint(run);
              if (events.some((e) => e.type === 'run_finished')) log.forget(run);
              return;
            } catch (err) {
              error = err;
            }
          }
          warn('run events could not be published', { run, types: events.map((e) => e.type).join(','), error: String(error) });
        },
        callDuringReplay: false,
      },
    },
  };
}
