/** The client's view of conversation memory in MongoDB (MONGODB_URI). */
import { MongoClient } from 'mongodb';
import { readConversation, type ConversationView } from '../memory/conversation';
import { MemoryStore } from '../memory/store';
import { databaseFromUri, memoryCollectionsFromEnv, mongoUriFromEnv } from '../config/env';
import { CliError } from './errors';

/** Opens the memory store of MONGODB_URI for the duration of `fn`. */
export async function withMemory<T>(env: NodeJS.ProcessEnv, fn: (memory: MemoryStore) => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const uri = mongoUriFromEnv(env);
  const mongo = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs });
  try {
    return await fn(new MemoryStore(mongo.db(databaseFromUri(uri)), memoryCollectionsFromEnv(env)));
  } finally {
    await mongo.close();
  }
}

/**
 * Rejects an unknown `--memory-id` before a run starts. When MongoDB cannot be reached from
 * here, the run starts anyway and its first activity rejects the ID (the worker may see a
 * database this client cannot).
 */
export async function assertMemoryExists(env: NodeJS.ProcessEnv, memoryId: string): Promise<void> {
  let exists: boolean;
  try {
    exists = await withMemory(env, (memory) => memory.memoryExists(memoryId), 3_000);
  } catch {
    return;
  }
  if (!exists) throw new CliError(`memory_id ${memoryId} does not exist (MONGODB_URI); omit --memory-id to start a new conversation`, 2);
}

/**
 * A conversation as `perflow memory` shows it, read from MONGODB_URI; undefined when the
 * memory_id is unknown, or belongs to another tenant than `tenant` when one is given.
 */
export async function readMemory(env: NodeJS.ProcessEnv, memoryId: string, tenant?: string): Promise<ConversationView | undefined> {
  return withMemory(env, async (memory) => {
    if (tenant !== undefined && (await memory.memories.findOne({ _id: memoryId }))?.tenant_id !== tenant) return undefined;
    return readConversation(memory, memoryId);
  });
}
