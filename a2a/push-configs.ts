/**
 * A2A push notification configs, kept in MongoDB (collection `a2a_push_configs` of perflow's
 * database) so a restarted `perflow a2a` resumes notifying: each config with its tenant, task,
 * receiver and credentials, and how far it was notified (the last run-event offset sent, the
 * state it announced, whether the task's end was sent). The A2A SDK's `PushNotificationStore`:
 * every read and write is scoped to the caller's tenant.
 */
import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { PushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { PerflowClient } from '../client/connect';
import { PerflowError } from '../client/errors';
import { checkWebhookUrl } from '../client/worker-policy';
import { databaseFromUri } from '../config/env';
import { CLOSED_POLICY } from '../core/worker-policy';
import { scopeOf } from './callers';

/** The collection of perflow's database that holds the configs. */
export const PUSH_CONFIGS_COLLECTION = 'a2a_push_configs';

/** A config id: it names the delivery workflows (`TASK/a2a-push/CONFIG/OFFSET`). */
const CONFIG_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** One stored config and how far it was notified. */
export interface PushConfigRecord {
  _id: string;
  /** The tenant of the caller that registered it (absent: the operator). */
  tenant?: string;
  task_id: string;
  config_id: string;
  url: string;
  token: string;
  authentication?: { scheme: string; credentials: string };
  /** The last run-event offset notified (-1: none yet). */
  offset: number;
  /** The task state last announced (a run's many WORKING updates are announced once in a row). */
  state?: number;
  /** The task's end was notified: nothing more to send. */
  done: boolean;
}

/** Called when a config is stored: its task starts being followed. */
export type OnPushConfig = (record: PushConfigRecord) => void;

/**
 * Refuses (A2A `RequestMalformedError`, one line) a config whose URL is not http(s), whose host
 * the worker policy of this server's environment (PERFLOW_ALLOW_HOSTS) does not allow — none when
 * it declares no policy — or whose id cannot name a delivery.
 */
export function checkPushConfig(config: TaskPushNotificationConfig, perflow: PerflowClient): void {
  try {
    // Undeclared, the policy is the workers' default: no host allowed (a remote caller must not make this server POST anywhere).
    checkWebhookUrl(config.url, { workerPolicy: perflow.config.workerPolicy ?? { policy: CLOSED_POLICY, endpoints: [] } });
  } catch (err) {
    if (err instanceof PerflowError) throw new RequestMalformedError(`push notification config: ${err.message.replace(/^webhook: /, '')}`);
    throw err;
  }
  if (config.id !== '' && !CONFIG_ID.test(config.id)) throw new RequestMalformedError(`push notification config: id "${config.id.slice(0, 40)}" must be 1-128 letters, digits or . _ : -`);
  const auth = config.authentication;
  if (auth && (auth.scheme !== '') !== (auth.credentials !== '')) throw new RequestMalformedError('push notification config: authentication needs both a scheme and credentials');
  if (/[\r\n]/.test(`${config.token}${auth?.scheme ?? ''}${auth?.credentials ?? ''}`)) throw new RequestMalformedError('push notification config: token and credentials must be one line');
}

export class MongoPushConfigStore implements PushNotificationStore {
  constructor(
    private readonly perflow: PerflowClient,
    private readonly onSaved: OnPushConfig,
  ) {}

  /** The collection (MongoDB connected on first use). */
  async collection(): Promise<Collection<PushConfigRecord>> {
    const mongo = await this.perflow.mongo();
    return mongo.db(databaseFromUri(this.perflow.config.mongoUri)).collection<PushConfigRecord>(PUSH_CONFIGS_COLLECTION);
  }

  /** Stores (or replaces the receiver of) a config; an empty id is given one. Checked again here: no path stores an unchecked URL. */
  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    checkPushConfig(config, this.perflow);
    if (config.id === '') config.id = randomUUID();
    config.taskId = taskId;
    const tenant = scopeOf(context).tenant;
    const auth = config.authentication?.scheme ? { authentication: { scheme: config.authentication.scheme, credentials: config.authentication.credentials } } : {};
    const _id = recordId(tenant, taskId, config.id);
    const fields = { ...(tenant !== undefined ? { tenant } : {}), task_id: taskId, config_id: config.id, url: config.url, token: config.token, ...auth };
    const c = await this.collection();
    await c.updateOne({ _id }, { $set: fields, ...(auth.authentication ? {} : { $unset: { authentication: '' } }), $setOnInsert: { offset: -1, done: false } }, { upsert: true });
    const stored = await c.findOne({ _id });
    if (stored) this.onSaved(stored);
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    const c = await this.collection();
    const records = await c.find({ task_id: taskId, ...tenantFilter(scopeOf(context).tenant) }).sort({ config_id: 1 }).toArray();
    return records.map(asConfig);
  }

  async delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    const c = await this.collection();
    await c.deleteMany({ task_id: taskId, ...tenantFilter(scopeOf(context).tenant), ...(configId !== undefined ? { config_id: configId } : {}) });
  }
}

/** One record per tenant, task and config id: another tenant's same ids are another record. */
const recordId = (tenant: string | undefined, taskId: string, configId: string): string => JSON.stringify([tenant ?? null, taskId, configId]);

/** The operator (no tenant) sees every tenant's configs, as it sees every task. */
const tenantFilter = (tenant: string | undefined) => (tenant !== undefined ? { tenant } : {});

function asConfig(r: PushConfigRecord): TaskPushNotificationConfig {
  return { tenant: '', id: r.config_id, taskId: r.task_id, url: r.url, token: r.token, authentication: r.authentication ? { ...r.authentication } : undefined };
}
