/** `perflow eval from-runs`: writes a suite of recorded runs' questions and answers (see client/eval-from-runs.ts), or of the runs online scoring scored low (client/scores.ts). */
import { writeFile } from 'node:fs/promises';
import { PerflowError } from '../../client/errors';
import { DEFAULT_FROM_RUNS_LIMIT, suiteFromRuns } from '../../client/eval-from-runs';
import { MAX_SUITE_CASES } from '../../core/eval/suite';
import { suiteFromScores } from '../../client/scores';
import { withClient, withStores, type CommandHandler } from '../context';
import { answer, note } from '../output';

const SINCE = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

/** `--since`: an ISO date (midnight UTC) or date-time (without a zone: local time), or a one-line error (exit 2). */
export function parseSince(text: string): Date {
  const m = SINCE.exec(text.trim());
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  // Date.parse rolls 2026-02-30 over to March; a day the month lacks is an error here.
  const realDay = day !== undefined && m !== null && day.getUTCMonth() === Number(m[2]) - 1 && day.getUTCDate() === Number(m[3]);
  const ms = Date.parse(text.trim());
  if (!realDay || !Number.isFinite(ms)) {
    throw new PerflowError('invalid', `--since must be an ISO date or date-time such as 2026-11-24 or 2026-11-24T08:00:00Z, got "${text}"`);
  }
  return new Date(ms);
}

/** `--limit`: an integer from 1 to a suite's most cases, or a one-line error (exit 2). */
export function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_FROM_RUNS_LIMIT;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < 1 || n > MAX_SUITE_CASES) throw new PerflowError('invalid', `--limit must be an integer from 1 to ${MAX_SUITE_CASES}, got "${text}"`);
  return n;
}

/** `--failed-check NAME` / `--score-below X`: take the runs online scoring scored low; undefined without either. */
export function lowScoreOptions(failedCheck: string | undefined, scoreBelow: string | undefined): { failedCheck?: string; scoreBelow?: number } | undefined {
  if (failedCheck === undefined && scoreBelow === undefined) return undefined;
  if (failedCheck !== undefined && failedCheck.trim() === '') throw new PerflowError('invalid', '--failed-check needs a check as perflow scores shows it, e.g. --failed-check \'contains "Paris"\'');
  const below = scoreBelow !== undefined ? Number(scoreBelow) : undefined;
  if (below !== undefined && (scoreBelow!.trim() === '' || !Number.isFinite(below) || below <= 0 || below > 1)) throw new PerflowError('invalid', `--score-below must be a score above 0 and at most 1 (the fraction of checks passed), got "${scoreBelow}"`);
  return { ...(failedCheck !== undefined ? { failedCheck } : {}), ...(below !== undefined ? { scoreBelow: below } : {}) };
}

export const evalFromRuns: CommandHandler = async (ctx) => {
  const { o } = ctx;
  if (!o.out) throw new PerflowError('invalid', 'eval from-runs needs --out FILE (the suite file to write)');
  const file = o.out;
  const since = o.since !== undefined ? parseSince(o.since) : undefined;
  const limit = parseLimit(o.limit);
  const filters = { ...(o.agent !== undefined ? { agent: o.agent } : {}), ...(o.tenant !== undefined ? { tenant: o.tenant } : {}), ...(since ? { since } : {}) };
  const low = lowScoreOptions(o['failed-check'], o['score-below']);
  const suite = low
    ? await withStores(ctx, (stores) => suiteFromScores(stores, { ...filters, ...low, limit }))
    : await withClient(ctx, ({ client }) => suiteFromRuns(client, { ...filters, limit, skipped: (id, reason) => note(`perflow: warning: skipped ${id}: ${reason}`) }));
  if (suite.cases.length === 0) {
    const matching = [o.agent && `agent ${o.agent}`, o.tenant && `tenant ${o.tenant}`, since && `started since ${since.toISOString()}`].filter(Boolean).join(', ');
    const what = low ? `scored run that ${low.failedCheck !== undefined ? `failed ${low.failedCheck}` : `scored below ${low.scoreBelow}`}` : 'completed run';
    throw new PerflowError('failed', `no ${what}${matching ? ` of ${matching}` : ''} to make a suite of; nothing written`);
  }
  try {
    // 'wx' refuses an existing file in the same call that creates it.
    await writeFile(file, `${JSON.stringify(suite, null, 2)}\n`, { flag: o.force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new PerflowError('refused', `${file} exists already; pass --force to overwrite it`, { cause: err });
    throw new PerflowError('failed', `cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
  answer(o.json, { file, cases: suite.cases.length, suite: suite.name }, () => `wrote ${suite.cases.length} case${suite.cases.length === 1 ? '' : 's'} to ${file}`);
  return 0;
};
