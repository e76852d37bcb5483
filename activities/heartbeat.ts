/**
 * Heartbeats while a long call runs, so a crashed worker is noticed within the heartbeat
 * timeout (not the whole start-to-close timeout) and a cancellation reaches the activity.
 */
import { Context } from '@temporalio/activity';

export const HEARTBEAT_EVERY_MS = 3_000;

/**
 * Runs `work`, heartbeating every HEARTBEAT_EVERY_MS; `beat(details)` heartbeats at once with
 * details a retried attempt reads (`Context.info.heartbeatDetails`), which later heartbeats repeat.
 */
export async function withHeartbeat<T>(work: (beat: (details: unknown) => void) => Promise<T>): Promise<T> {
  let ctx: Context | undefined;
  try {
    ctx = Context.current();
  } catch {
    return work(() => undefined); // called outside an activity (tests of the function itself)
  }
  let details: unknown;
  const beat = (d: unknown) => {
    details = d;
    ctx?.heartbeat(d);
  };
  const timer = setInterval(() => ctx?.heartbeat(details), HEARTBEAT_EVERY_MS);
  try {
    return await work(beat);
  } finally {
    clearInterval(timer);
  }
}
