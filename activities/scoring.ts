/**
 * Online scoring's activity: an ended run scored by its agent's `scoring` checks (eval checks,
 * judges included: their calls priced, counted into the run's tenant's day and held to its
 * cap), the score saved in `perflow_scores` with the run's IDs, agent and fingerprint.
 */
import type { ModelSettings } from '../core/activity-contract';
import { scoreCase, tripReason } from '../core/eval/checks';
import type { CaseObservation, EvalCheck } from '../core/eval/types';
import type { GuardrailVerdict } from '../core/guardrail-verdict';
import { addUsage, ZERO_USAGE, type Usage } from '../core/llm-types';
import type { RunIds } from '../core/memory-ids';
import type { RunScore } from '../core/scoring';
import { saveScore } from '../stores/scores';
import type { MemoryStore } from '../stores/store';
import { toolsCalled } from './eval';
import { withHeartbeat } from './heartbeat';
import { askJudge, type JudgeDeps } from './judge-call';

export interface ScoreRunInput {
  workflow_id: string;
  run_id: string;
  ids: RunIds;
  agent: string;
  fingerprint?: string;
  tenant?: string;
  question: string;
  checks: EvalCheck[];
  /** The model of judges without their own `llm` (the agent's). */
  model: ModelSettings;
  output_schema?: Record<string, unknown>;
  outcome: { status: string; response: string; output?: unknown; tripped?: GuardrailVerdict; usage: Usage; steps: number };
  started_at: string;
  ended_at: string;
  /** The run's LLM task queue: its judges' model calls wait under the same fleet-wide rate. */
  llm_task_queue?: string;
}

export type ScoringDeps = JudgeDeps & { memory: MemoryStore };

/** Scores the run and saves its score; returns it. */
export function scoreRun(deps: ScoringDeps, input: ScoreRunInput): Promise<RunScore> {
  return withHeartbeat(() => score(deps, input));
}

async function score(deps: ScoringDeps, input: ScoreRunInput): Promise<RunScore> {
  const { outcome } = input;
  const obs: CaseObservation = {
    status: outcome.status,
    response: outcome.response,
    ...(outcome.output !== undefined ? { output: outcome.output } : {}),
    ...(input.output_schema !== undefined ? { output_schema: input.output_schema } : {}),
    ...(outcome.tripped ? { tripped: outcome.tripped, error: tripReason(outcome.tripped) } : {}),
    tools_called: await toolsCalled(deps.memory, input.ids),
    steps: outcome.steps,
    usage: outcome.usage,
    duration_ms: Math.max(0, Date.parse(input.ended_at) - Date.parse(input.started_at)) || 0,
  };
  let usage = ZERO_USAGE;
  let judged = 0;
  const checks = await scoreCase(input.checks, obs, async (check, o) => {
    const position = { role: 'task' as const, kind: 'score' as const, call: judged++ };
    const verdict = await askJudge(deps, {
      check,
      model: input.model,
      question: input.question,
      response: o.response,
      position,
      ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
      agent: input.agent,
      conversation: input.ids.memory_id,
      who: "the scoring's judge",
    });
    usage = addUsage(usage, verdict.usage);
    return verdict;
  });
  const passed = checks.filter((c) => c.passed).length;
  const result: RunScore = {
    workflow_id: input.workflow_id,
    run_id: input.run_id,
    memory_id: input.ids.memory_id,
    agent: input.agent,
    ...(input.fingerprint !== undefined ? { fingerprint: input.fingerprint } : {}),
    ...(input.tenant !== undefined ? { tenant_id: input.tenant } : {}),
    status: outcome.status,
    question: input.question,
    response: outcome.response,
    checks,
    scored_by: input.checks,
    passed: passed === checks.length,
    score: checks.length === 0 ? 1 : Math.round((passed / checks.length) * 1000) / 1000,
    usage,
    ended_at: input.ended_at,
    scored_at: new Date().toISOString(),
  };
  await saveScore(deps.memory.db, result);
  return result;
}
