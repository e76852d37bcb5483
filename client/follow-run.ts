/**
 * Following a run by polling its `progress` query (`followRun`: the demo, `run --follow` when the
 * run has no event stream), printing what changed (text-views.ts writes the lines). `watchRun`
 * (watch.ts) follows the run's event stream instead.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { progressChanges } from './text-views';
import { progressQuery, type Progress, type RunOutput, type RunWorkflow } from '../workflows/definitions';


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the progress query, calling `print` for each change, until the run ends; returns its result. */
export async function followRun(handle: WorkflowHandle<RunWorkflow>, print: (line: string) => void, intervalMs = 500): Promise<RunOutput> {
  let settled = false;
  const result = handle.result().finally(() => {
    settled = true;
  });
  result.catch(() => undefined);
  let last: Progress | undefined;
  const poll = async () => {
    try {
      const p = await handle.query(progressQuery);
      for (const line of progressChanges(last, p)) print(line);
      last = p;
    } catch {
      // no worker has picked up the run yet, or the query timed out: try again
    }
  };
  while (!settled) {
    await poll();
    await Promise.race([sleep(intervalMs), result.catch(() => undefined)]);
  }
  await poll();
  return result;
}
