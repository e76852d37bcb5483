/**
 * `scoreEndedRun`: an ended run scored by its agent's `scoring` checks. Started by the run as it
 * ends (kernel/scoring.ts) and abandoned by it, so the run's end never waits for its score;
 * the activity is retried across worker restarts, and a judge refused at the tenant's daily cap
 * leaves the run unscored.
 */
import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ScoreRunInput } from '../activities/scoring';
import type { RunScore } from '../core/scoring';

export type { ScoreRunInput };

/** Marks the scorings whose activity runs on the run's LLM task queue; those recorded before ran on their own queue. */
const SCORING_ON_LLM_QUEUE_PATCH = 'scoring-on-llm-queue';

export async function scoreEndedRun(input: ScoreRunInput): Promise<Pick<RunScore, 'passed' | 'score'>> {
  // Judges are model calls: on the LLM task queue they wait under its fleet-wide rate too.
  const queue = input.llm_task_queue && patched(SCORING_ON_LLM_QUEUE_PATCH) ? { taskQueue: input.llm_task_queue } : {};
  const { scoreRun } = proxyActivities<Pick<Activities, 'scoreRun'>>({
    ...queue,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10, nonRetryableErrorTypes: ['Tenant.BudgetReached'] },
  });
  const { passed, score } = await scoreRun(input);
  return { passed, score };
}
