/**
 * Conversation memory in MongoDB, with the seed's ConversationIndexMemory semantics: a planner
 * memory per conversation, an executor memory related to it, and interactions (question and
 * response, with traces under a parent interaction). Every write is keyed by an ID the workflow
 * chose, so retries, crashes and resets never duplicate a record.
 *
 * The hot path (every step) touches documents by `_id` only, inserting new ones and reading
 * one `_id` at a time: FerretDB pushes `_id` equality down to its backend but scans the whole
 * collection for an `$in`, an `$or` or an update (and, on SQLite, for any other filter), which
 * grows with every run the database holds.
 */
import type { Collection, Db } from 'mongodb';
import { Inserts } from './insert-batches';
import type { PromptMaterial } from '../core/activity-contract';
import { DEFAULT_COLLECTIONS, type MemoryCollections } from '../core/memory-collections';
import { RunEventLog, type EventSealer } from './run-events';
import type { InteractionDoc, MemoryDoc, PromptMaterialDoc } from './memory-docs';

export type { InteractionDoc, MemoryDoc, Origin, PromptMaterialDoc, SubRunLink } from './memory-docs';

/** Point reads sent at once (the driver's pool holds 100 connections). */
const LOOKUPS_AT_ONCE = 32;

export class MemoryStore {
  readonly memories: Collection<MemoryDoc>;
  readonly interactions: Collection<InteractionDoc>;
  readonly prompts: Collection<PromptMaterialDoc>;
  /** The store's inserts, each collection's sent one command at a time (what waits goes in the next). */
  readonly inserts = new Inserts();

  constructor(
    readonly db: Db,
    readonly collections: MemoryCollections = DEFAULT_COLLECTIONS,
  ) {
    this.memories = db.collection<MemoryDoc>(collections.memories);
    this.interactions = db.collection<InteractionDoc>(collections.interactions);
    this.prompts = db.collection<PromptMaterialDoc>(collections.prompts);
  }

  /** Indexes for "interactions of a memory in order" and "children of an interaction". */
  async ensureIndexes(): Promise<void> {
    await this.interactions.createIndex({ memory_id: 1, created: 1 }, { name: 'memory_in_order' });
    await this.interactions.createIndex({ parent_interaction_id: 1, trace_number: 1 }, { name: 'children_in_order' });
    // Re-attaching mid-way to a stream begun before live shards finds its batch by offset (the chain itself is read by _id).
    await this.db.collection(this.collections.events).createIndex({ run: 1, first: 1 }, { name: 'stream_in_order' });
  }

  /** The runs' event streams, beside the memory; sealed with `sealer` when given (encryption keys). */
  eventLog(sealer?: EventSealer): RunEventLog {
    return new RunEventLog(this.db.collection(this.collections.events), sealer, undefined, this.inserts);
  }

  /** Whose a memory is: undefined when it does not exist, else its tenant (`tenant_id` absent: none). */
  async memoryOwner(memoryId: string): Promise<{ tenant_id?: string } | undefined> {
    return (await this.memoryOwners([memoryId])).get(memoryId);
  }

  /**
   * The owners of the memories that exist among `memoryIds` (a run's start checks those of its two that exist): one `_id`
   * lookup each, at once — FerretDB answers an `$in` by scanning every memory in Go, an `_id`
   * lookup in SQLite, ten times faster.
   */
  async memoryOwners(memoryIds: readonly string[]): Promise<Map<string, { tenant_id?: string }>> {
    const docs = await Promise.all([...new Set(memoryIds)].map((id) => this.memories.findOne({ _id: id }, { projection: { tenant_id: 1 } })));
    return new Map(docs.flatMap((doc) => (doc ? [[doc._id, doc.tenant_id !== undefined ? { tenant_id: doc.tenant_id } : {}] as const] : [])));
  }

  /**
   * Inserts the memories that do not exist, in one command; returns the IDs of those that did
   * (left as they are: {@link touchMemories} updates them). A new memory (every new
   * conversation) is one insert, while an update makes FerretDB scan the collection.
   */
  async createMemories(docs: ReadonlyArray<Omit<MemoryDoc, '_id' | 'created' | 'updated'>>, now: Date): Promise<string[]> {
    const existing = await this.inserts.insert(
      this.memories,
      docs.map(({ name, first_run, ...rest }) => ({ _id: rest.memory_id, ...rest, name, created: now, updated: now, ...(first_run !== undefined ? { first_run } : {}) }) as MemoryDoc),
    );
    return existing.map((i) => docs[i].memory_id);
  }

  /** Updates memories that exist (their name, `first_run` and creation time kept). */
  async touchMemories(docs: ReadonlyArray<Omit<MemoryDoc, '_id' | 'created' | 'updated'>>, now: Date): Promise<void> {
    if (docs.length === 0) return;
    await this.memories.bulkWrite(
      docs.map(({ name, first_run, ...rest }) => ({
        updateOne: {
          filter: { _id: rest.memory_id },
          update: { $set: { ...rest, updated: now }, $setOnInsert: { name, created: now, ...(first_run !== undefined ? { first_run } : {}) } },
          upsert: true,
        },
      })),
      { ordered: true },
    );
  }

  async memory(memoryId: string): Promise<MemoryDoc | null> {
    return this.memories.findOne({ _id: memoryId });
  }

  async upsertInteraction(doc: Omit<InteractionDoc, '_id' | 'created' | 'updated'>, now: Date): Promise<void> {
    await this.upsertInteractions([doc], now);
  }

  /**
   * Writes several interactions (a step's two records) as new documents in one command; those
   * that exist already (a retried attempt, a reset) are updated instead, so the result is the
   * same as an upsert of each.
   */
  async upsertInteractions(docs: ReadonlyArray<Omit<InteractionDoc, '_id' | 'created' | 'updated'>>, now: Date): Promise<void> {
    const existing = await this.inserts.insert(this.interactions, docs.map((doc) => ({ _id: doc.interaction_id, ...doc, created: now, updated: now }) as InteractionDoc));
    if (existing.length === 0) return;
    await this.interactions.bulkWrite(
      existing.map((i) => {
        const doc = docs[i];
        return { updateOne: { filter: { _id: doc.interaction_id }, update: { $set: { ...doc, updated: now }, $setOnInsert: { created: now } }, upsert: true } };
      }),
      { ordered: true },
    );
  }

  /** Inserts interactions once, in one command; a repeated call (a retry, a reset) leaves the first ones as they are. */
  async insertInteractionsOnce(docs: ReadonlyArray<Omit<InteractionDoc, '_id' | 'created' | 'updated'>>, now: Date): Promise<void> {
    await this.inserts.insert(this.interactions, docs.map((doc) => ({ _id: doc.interaction_id, ...doc, created: now, updated: now }) as InteractionDoc));
  }

  /**
   * Writes a run's root interactions once it has ended, question and answer together: one
   * insert, created when the run started. Roots already there (written at the start of a run
   * begun before roots were written at the end, or by an earlier attempt) get the answer as
   * {@link setResponse} writes it. FerretDB finds a document to update by scanning its
   * collection, so an update of the ever-growing interactions costs every run ever stored; an
   * insert costs the same whatever they hold.
   */
  async writeRoots(docs: ReadonlyArray<Omit<InteractionDoc, '_id' | 'created' | 'updated'>>, created: Date, now: Date): Promise<void> {
    const existing = await this.inserts.insert(this.interactions, docs.map((doc) => ({ _id: doc.interaction_id, ...doc, created, updated: now }) as InteractionDoc));
    if (existing.length === 0) return;
    const { response, error, interrupted_by, forked_from } = docs[existing[0]];
    await this.setResponse(
      existing.map((i) => docs[i].interaction_id),
      response,
      now,
      error,
      { ...(interrupted_by !== undefined ? { interrupted_by } : {}), ...(forked_from !== undefined ? { forked_from } : {}) },
    );
  }

  /** Writes a run's answer (or its failure) onto its root interactions: one command, an update by `_id` each (see {@link memoryOwners}). */
  async setResponse(interactionIds: readonly string[], response: string, now: Date, error?: string, marks: Pick<InteractionDoc, 'interrupted_by' | 'forked_from'> = {}): Promise<void> {
    // A run reset after a failure ends well: its earlier error goes.
    const update = error === undefined ? { $set: { response, updated: now, ...marks }, $unset: { error: '' as const } } : { $set: { response, updated: now, error, ...marks } };
    await this.interactions.bulkWrite(interactionIds.map((id) => ({ updateOne: { filter: { _id: id }, update } })), { ordered: false });
  }

  /**
   * The last `limit` completed root interactions of a memory, oldest first. Runs that failed
   * are left out: their "Agent execution failed: …" is not an answer to build on.
   */
  async recentExchanges(memoryId: string, limit: number, excludeInteractionId?: string): Promise<InteractionDoc[]> {
    if (limit <= 0) return [];
    const docs = await this.interactions
      .find({ memory_id: memoryId, parent_interaction_id: null, response: { $ne: '' }, error: { $exists: false }, _id: { $ne: excludeInteractionId ?? '' } })
      .sort({ created: -1 })
      .limit(limit)
      .toArray();
    return docs.reverse();
  }

  /** Interactions by ID, in the order of `ids`; throws naming the IDs that are missing. */
  async interactionsByIds(ids: readonly string[]): Promise<InteractionDoc[]> {
    return allFound(ids, await this.findInteractions(ids));
  }

  /** Interactions by ID, in the order of `ids` (null where there is none): one `_id` lookup each, at most 32 at once. */
  async findInteractions(ids: readonly string[]): Promise<(InteractionDoc | null)[]> {
    const out: (InteractionDoc | null)[] = [];
    for (let i = 0; i < ids.length; i += LOOKUPS_AT_ONCE) {
      out.push(...(await Promise.all(ids.slice(i, i + LOOKUPS_AT_ONCE).map((_id) => this.interactions.findOne({ _id })))));
    }
    return out;
  }

  /** Stores a run's prompt material under its ID (idempotent: the same run writes the same). */
  async savePromptMaterial(id: string, material: PromptMaterial, now: Date, tenantId?: string): Promise<void> {
    // Stored once; a retried attempt finds it there.
    await this.inserts.insert(this.prompts, [{ _id: id, material: JSON.stringify(material), created: now, ...(tenantId !== undefined ? { tenant_id: tenantId } : {}) }]);
  }

  /** A run's prompt material; throws naming the ID when it is missing. */
  async promptMaterial(id: string): Promise<PromptMaterial> {
    const doc = await this.prompts.findOne({ _id: id });
    if (doc?.material === undefined) throw new Error(`prompt material ${id} not found in memory`);
    return JSON.parse(doc.material) as PromptMaterial;
  }

  /** Stores a part of a long run's earlier steps under its ID (idempotent: a retried attempt writes the same). */
  async saveEarlierSteps(id: string, texts: Record<string, string>, now: Date, tenantId?: string): Promise<void> {
    await this.inserts.insert(this.prompts, [{ _id: id, earlier: texts, created: now, ...(tenantId !== undefined ? { tenant_id: tenantId } : {}) }]);
  }

  /** A part of a long run's earlier steps; throws naming the ID when it is missing. */
  async earlierSteps(id: string): Promise<Record<string, string>> {
    const doc = await this.prompts.findOne({ _id: id });
    if (doc?.earlier === undefined) throw new Error(`earlier steps ${id} not found in memory`);
    return doc.earlier;
  }

  /** Stores the provider state an executor turn carries to the next (idempotent: a retried attempt finds it there). */
  async saveCarriedTurn(id: string, carry: unknown, now: Date, tenantId?: string): Promise<void> {
    await this.inserts.insert(this.prompts, [{ _id: id, turn: JSON.stringify(carry), created: now, ...(tenantId !== undefined ? { tenant_id: tenantId } : {}) }]);
  }

  /** The provider state a turn carries, `undefined` when it carries none. */
  async carriedTurn(id: string): Promise<unknown> {
    const doc = await this.prompts.findOne({ _id: id });
    return doc?.turn === undefined ? undefined : (JSON.parse(doc.turn) as unknown);
  }

  /** A memory's root interactions and their traces, in order. */
  async conversation(memoryId: string): Promise<{ memory: MemoryDoc | null; interactions: InteractionDoc[] }> {
    const memory = await this.memories.findOne({ _id: memoryId });
    const interactions = await this.interactions.find({ memory_id: memoryId }).sort({ created: 1, trace_number: 1 }).toArray();
    return { memory, interactions };
  }
}

/** `found` (what a lookup of `ids` returned, null where none) when nothing is missing; else throws naming the missing IDs. */
export function allFound<T>(ids: readonly string[], found: readonly (T | null)[]): T[] {
  const missing = ids.filter((_, i) => found[i] === null);
  if (missing.length > 0) throw new Error(`interactions not found in memory: ${missing.join(', ')}`);
  return found as T[];
}

/** Why a run may not continue a memory of another tenant (or of none, or a tenant's without one). */
export function otherTenantMessage(field: string, id: string, owner: string | undefined, tenant: string | undefined): string {
  const whose = (t: string | undefined) => (t === undefined ? 'no tenant' : `tenant ${t}`);
  return `${field} ${id} belongs to ${whose(owner)}, not to ${whose(tenant)}: a memory is continued by its own tenant only (nothing was changed)`;
}
