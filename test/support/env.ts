/** What integration tests need to reach the servers that global-setup started. */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { MongoClient } from 'mongodb';
import { perflowClient, type PerflowClient } from '../../client/connect';
import { clientConfigFromEnv } from '../../config/env';
import type { EncryptionKeyring } from '../../core/encryption-keyring';

export function serverEnv(): { temporalAddress: string; namespace: string; mongoUri: string } {
  const temporalAddress = process.env.TEMPORAL_ADDRESS;
  const mongoUri = process.env.MONGODB_URI;
  if (!temporalAddress || !mongoUri) throw new Error('integration tests need the servers of test/support/global-setup.ts');
  return { temporalAddress, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', mongoUri };
}

/** A task queue of its own for each test, so tests never steal each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function connectTemporal(dataConverter?: DataConverter): Promise<{ connection: Connection; client: Client }> {
  const { temporalAddress, namespace } = serverEnv();
  const connection = await Connection.connect({ address: temporalAddress });
  return { connection, client: new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) }) };
}

/**
 * The client library's view of a test's servers, as a user's `clientConfigFromEnv` builds it:
 * the given Temporal client, task queue and memory database (and encryption keys). Close it.
 */
export function testPerflow(client: Client, o: { taskQueue: string; database: string; mongoUri?: string; encryption?: EncryptionKeyring }): PerflowClient {
  const mongoUri = `${(o.mongoUri ?? serverEnv().mongoUri).replace(/\/$/, '')}/${o.database}`;
  const config = clientConfigFromEnv({ ...process.env, MONGODB_URI: mongoUri, PERFLOW_TASK_QUEUE: o.taskQueue, PERFLOW_ENCRYPTION_KEYS: undefined });
  return perflowClient(client, { ...config, ...(o.encryption ? { encryption: o.encryption } : {}) });
}

export async function connectMongo(uri = serverEnv().mongoUri): Promise<MongoClient> {
  // Short server selection, so an outage surfaces as a retried activity rather than a long hang.
  return new MongoClient(uri, { serverSelectionTimeoutMS: 2_000 }).connect();
}

/** Sets environment variables and returns a function that restores them. */
export function withEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>): void => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  };
  apply(vars);
  return () => apply(saved);
}
