/**
 * How a run's webhook delivery goes (`perflow status`): read from its `deliverWebhook` child —
 * the pending attempt and its last failure while it retries, its result once it is over.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow';
import type { DeliverWebhookInput, WebhookDelivery } from '../workflows/webhooks';

/** Where a run's webhook delivery stands. */
export interface WebhookDeliveryView {
  state: 'pending' | 'retrying' | 'delivered' | 'given_up';
  /** Attempts made so far. */
  attempts?: number;
  /** The last HTTP status the receiver answered. */
  last_status?: number;
  /** The last attempt's failure, or why delivery was given up. */
  last_error?: string;
}

/** The delivery's workflow ID (workflows/kernel/webhook.ts names it so). */
const deliveryId = (runWorkflowId: string) => `${runWorkflowId}/webhook`;

/** The run's webhook delivery; undefined when it has none (no webhook, or the run has not ended). */
export async function webhookDeliveryOf(client: Client, runWorkflowId: string): Promise<WebhookDeliveryView | undefined> {
  const handle = client.workflow.getHandle(deliveryId(runWorkflowId));
  let description;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  const status = description.status.name;
  if (status === 'COMPLETED') {
    const d = (await handle.result()) as WebhookDelivery;
    return { state: d.delivered ? 'delivered' : 'given_up', ...(d.attempts !== undefined ? { attempts: d.attempts } : {}), ...(d.status !== undefined ? { last_status: d.status } : {}), ...(d.error !== undefined ? { last_error: d.error } : {}) };
  }
  if (status !== 'RUNNING') return { state: 'given_up', last_error: `the delivery workflow is ${status.toLowerCase()}` };
  const pending = description.raw.pendingActivities?.[0];
  if (!pending) return { state: 'pending', attempts: 0 };
  const attempt = pending.attempt ?? 1;
  // STARTED: that attempt is under way (it counts); SCHEDULED after a failure: waiting to retry.
  const started = Number(pending.state) === 2; // PENDING_ACTIVITY_STATE_STARTED
  const attempts = started ? attempt : attempt - 1;
  // Failure messages travel encoded (perflow's failure converter): decoded as the client decodes results.
  const failure = (await decodeOptionalFailureToOptionalError(client.options.loadedDataConverter, pending.lastFailure))?.message;
  const answered = failure ? /answered (\d{3})/.exec(failure) : null;
  return { state: failure ? 'retrying' : 'pending', attempts, ...(answered ? { last_status: Number(answered[1]) } : {}), ...(failure ? { last_error: failure } : {}) };
}

/** The delivery as one line of `perflow status`. */
export function webhookLine(d: WebhookDeliveryView): string {
  const attempts = d.attempts !== undefined ? `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : 'attempts unknown';
  const last = d.last_error ?? (d.last_status !== undefined ? `HTTP ${d.last_status}` : undefined);
  switch (d.state) {
    case 'delivered':
      return `webhook: delivered (${attempts}, HTTP ${d.last_status})`;
    case 'given_up':
      return `webhook: given up (${attempts}${last ? `; ${last}` : ''})`;
    default:
      return `webhook: ${d.state === 'retrying' ? 'retrying' : 'sending'} (${attempts}${last ? `; last: ${last}` : ''})`;
  }
}

/**
 * Starts a `deliverWebhook` workflow (an A2A push notification's: a2a/push-notifier.ts) under
 * `workflowId`; false when that ID was used already — running or closed: a delivery started once
 * is never started again, so a caller resuming after a restart may safely re-send.
 */
export async function startWebhookDelivery(client: Client, taskQueue: string, workflowId: string, input: DeliverWebhookInput): Promise<boolean> {
  try {
    await client.workflow.start('deliverWebhook', { workflowId, taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE', args: [input] });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
