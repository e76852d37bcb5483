/** `perflow scores`: pass rates of the runs online scoring scored, per check and per agent (or agent version). */
import { parseSinceAgo, scoreSummary } from '../../client/scores';
import { PerflowError } from '../../client/errors';
import type { ScoreGroup } from '../../core/scoring';
import { withStores, type CommandHandler } from '../context';
import { answer } from '../output';

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/** The table: a line per agent (or version), then a line per check. */
export function scoreLines(groups: readonly ScoreGroup[]): string[] {
  return groups.flatMap((g) => [
    `${g.agent}${g.fingerprint !== undefined ? ` ${g.fingerprint || '(no fingerprint)'}` : ''}: ${g.passed}/${g.runs} runs passed every check (${percent(g.pass_rate)})`,
    ...g.checks.map((c) => `  ${percent(c.pass_rate).padStart(6)}  ${c.passed}/${c.runs}  ${c.check}`),
  ]);
}

export const scores: CommandHandler = async (ctx) => {
  const { o } = ctx;
  if (o.by !== undefined && o.by !== 'fingerprint') throw new PerflowError('invalid', `--by must be fingerprint (each version of the agent apart), got "${o.by}"`);
  const since = o.since !== undefined ? parseSinceAgo(o.since) : undefined;
  const filters = { ...(o.agent !== undefined ? { agent: o.agent } : {}), ...(o.tenant !== undefined ? { tenant: o.tenant } : {}), ...(since ? { since } : {}) };
  const groups = await withStores(ctx, (stores) => scoreSummary(stores, { ...filters, byFingerprint: o.by === 'fingerprint' }));
  answer(o.json, groups, () => (groups.length > 0 ? scoreLines(groups) : [`no scored runs${o.agent !== undefined ? ` of agent ${o.agent}` : ''}${since ? ` since ${since.toISOString()}` : ''}`]));
  return 0;
};
