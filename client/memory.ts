/** The client's view of conversation memory in MongoDB (MONGODB_URI). */
import { MongoClient } from 'mongodb';
import { readConversation, type ConversationView } from '../stores/conversation';
import { MemoryStore, otherTenantMessage } from '../stores/store';
import { databaseFromUri, memoryCollectionsFromEnv, mongoUriFromEnv, redact } from '../config/env';
import { firstLine } from '../core/text';
import { PerflowError } from './errors';

/** Why MongoDB (MONGODB_URI) cannot be used from here, in one line without the URI's secrets. */
export const mongoUnreachable = (uri: string, err: unknown): string => `cannot reach MongoDB at ${redact(uri)} (${firstLine(err)}): start it or set MONGODB_URI`;

/** Clients long-lived servers of this process keep open for every call on their URI (a console's one client). */
const held = new Map<string, MongoClient[]>();

/**
 * Makes every {@link withMemory} call of this process on `uri` use `mongo` instead of a client of
 * its own, until the returned function is called. A server answering many requests holds one.
 */
export function holdMongoClient(uri: string, mongo: MongoClient): () => void {
  held.set(uri, [...(held.get(uri) ?? []), mongo]);
  return () => {
    const rest = (held.get(uri) ?? []).filter((m) => m !== mongo);
    if (rest.length > 0) held.set(uri, rest);
    else held.delete(uri);
  };
}

/** Opens the memory store of MONGODB_URI for the duration of `fn` (or uses the client held for it). */
export async function withMemory<T>(env: NodeJS.ProcessEnv, fn: (memory: MemoryStore) => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const uri = mongoUriFromEnv(env);
  const shared = held.get(uri)?.at(-1);
  if (shared) return fn(new MemoryStore(shared.db(databaseFromUri(uri)), memoryCollectionsFromEnv(env)));
  const mongo = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs });
  try {
    await mongo.connect().catch((err: unknown) => {
      throw new PerflowError('unavailable', mongoUnreachable(uri, err), { cause: err });
    });
    return await fn(new MemoryStore(mongo.db(databaseFromUri(uri)), memoryCollectionsFromEnv(env)));
  } finally {
    await mongo.close();
  }
}

/**
 * Rejects an unknown `--memory-id`, or one of another tenant than the run's, before a run
 * starts. When MongoDB cannot be reached from here, the run starts anyway and its first
 * activity checks the ID (the worker may see a database this client cannot).
 */
export async function assertMemoryExists(env: NodeJS.ProcessEnv, memoryId: string, tenant?: string): Promise<void> {
  let owner: { tenant_id?: string } | undefined;
  try {
    owner = await withMemory(env, (memory) => memory.memoryOwner(memoryId), 3_000);
  } catch {
    return;
  }
  if (!owner) throw new PerflowError('not_found', `memory_id ${memoryId} does not exist (MONGODB_URI); omit --memory-id to start a new conversation`);
  if (owner.tenant_id !== tenant) throw new PerflowError('refused', otherTenantMessage('memory_id', memoryId, owner.tenant_id, tenant));
}

/**
 * A conversation as `perflow memory` shows it, read from MONGODB_URI; undefined when the
 * memory_id is unknown, or belongs to another tenant than `tenant` when one is given.
 */
export async function readMemory(env: NodeJS.ProcessEnv, memoryId: string, tenant?: string): Promise<ConversationView | undefined> {
  return withMemory(env, async (memory) => {
    if (tenant !== undefined && (await memory.memoryOwner(memoryId))?.tenant_id !== tenant) return undefined;
    return readConversation(memory, memoryId);
  });
}
