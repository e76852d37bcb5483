/**
 * The client's one MongoDB client (MONGODB_URI): connected on first use, shared by every call of
 * the {@link StoresClient} that holds it (a console answering many requests holds one), closed
 * with it. The stores are perflow's memory, run event streams, evals and tenant spend.
 */
import type { MongoClient } from 'mongodb';
import type { ClientConfig } from '../config/env';
import { databaseFromUri, redact } from '../config/env';
import { firstLine } from '../core/text';
import type { MemoryStore } from '../stores/store';
import { PerflowError } from './errors';

/** What reaches perflow's MongoDB stores: the settings and one MongoDB client. A {@link PerflowClient} is one. */
export interface StoresClient {
  config: ClientConfig;
  /**
   * The MongoDB client of `config.mongoUri`, connected on the first call (within `timeoutMs`,
   * default 5 s; a `PerflowError` of kind `unavailable` when it cannot be), the same one after.
   */
  mongo(timeoutMs?: number): Promise<MongoClient>;
  /** Closes what it holds. */
  close(): Promise<void>;
}

/** Why MongoDB (MONGODB_URI) cannot be used from here, in one line without the URI's secrets. */
export const mongoUnreachable = (uri: string, err: unknown): string => `cannot reach MongoDB at ${redact(uri)} (${firstLine(err)}): start it or set MONGODB_URI`;

/**
 * A lazily connected MongoDB client of `uri`; a failed connect is tried again on the next call.
 * The driver itself loads on the first call too: commands that only talk to Temporal never load it.
 */
export function mongoHandle(uri: string): { mongo(timeoutMs?: number): Promise<MongoClient>; close(): Promise<void> } {
  let connecting: Promise<MongoClient> | undefined;
  return {
    mongo(timeoutMs = 5_000) {
      connecting ??= import('mongodb')
        .then(({ MongoClient }) => new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs }).connect())
        .catch((err: unknown) => {
          connecting = undefined;
          throw new PerflowError('unavailable', mongoUnreachable(uri, err), { cause: err });
        });
      return connecting;
    },
    async close() {
      const open = connecting;
      connecting = undefined;
      await (await open?.catch(() => undefined))?.close();
    },
  };
}

/** The stores of `config` without a Temporal connection (reading memory, evals or tenant spend needs none). */
export function openStores(config: ClientConfig): StoresClient {
  return { config, ...mongoHandle(config.mongoUri) };
}

/** Runs `fn` with the memory store of the client's MongoDB (its database and collection names). */
export async function withMemory<T>(stores: Pick<StoresClient, 'config' | 'mongo'>, fn: (memory: MemoryStore) => Promise<T>, timeoutMs?: number): Promise<T> {
  const mongo = await stores.mongo(timeoutMs);
  const { MemoryStore } = await import('../stores/store');
  return fn(new MemoryStore(mongo.db(databaseFromUri(stores.config.mongoUri)), stores.config.collections));
}
