/**
 * Webhooks on run ends: where a run's end is announced (`RunInput.webhook`), what is sent
 * (`run.ended`, a JSON summary without secrets), and which URLs the worker policy lets a run
 * name (webhook-policy.ts). Pure module, safe in workflow code: the run builds the payload.
 *
 * @module
 */
import type { Usage } from './llm-types';

/** Where a run's end is announced, as the run input carries it. */
export interface WebhookTarget {
  /** An http(s) URL on a host the worker policy allows (PERFLOW_ALLOW_HOSTS). */
  url: string;
  /** How long delivery is retried, in ms. @default {@link WEBHOOK_RETRY_FOR_MS} (24 hours) */
  retry_for_ms?: number;
  /** The first retry's delay, in ms (doubling up to an hour). @default 5000 */
  initial_interval_ms?: number;
}

/** How long a delivery is retried by default: 24 hours. */
export const WEBHOOK_RETRY_FOR_MS = 24 * 60 * 60 * 1000;
/** The first retry's delay by default: 5 s, doubling up to an hour. */
export const WEBHOOK_INITIAL_INTERVAL_MS = 5_000;

/** The variable that holds the operator's signing secret (`whsec_…`) on the worker. */
export const WEBHOOK_SECRET_VARIABLE = 'PERFLOW_WEBHOOK_SECRET';

/** What a run's end sends: one JSON object, the same on every attempt. */
export interface RunEndedPayload {
  type: 'run.ended';
  workflow_id: string;
  /** The run's first execution's run ID (what `startRun` returned), across continue-as-new. */
  run_id: string;
  memory_id: string;
  agent: string;
  status: 'completed' | 'tripped' | 'failed' | 'cancelled';
  /** The run's answer (absent when it failed without one). */
  response?: string;
  /** Why it failed or was cancelled. */
  error?: string;
  steps_executed: number;
  usage: Usage;
  fingerprint?: string;
  /** ISO 8601, workflow time. */
  started_at: string;
  ended_at: string;
}

/** The `webhook-id` of a run's end: the same on every attempt, so receivers can drop repeats. */
export const webhookIdOf = (workflowId: string, runId: string): string => `run-ended_${workflowId}_${runId}`;
