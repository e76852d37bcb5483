/**
 * A run's end announced to its webhook (`RunInput.webhook`): the run starts the `deliverWebhook`
 * child (workflows/webhooks.ts) as it ends and abandons it, so delivery goes on after the run
 * closed. Runs without a webhook add no command: their histories replay unchanged.
 */
import { log, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { webhookIdOf, type RunEndedPayload } from '../../core/webhooks';
import type { RunContext } from './context';

/** The delivery's workflow ID: one per run, beside it. */
export const webhookWorkflowId = (runWorkflowId: string): string => `${runWorkflowId}/webhook`;

/** How the run ended, as the payload says it. */
export type RunEnd = Pick<RunEndedPayload, 'status' | 'response' | 'error'>;

/** Starts the delivery of the run's end when the run names a webhook; a start that fails is logged, not the run's failure. */
export async function announceEnd(run: RunContext, end: RunEnd): Promise<void> {
  const target = run.input.webhook;
  if (!target) return;
  const info = workflowInfo();
  const runId = info.firstExecutionRunId;
  const fingerprint = info.memo?.fingerprint;
  const payload: RunEndedPayload = {
    type: 'run.ended',
    workflow_id: info.workflowId,
    run_id: runId,
    memory_id: run.ids.memory_id,
    agent: run.agent.name,
    ...end,
    steps_executed: run.progress.steps_executed,
    usage: run.progress.usage,
    ...(typeof fingerprint === 'string' ? { fingerprint } : {}),
    started_at: run.startedAt,
    ended_at: new Date().toISOString(),
  };
  try {
    await startChild('deliverWebhook', {
      workflowId: webhookWorkflowId(info.workflowId),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          url: target.url,
          id: webhookIdOf(info.workflowId, runId),
          body: JSON.stringify(payload),
          ...(target.retry_for_ms !== undefined ? { retry_for_ms: target.retry_for_ms } : {}),
          ...(target.initial_interval_ms !== undefined ? { initial_interval_ms: target.initial_interval_ms } : {}),
        },
      ],
    });
  } catch (err) {
    log.warn('the webhook delivery did not start', { error: err instanceof Error ? err.message : String(err) });
  }
}
