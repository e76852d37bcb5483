/** Evals' results in MongoDB: one document per eval (`_id` = eval ID), in `perflow_evals` beside the memory. */
import type { Collection } from 'mongodb';
import type { EvalResult } from '../core/eval/types';
import type { MemoryStore } from './store';

export type EvalDoc = EvalResult & { _id: string; tenant_id?: string };

const evalsOf = (store: MemoryStore): Collection<EvalDoc> => store.db.collection<EvalDoc>(store.collections.evals);

/** Writes the eval's document whole (a retried or repeated save writes the same). */
export async function saveEval(store: MemoryStore, result: EvalResult, tenantId?: string): Promise<void> {
  const doc: EvalDoc = { _id: result.eval_id, ...result, ...(tenantId !== undefined ? { tenant_id: tenantId } : {}) };
  await evalsOf(store).replaceOne({ _id: result.eval_id }, doc, { upsert: true });
}

/** The eval's result as saved; undefined when there is none. */
export async function loadEval(store: MemoryStore, evalId: string): Promise<EvalResult | undefined> {
  const doc = await evalsOf(store).findOne({ _id: evalId });
  return doc ? withoutStorage(doc) : undefined;
}

/** The tenant an eval's document names (undefined: none, or no document). */
export async function evalTenant(store: MemoryStore, evalId: string): Promise<{ tenant_id?: string } | undefined> {
  const doc = await evalsOf(store).findOne({ _id: evalId }, { projection: { tenant_id: 1 } });
  return doc ? (doc.tenant_id !== undefined ? { tenant_id: doc.tenant_id } : {}) : undefined;
}

/** The latest evals, newest first (cases left out); with `tenant`, that tenant's only. */
export async function listEvals(store: MemoryStore, limit: number, tenant?: string): Promise<Omit<EvalResult, 'cases'>[]> {
  const docs = await evalsOf(store).find(tenant !== undefined ? { tenant_id: tenant } : {}, { projection: { cases: 0 } }).sort({ started_at: -1 }).limit(limit).toArray();
  return docs.map(withoutStorage);
}

function withoutStorage<T extends { _id: string; tenant_id?: string }>(doc: T): Omit<T, '_id' | 'tenant_id'> {
  const { _id, tenant_id, ...rest } = doc;
  void _id;
  void tenant_id;
  return rest;
}
