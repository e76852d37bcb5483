/**
 * Online scoring as a run ends: when its agent has `scoring` and the run's workflow ID falls in
 * the sample (a hash: every replay and worker decides the same), the run starts the
 * `scoreEndedRun` child (workflows/scoring.ts) and abandons it, as it does its webhook's
 * delivery. Runs of agents without `scoring`, runs not sampled and an eval's case runs add no command.
 */
import { log, ParentClosePolicy, patched, startChild, workflowInfo } from '@temporalio/workflow';
import type { ModelSettings } from '../../core/activity-contract';
import type { GuardrailVerdict } from '../../core/guardrail-verdict';
import { sampledForScoring, scoringWorkflowId } from '../../core/scoring';
import type { ScoreRunInput } from '../../activities/scoring';
import type { RunContext } from './context';
import { SearchAttributes } from './definitions';
import { tenantOf } from './dollar-budget';

/** Marks the runs that start their scoring: none recorded before could. */
const ONLINE_SCORING_PATCH = 'online-scoring';

/** How the run ended, as its score reads it. */
export interface ScoredEnd {
  status: 'completed' | 'tripped';
  response: string;
  output?: unknown;
  tripped?: GuardrailVerdict;
}

/** The judges' model: a scripted one carries only its `score` answers. */
function judgesModel(run: RunContext): ModelSettings {
  const llm = run.agent.llm;
  return llm.interface === 'scripted' && llm.script ? { ...llm, script: { score: llm.script.score ?? [] } } : llm;
}

/** Starts the run's scoring when it is sampled; a start that fails is logged, not the run's failure. */
export async function startScoring(run: RunContext, end: ScoredEnd): Promise<void> {
  const scoring = run.agent.scoring;
  const info = workflowInfo();
  // An eval's case runs are scored by the eval; online scores are of the runs people start.
  const evalCase = info.typedSearchAttributes.get(SearchAttributes.eval) !== undefined;
  if (!scoring || evalCase || !sampledForScoring(info.workflowId, scoring.sample) || !patched(ONLINE_SCORING_PATCH)) return;
  const fingerprint = info.memo?.fingerprint;
  const { tenant } = tenantOf(run);
  const input: ScoreRunInput = {
    workflow_id: info.workflowId,
    run_id: info.firstExecutionRunId,
    ids: run.ids,
    agent: run.agent.name,
    ...(typeof fingerprint === 'string' ? { fingerprint } : {}),
    ...(tenant !== undefined ? { tenant } : {}),
    question: run.question,
    checks: scoring.checks,
    model: judgesModel(run),
    ...(run.agent.output_schema && scoring.checks.some((c) => 'output_valid' in c) ? { output_schema: run.agent.output_schema } : {}),
    outcome: {
      status: end.status,
      response: end.response,
      ...(end.output !== undefined ? { output: end.output } : {}),
      ...(end.tripped ? { tripped: end.tripped } : {}),
      usage: run.progress.usage,
      steps: run.progress.steps_executed,
    },
    started_at: run.startedAt,
    ended_at: new Date().toISOString(),
    ...(run.input.llm_task_queue ? { llm_task_queue: run.input.llm_task_queue } : {}),
  };
  try {
    await startChild('scoreEndedRun', { workflowId: scoringWorkflowId(info.workflowId), parentClosePolicy: ParentClosePolicy.ABANDON, args: [input] });
  } catch (err) {
    log.warn('the run\'s scoring did not start', { error: err instanceof Error ? err.message : String(err) });
  }
}
