/**
 * Heartbeats while a long call runs, so a crashed worker is noticed within the heartbeat
 * timeout (not the whole start-to-close timeout) and a cancellation reaches the activity.
 */
import { Context } from '@temporalio/activity';

export const HEARTBEAT_EVERY_MS = 3_000;

export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  let ctx: Context | undefined;
  try {
    ctx = Context.current();
  } catch {
    return work(); // called outside an activity (tests of the function itself)
  }
  const timer = setInterval(() => ctx?.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
