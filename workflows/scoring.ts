/**
 * `scoreEndedRun`: an ended run scored by its agent's `scoring` checks. Started by the run as it
 * ends (kernel/scoring.ts) and abandoned by it, so the run's end never waits for its score;
 * the activity is retried across worker restarts, and a judge refused at the tenant's daily cap
 * leaves the run unscored.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ScoreRunInput } from '../activities/scoring';
import type { RunScore } from '../core/scoring';

export type { ScoreRunInput };

export async function scoreEndedRun(input: ScoreRunInput): Promise<Pick<RunScore, 'passed' | 'score'>> {
  const { scoreRun } = proxyActivities<Pick<Activities, 'scoreRun'>>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10, nonRetryableErrorTypes: ['Tenant.BudgetReached'] },
  });
  const { passed, score } = await scoreRun(input);
  return { passed, score };
}
