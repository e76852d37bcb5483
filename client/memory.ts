/** The client's view of conversation memory in MongoDB (MONGODB_URI). */
import { readConversation, type ConversationView } from '../stores/conversation';
import { otherTenantMessage } from '../stores/store';
import { PerflowError } from './errors';
import { withMemory, type StoresClient } from './stores';

/**
 * Rejects an unknown `--memory-id`, or one of another tenant than the run's, before a run
 * starts. When MongoDB cannot be reached from here (within 3 s), the run starts anyway and its
 * first activity checks the ID (the worker may see a database this client cannot).
 */
export async function assertMemoryExists(stores: StoresClient, memoryId: string, tenant?: string): Promise<void> {
  let owner: { tenant_id?: string } | undefined;
  try {
    owner = await withMemory(stores, (memory) => memory.memoryOwner(memoryId), 3_000);
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
export async function readMemory(stores: StoresClient, memoryId: string, tenant?: string): Promise<ConversationView | undefined> {
  return withMemory(stores, async (memory) => {
    if (tenant !== undefined && (await memory.memoryOwner(memoryId))?.tenant_id !== tenant) return undefined;
    return readConversation(memory, memoryId);
  });
}
