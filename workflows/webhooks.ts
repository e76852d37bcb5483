/**
 * `deliverWebhook`: a run's end delivered to its webhook, at least once. Started by the run as it
 * ends (kernel/webhook.ts), abandoned by it, so delivery goes on — across worker restarts — after
 * the run closed: `sendWebhook` retried with exponential backoff (5 s doubling to 1 h) for up to
 * 24 hours by default. It completes with how delivery ended: delivered, or given up and why.
 * `perflow a2a` starts it too, once per A2A push notification (`a2a` set: a2a/push-notifier.ts).
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { A2aPushHeaders } from '../activities/webhooks';
import { WEBHOOK_INITIAL_INTERVAL_MS, WEBHOOK_RETRY_FOR_MS } from '../core/webhooks';

export interface DeliverWebhookInput {
  url: string;
  /** The `webhook-id`: the same on every attempt. */
  id: string;
  /** The JSON payload, signed and sent as is. */
  body: string;
  /** How long to retry, in ms. @default 24 hours */
  retry_for_ms?: number;
  /** The first retry's delay, in ms. @default 5 s */
  initial_interval_ms?: number;
  /** An A2A push notification: sent as `application/a2a+json` with the receiver's own credentials, unsigned. */
  a2a?: A2aPushHeaders;
}

/** How a delivery ended: what `perflow status` shows once it is over. */
export interface WebhookDelivery {
  delivered: boolean;
  /** Attempts made (unknown when retrying ran out of time). */
  attempts?: number;
  /** The last HTTP status received. */
  status?: number;
  /** Why it was given up. */
  error?: string;
}

export async function deliverWebhook(input: DeliverWebhookInput): Promise<WebhookDelivery> {
  const { sendWebhook } = proxyActivities<Pick<Activities, 'sendWebhook'>>({
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: input.retry_for_ms ?? WEBHOOK_RETRY_FOR_MS,
    retry: { initialInterval: input.initial_interval_ms ?? WEBHOOK_INITIAL_INTERVAL_MS, backoffCoefficient: 2, maximumInterval: '1 hour' },
  });
  try {
    const sent = await sendWebhook({ url: input.url, id: input.id, body: input.body, ...(input.a2a ? { a2a: input.a2a } : {}) });
    return { delivered: true, attempts: sent.attempt, status: sent.status };
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // The last attempt's failure (a 410, a refusal), or the time running out (its cause then a timeout).
    const last = err.cause instanceof ApplicationFailure ? err.cause : err.cause?.cause instanceof ApplicationFailure ? err.cause.cause : undefined;
    const details = (last?.details?.[0] ?? {}) as { attempt?: number; status?: number };
    const reason = err.cause instanceof ApplicationFailure ? err.cause.message : `gave up after ${input.retry_for_ms ?? WEBHOOK_RETRY_FOR_MS} ms: ${last?.message ?? err.cause?.message ?? err.message}`;
    return { delivered: false, ...(details.attempt !== undefined ? { attempts: details.attempt } : {}), ...(details.status !== undefined ? { status: details.status } : {}), error: reason };
  }
}
