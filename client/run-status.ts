/**
 * A run as `perflow status --json` and the console's run view show it: its progress, fingerprint,
 * sub-agent runs and webhook delivery, read together (one implementation for both).
 */
import type { Client } from '@temporalio/client';
import { fingerprintFields, getStatus, runFingerprint } from './ops';
import { subAgentRuns, type SubAgentRun } from './agent-tree';
import { webhookDeliveryOf, type WebhookDeliveryView } from './webhooks';
import type { Progress } from '../workflows/definitions';
import type { Fingerprint } from '../core/fingerprint';

/** What `status --json` answers for a run. */
export type RunStatus = { workflow_id: string } & Progress & ReturnType<typeof fingerprintFields> & { sub_agents?: SubAgentRun[]; webhook?: WebhookDeliveryView };

/** The run's status, with the parts the text view prints separately. */
export async function runStatus(client: Client, id: string): Promise<{ status: RunStatus; progress: Progress; fingerprint?: Fingerprint; subAgents: SubAgentRun[]; webhook?: WebhookDeliveryView }> {
  const [progress, subAgents, fingerprint, webhook] = await Promise.all([getStatus(client, id), subAgentRuns(client, id), runFingerprint(client, id), webhookDeliveryOf(client, id)]);
  const status: RunStatus = { workflow_id: id, ...progress, ...fingerprintFields(fingerprint), ...(subAgents.length > 0 ? { sub_agents: subAgents } : {}), ...(webhook ? { webhook } : {}) };
  return { status, progress, subAgents, ...(fingerprint ? { fingerprint } : {}), ...(webhook ? { webhook } : {}) };
}
