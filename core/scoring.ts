/**
 * Online scoring (an agent file's `scoring`): a sampled fraction of a live agent's ended runs
 * scored by checks of the eval language, judges included, after the run ended; the scores kept
 * with the run's IDs, agent and fingerprint, and summed up as pass rates per check and per agent
 * version. Pure: the sampler runs in workflow code (a replay decides the same), the scoring in an
 * activity (activities/scoring.ts).
 */
import type { CheckResult, EvalCheck } from './eval/types';
import type { Usage } from './llm-types';

/** An agent file's `scoring`: which fraction of runs is scored, and by which checks. */
export interface ScoringConfig {
  /** The fraction of runs scored, 0 to 1 (0.1: about one run in ten). */
  sample: number;
  checks: EvalCheck[];
}

/** The most checks `scoring` takes (each judge is a model call on every sampled run). */
export const MAX_SCORING_CHECKS = 20;

/**
 * Whether the run of `workflowId` is scored at rate `sample`: a hash of the ID (FNV-1a, then
 * mixed so close IDs spread), so every worker and every replay decides the same.
 */
export function sampledForScoring(workflowId: string, sample: number): boolean {
  if (sample <= 0) return false;
  if (sample >= 1) return true;
  let h = 0x811c9dc5;
  for (let i = 0; i < workflowId.length; i++) h = Math.imul(h ^ workflowId.charCodeAt(i), 0x01000193);
  // murmur3's finalizer: every input bit reaches the high bits the fraction reads.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32 < sample;
}

/** The scoring workflow's ID: one per run, beside it. */
export const scoringWorkflowId = (runWorkflowId: string): string => `${runWorkflowId}/score`;

/** One scored run, as MongoDB keeps it (`perflow_scores`, `_id`: the run's workflow ID). */
export interface RunScore {
  workflow_id: string;
  run_id: string;
  memory_id: string;
  agent: string;
  /** The run's fingerprint (its memo `fingerprint`): which version of the agent answered. */
  fingerprint?: string;
  tenant_id?: string;
  /** How the run ended: `completed` or `tripped`. */
  status: string;
  question: string;
  response: string;
  checks: CheckResult[];
  /** The checks as the agent file gave them, in the order of `checks` (what a low score's eval case checks). */
  scored_by: EvalCheck[];
  /** Every check passed. */
  passed: boolean;
  /** The fraction of checks that passed (0 to 1). */
  score: number;
  /** What the judges' calls used (not the run's). */
  usage: Usage;
  ended_at: string;
  scored_at: string;
}

/** Pass rates of one group of scored runs (an agent, or one of its versions). */
export interface ScoreGroup {
  agent: string;
  /** With `--by fingerprint`: the version ('' for runs without one). */
  fingerprint?: string;
  runs: number;
  /** Runs every check passed. */
  passed: number;
  pass_rate: number;
  checks: { check: string; runs: number; passed: number; pass_rate: number }[];
}

const rate = (passed: number, of: number) => (of === 0 ? 0 : Math.round((passed / of) * 1000) / 1000);

/** Pass rates per check of the scored runs, per agent, or per agent and fingerprint (`byFingerprint`). */
export function summarizeScores(scores: readonly RunScore[], byFingerprint = false): ScoreGroup[] {
  const groups = new Map<string, { agent: string; fingerprint?: string; runs: RunScore[] }>();
  for (const s of scores) {
    const key = byFingerprint ? `${s.agent}\u0000${s.fingerprint ?? ''}` : s.agent;
    const g = groups.get(key) ?? { agent: s.agent, ...(byFingerprint ? { fingerprint: s.fingerprint ?? '' } : {}), runs: [] };
    g.runs.push(s);
    groups.set(key, g);
  }
  return [...groups.values()]
    .map(({ runs, ...g }) => {
      const checks = new Map<string, { runs: number; passed: number }>();
      for (const r of runs) {
        for (const c of r.checks) {
          const t = checks.get(c.check) ?? { runs: 0, passed: 0 };
          t.runs++;
          if (c.passed) t.passed++;
          checks.set(c.check, t);
        }
      }
      const passed = runs.filter((r) => r.passed).length;
      return { ...g, runs: runs.length, passed, pass_rate: rate(passed, runs.length), checks: [...checks].map(([check, t]) => ({ check, ...t, pass_rate: rate(t.passed, t.runs) })) };
    })
    .sort((a, b) => a.agent.localeCompare(b.agent) || (a.fingerprint ?? '').localeCompare(b.fingerprint ?? ''));
}
