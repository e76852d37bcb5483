/**
 * Model text published by an activity: the first piece at once, the next ones batched, and each
 * piece stamped with the time it was written, not the time its batch was sent.
 */
import { ActivityStream, DELTA_FLUSH_MS } from '../../../activities/run-events';
import type { RunEventLog } from '../../../stores/run-events';

type Appended = { run: string; events: { type: string; text?: string; at: string }[] };

/** A log that records what is appended (the stream's storage is tested against FerretDB in run-event-log.test.ts). */
function recordingLog(): { log: RunEventLog; appended: Appended[] } {
  const appended: Appended[] = [];
  const log = { append: async (run: string, events: Appended['events']) => void appended.push({ run, events }) } as unknown as RunEventLog;
  return { log, appended };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('sends the first piece at once, batches the rest, and stamps each piece when it was written', async () => {
  const { log, appended } = recordingLog();
  const text = new ActivityStream(log, 'run-1', 1).modelText({ role: 'planner', call: 0 }, undefined);
  text.push('Hel');
  text.push('lo');
  await sleep(DELTA_FLUSH_MS / 2);
  text.push(' world');
  await text.end();
  expect(appended.map((a) => a.events.map((e) => e.text))).toEqual([['Hel'], ['lo', ' world']]);
  const [lo, world] = appended[1].events.map((e) => Date.parse(e.at));
  expect(world - lo).toBeGreaterThanOrEqual(DELTA_FLUSH_MS / 2 - 5);
  expect(appended.every((a) => a.run === 'run-1' && a.events.every((e) => e.type === 'model_delta'))).toBe(true);
});

it('says retry before the text of a retried attempt', async () => {
  const { log, appended } = recordingLog();
  const text = new ActivityStream(log, 'run-1', 2).modelText({ role: 'executor', step: 0, iteration: 1 }, 0);
  text.push('again');
  await text.end();
  expect(appended.flatMap((a) => a.events.map((e) => e.type))).toEqual(['retry', 'model_delta']);
});
