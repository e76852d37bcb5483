/**
 * Online scores (an agent file's `scoring`): the scored runs MongoDB keeps, their pass rates per
 * check and per agent version (`perflow scores`, the console's `/api/scores`), and a suite of
 * the runs that scored low (`perflow eval from-runs --failed-check` / `--score-below`).
 */
import type { EvalCase, EvalCheck, EvalSuite } from '../core/eval/types';
import { MAX_SUITE_CASES } from '../core/eval/suite';
import { summarizeScores, type RunScore, type ScoreGroup } from '../core/scoring';
import { listScores } from '../stores/scores';
import { PerflowError } from './errors';
import { caseIdFor } from './eval-from-runs';
import { withMemory, type StoresClient } from './stores';

export interface ScoresOptions {
  agent?: string;
  /** Runs that ended at or after this time. */
  since?: Date;
  tenant?: string;
  /** Per agent and fingerprint (each version of the agent apart), not per agent. */
  byFingerprint?: boolean;
}

const queryOf = (o: ScoresOptions) => ({
  ...(o.agent !== undefined ? { agent: o.agent } : {}),
  ...(o.since ? { since: o.since.toISOString() } : {}),
  ...(o.tenant !== undefined ? { tenant: o.tenant } : {}),
});

/** Pass rates per check of the scored runs matching `o`, per agent (or agent version). */
export function scoreSummary(stores: StoresClient, o: ScoresOptions = {}): Promise<ScoreGroup[]> {
  return withMemory(stores, async (memory) => summarizeScores(await listScores(memory.db, queryOf(o)), o.byFingerprint ?? false));
}

const AGO = /^(\d+)\s*([mhdw])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `--since`: a time ago (`30m`, `24h`, `7d`, `2w`) or an ISO date or date-time; a one-line error otherwise. */
export function parseSinceAgo(text: string, now = Date.now()): Date {
  const ago = AGO.exec(text.trim());
  if (ago) return new Date(now - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text.trim()) : NaN;
  if (!Number.isFinite(ms)) throw new PerflowError('invalid', `--since must be a time ago such as 7d, 24h or 30m, or an ISO date such as 2026-11-24, got "${text}"`);
  return new Date(ms);
}

export interface LowScoreOptions extends Omit<ScoresOptions, 'byFingerprint'> {
  /** Runs that failed this check (its label as `perflow scores` shows it, or a part of it). */
  failedCheck?: string;
  /** Runs whose score (the fraction of checks passed) is below this. */
  scoreBelow?: number;
  limit: number;
  now?: Date;
}

/** Whether a check's label is the one asked for: equal, or (a judge's long criteria) containing it. */
const labelMatches = (label: string, asked: string) => label === asked || label.includes(asked);

/**
 * A suite of the runs that scored low: per run its question and the checks it failed (with
 * `--score-below`: all its scoring checks), so the case fails until the agent answers it well.
 * Newest first, one case per question.
 */
export async function suiteFromScores(stores: StoresClient, o: LowScoreOptions): Promise<EvalSuite> {
  if (o.failedCheck === undefined && o.scoreBelow === undefined) throw new PerflowError('invalid', 'say which runs scored low: --failed-check NAME or --score-below X');
  if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > MAX_SUITE_CASES) throw new RangeError(`limit must be an integer from 1 to ${MAX_SUITE_CASES}, got ${o.limit}`);
  const scores = await withMemory(stores, (memory) => listScores(memory.db, queryOf(o)));
  const low = (s: RunScore): EvalCheck[] | undefined => {
    const failed = s.scored_by.filter((_, i) => s.checks[i] && !s.checks[i].passed && (o.failedCheck === undefined || labelMatches(s.checks[i].check, o.failedCheck)));
    if (o.failedCheck !== undefined && failed.length === 0) return undefined;
    if (o.scoreBelow !== undefined && !(s.score < o.scoreBelow)) return undefined;
    return o.failedCheck !== undefined ? failed : s.scored_by;
  };
  const taken = new Set<string>();
  const questions = new Set<string>();
  const cases: EvalCase[] = [];
  for (const s of scores) {
    const checks = low(s);
    if (!checks || questions.has(s.question)) continue;
    questions.add(s.question);
    cases.push({ id: caseIdFor(s.workflow_id, taken), question: s.question, checks });
    if (cases.length >= o.limit) break;
  }
  const date = (o.now ?? new Date()).toISOString().slice(0, 10);
  return { name: `low scores ${date}`, cases };
}
