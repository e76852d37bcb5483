/** What `run` and `fork` print: the started run's IDs, and with --follow / --wait its progress and result. */
import type { Client } from '@temporalio/client';
import { CliError, followRun, workflowUrl, type RunOutput, type StartedRun } from '../client';
import type { CommandContext } from './context';
import { answer, note, out, printJson } from './output';

/** Rejects `--follow` with `--wait` before anything starts. */
export function checkFollowOrWait(o: CommandContext['o']): void {
  if (o.follow && o.wait) throw new CliError('use either --follow or --wait, not both', 2);
}

export async function reportStarted(client: Client, ctx: CommandContext, run: StartedRun): Promise<number> {
  const { o, config } = ctx;
  const started = { workflow_id: run.workflowId, run_id: run.runId, ...run.ids, ui_url: workflowUrl(config, run.workflowId, run.runId) };
  const startedLines = () => Object.entries(started).map(([k, v]) => `${k === 'ui_url' ? 'ui' : k}: ${v}`);
  if (!o.follow && !o.wait) {
    answer(o.json, started, startedLines);
    return 0;
  }
  // With --json the progress of --follow is a log: stderr, so stdout stays one document.
  const log = o.json ? note : out;
  if (o.follow) startedLines().forEach(log);
  const result = o.follow ? await followRun(run.handle, log) : ((await run.handle.result()) as RunOutput);
  if (o.json) {
    // The execution that ended the run: a later one than run_id after continue-as-new.
    const { runId } = await client.workflow.getHandle(run.workflowId).describe();
    printJson({ workflow_id: run.workflowId, run_id: runId, ...result });
  } else {
    if (o.follow) out('result:');
    out(result.response);
  }
  return 0;
}
