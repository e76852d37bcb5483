/**
 * Delivering a run's end to its webhook (Standard Webhooks): one signed POST per attempt, the
 * same `webhook-id` on each, a fresh `webhook-timestamp`. An A2A push notification (`a2a` set)
 * is POSTed as `application/a2a+json` with the receiver's own credentials instead, unsigned. A 2xx ends delivery; a 410 (the
 * receiver wants no more) and a refusal (no signing secret, a URL the policy does not allow)
 * (or the worker policy's `Policy.Refused`) fail it for good; any other status or a connection error is retried by the activity's
 * retry policy (workflows/webhooks.ts).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WEBHOOK_SECRET_VARIABLE } from '../core/webhooks';
import { checkWebhook, type PolicyDeps } from './policy';
import type { SecretReader } from './tools/mcp';

/** A receiver that does not answer within this is tried again later (Standard Webhooks suggests 15–30 s). */
const REQUEST_TIMEOUT_MS = 30_000;

/** Failure types a delivery ends with for good. */
export const WebhookFailureTypes = {
  /** The receiver answered 410 Gone: it wants no more deliveries. */
  Gone: 'Webhook.Gone',
  /** The worker will not deliver: no signing secret, or a URL its policy does not allow. */
  Refused: 'Webhook.Refused',
} as const;

/** How an A2A push notification authenticates to its receiver (the credentials the client registered). */
export interface A2aPushHeaders {
  /** The `Authorization` header's value (`SCHEME CREDENTIALS`). */
  authorization?: string;
  /** The config's token, sent as `X-A2A-Notification-Token` (as the A2A SDK's sender sends it) when no authorization is given. */
  token?: string;
}

export interface SendWebhookInput {
  url: string;
  /** The `webhook-id`: the same on every attempt. */
  id: string;
  /** The JSON body, exactly as signed and sent. */
  body: string;
  /** An A2A push notification: `application/a2a+json`, the receiver's credentials, no Standard Webhooks signature (no secret needed). */
  a2a?: A2aPushHeaders;
}

/** What a delivered attempt got back. */
export interface SentWebhook {
  status: number;
  /** Which attempt delivered it (1: the first). */
  attempt: number;
}

export interface WebhookDeps extends PolicyDeps {
  /** The worker's environment variables: the signing secret is PERFLOW_WEBHOOK_SECRET. */
  secret?: SecretReader;
}

/** One delivery attempt: signs and POSTs the body; throws (retryable unless 410 or refused) when it is not a 2xx. */
export async function sendWebhook(deps: WebhookDeps, input: SendWebhookInput): Promise<SentWebhook> {
  const attempt = Context.current().info.attempt;
  checkWebhook(deps, input.url);
  const headers = input.a2a ? a2aHeaders(input.a2a) : await signedHeaders(deps, input, attempt);
  let response: Response;
  try {
    response = await fetch(input.url, {
      method: 'POST',
      headers,
      body: input.body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(REQUEST_TIMEOUT_MS), Context.current().cancellationSignal]),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw ApplicationFailure.retryable(`webhook POST failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 'Webhook.Unreachable', { attempt });
  }
  // The body is not needed: read it off so the connection can be reused.
  await response.arrayBuffer().catch(() => undefined);
  if (response.ok) return { status: response.status, attempt };
  if (response.status === 410) throw ApplicationFailure.nonRetryable('webhook receiver answered 410 Gone: no more attempts', WebhookFailureTypes.Gone, { attempt, status: 410 });
  throw ApplicationFailure.retryable(`webhook receiver answered ${response.status}`, 'Webhook.Status', { attempt, status: response.status });
}

/** An A2A push notification's headers: the receiver's credentials, never logged (failures name only the status). */
function a2aHeaders(a2a: A2aPushHeaders): Record<string, string> {
  return {
    'content-type': 'application/a2a+json',
    ...(a2a.authorization ? { authorization: a2a.authorization } : a2a.token ? { 'x-a2a-notification-token': a2a.token } : {}),
  };
}

/** Standard Webhooks headers: the body signed with the worker's secret, a fresh timestamp. */
async function signedHeaders(deps: WebhookDeps, input: SendWebhookInput, attempt: number): Promise<Record<string, string>> {
  const secret = deps.secret?.(WEBHOOK_SECRET_VARIABLE);
  if (!secret) throw ApplicationFailure.nonRetryable(`webhook not sent: this worker has no signing secret; set ${WEBHOOK_SECRET_VARIABLE}=whsec_… (base64)`, WebhookFailureTypes.Refused, { attempt });
  // Loaded on the first delivery: workers whose runs name no webhook never load it.
  const { Webhook } = await import('standardwebhooks');
  let signature: string;
  const timestamp = new Date();
  try {
    signature = new Webhook(secret).sign(input.id, timestamp, input.body);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`webhook not sent: ${WEBHOOK_SECRET_VARIABLE} is not a usable secret (${(err as Error).message}); give whsec_ and base64`, WebhookFailureTypes.Refused, { attempt });
  }
  return {
    'content-type': 'application/json',
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
