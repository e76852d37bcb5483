/** What `run` and `fork` print: the started run's IDs, and with --follow / --wait its events and result. */
import { workflowUrl, type PerflowClient } from '../client/connect';
import { PerflowError } from '../client/errors';
import { followRun } from '../client/follow-run';
import type { StartedRun } from '../client/run';
import { StreamUnavailableError, watchRun } from '../client/watch';
import type { RunOutput } from '../client';
import type { CommandContext } from './context';
import { answer, note, out, printJson } from './output';
import { EventPrinter } from './event-lines';

/** Rejects `--follow` with `--wait` before anything starts. */
export function checkFollowOrWait(o: CommandContext['o']): void {
  if (o.follow && o.wait) throw new PerflowError('invalid', 'use either --follow or --wait, not both');
}

export async function reportStarted(perflow: PerflowClient, ctx: CommandContext, run: StartedRun): Promise<number> {
  const { client } = perflow;
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
  if (o.follow) await followEvents(perflow, ctx, run, log);
  const result = (await run.handle.result()) as RunOutput;
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

/**
 * Shows the run's events live until it ends; where its event stream cannot be read (MongoDB out
 * of reach from here) follows its progress instead.
 */
async function followEvents(perflow: PerflowClient, ctx: CommandContext, run: StartedRun, log: (line: string) => void): Promise<void> {
  const printer = new EventPrinter({ write: ctx.o.json ? (t) => void process.stderr.write(t) : (t) => void process.stdout.write(t), ...terminalColumns(!ctx.o.json) });
  try {
    for await (const event of watchRun(perflow, run.workflowId)) printer.print(event);
  } catch (err) {
    if (!(err instanceof StreamUnavailableError)) throw err;
    note(`perflow: live events unavailable (${err.message}); following the run's progress instead`);
    await followRun(run.handle, log);
  }
}

/** The terminal's width when the output is a terminal (watch then erases a retried attempt's text). */
export function terminalColumns(toStdout: boolean): { columns?: number } {
  const stream = toStdout ? process.stdout : process.stderr;
  return stream.isTTY && stream.columns ? { columns: stream.columns } : {};
}
