/** `perflow eval`: run a suite (SUITE), `show`, `list`, `compare` evals, and `from-runs` (writes a suite from recorded runs). */
import { writeFile } from 'node:fs/promises';
import { workflowUrl, type PerflowClient } from '../../client/connect';
import { formatDiff } from '../../client/text-views';
import { PerflowError } from '../../client/errors';
import { compareEvalResults, evalResult, listEvals, loadSuite, startEval, type EvalProgress } from '../../client/eval';
import { parseParams } from '../../client/run';
import type { EvalResult } from '../../core/eval/types';
import { aboutRun, withClient, withStores, type CommandContext, type CommandHandler } from '../context';
import { comparisonLines, evalTableLines, junitXml, progressBar } from '../eval-report';
import { evalFromRuns } from './eval-from-runs';
import { answer, note, out, printJson } from '../output';

export const evalCommand: CommandHandler = async (ctx) => {
  const [sub, ...rest] = ctx.positionals;
  const subCtx = { ...ctx, positionals: rest };
  switch (sub) {
    case undefined:
      throw new PerflowError('invalid', 'eval needs a suite file or a subcommand: perflow eval SUITE | show ID | list | compare A B | from-runs …');
    case 'show':
      return show(subCtx);
    case 'list':
      return list(subCtx);
    case 'compare':
      return compare(subCtx);
    case 'from-runs':
      return evalFromRuns(subCtx);
    default:
      return runSuite(ctx, sub);
  }
};

/** An option's number within [min, max] (integers only with `integer`), else one line (exit 2). */
function numberOption(raw: string | undefined, name: string, fallback: number, min: number, max: number, integer: boolean): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw new PerflowError('invalid', `--${name} expects ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

async function runSuite(ctx: CommandContext, file: string): Promise<number> {
  const { o, config } = ctx;
  const concurrency = numberOption(o.concurrency, 'concurrency', 4, 1, 100, true);
  const minPass = numberOption(o['min-pass'], 'min-pass', 1, 0, 1, false);
  const suite = await loadSuite(file, { ...(o.agent ? { agent: o.agent } : {}), params: parseParams(o.param ?? []), extraToolTypes: config.extraToolTypes });
  for (const warning of suite.warnings) note(`perflow: warning: ${warning}`);
  return withClient(ctx, async (perflow) => {
    const { evalId } = await startEval(perflow, { suite, concurrency });
    aboutRun(ctx, evalId);
    // On stderr, so stdout stays the table (or the one JSON document); a killed CLI finds the eval again with `eval show`.
    note(`eval_id: ${evalId}`);
    note(`ui: ${workflowUrl(config, evalId)}`);
    const result = await waitForEval(perflow, evalId);
    if (o.junit) await writeFile(o.junit, junitXml(result));
    printResult(o.json, result);
    return result.pass_rate >= minPass ? 0 : 1;
  });
}

/** Waits for the eval, showing its progress on stderr: a bar on a terminal, else a line per finished case. */
async function waitForEval(perflow: PerflowClient, evalId: string): Promise<EvalResult> {
  const tty = process.stderr.isTTY === true;
  let shown = -1;
  const onProgress = (p: EvalProgress) => {
    if (p.done === shown) return;
    shown = p.done;
    if (tty) process.stderr.write(`\r${progressBar(p.done, p.total, 30)} (${p.passed} passed, ${p.failed} failed, ${p.running} running)`);
    else if (p.done > 0) note(`${p.done}/${p.total} cases done (${p.passed} passed, ${p.failed} failed)`);
  };
  const result = await evalResult(perflow, evalId, { wait: true, onProgress });
  if (tty && shown >= 0) process.stderr.write('\n');
  if (!result) throw new PerflowError('failed', `eval ${evalId} has no result`);
  return result;
}

function printResult(asJson: boolean | undefined, result: EvalResult): void {
  answer(asJson, result, () => evalTableLines(result));
}

async function show(ctx: CommandContext): Promise<number> {
  const id = ctx.positionals[0];
  if (!id) throw new PerflowError('invalid', 'eval show needs an eval ID: perflow eval show ID');
  aboutRun(ctx, id);
  return withClient(ctx, async (perflow) => {
    printResult(ctx.o.json, await waitForEval(perflow, id));
    return 0;
  });
}

async function list(ctx: CommandContext): Promise<number> {
  const evals = await withStores(ctx, (stores) => listEvals(stores));
  answer(ctx.o.json, evals, () =>
    evals.length === 0
      ? ['no evals yet (perflow eval SUITE)']
      : evals.map((e) => `${e.eval_id}  ${e.status}  suite ${e.suite}  agent ${e.agent}  ${e.passed}/${e.passed + e.failed} passed  ${e.started_at}`),
  );
  return 0;
}

async function compare(ctx: CommandContext): Promise<number> {
  const [a, b] = ctx.positionals;
  if (!a || !b) throw new PerflowError('invalid', 'eval compare needs two eval IDs: perflow eval compare A B');
  return withClient(ctx, async (perflow) => {
    const cmp = await compareEvalResults(perflow, a, b);
    if (ctx.o.json) {
      printJson(cmp);
      return 0;
    }
    for (const line of comparisonLines(cmp)) out(line);
    for (const c of cmp.cases) {
      if (!c.diff) continue;
      out('');
      out(`${c.id} (${c.change}): run diff ${c.a?.workflow_id} → ${c.b?.workflow_id}`);
      out(formatDiff(c.diff));
    }
    return 0;
  });
}
