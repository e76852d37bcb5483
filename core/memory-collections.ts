/**
 * The MongoDB collections a memory lives in, and their default names. Shared by the memory
 * store, the built-in MongoDB tools (which keep off them) and config/ (which reads
 * PERFLOW_*_COLLECTION over these defaults).
 */
export interface MemoryCollections {
  memories: string;
  interactions: string;
  /** The runs' static prompt material (parameters, system prompts, tool specs), by ID. */
  prompts: string;
  /** The runs' event streams (see stores/run-events.ts). */
  events: string;
  /** Evals' results (see stores/evals.ts), one document per eval. */
  evals: string;
}

export const DEFAULT_COLLECTIONS: MemoryCollections = { memories: 'perflow_memories', interactions: 'perflow_interactions', prompts: 'perflow_prompts', events: 'perflow_events', evals: 'perflow_evals' };

/** Where ended runs' event streams are kept: beside the events collection, named after it. */
export const eventArchiveOf = (events: string): string => `${events}.archive`;

/** How many collections the runs in flight spread their live event batches over. */
export const LIVE_EVENT_SHARDS = 256;

/**
 * The collection holding a run's live event batches (until its stream is archived): one of
 * {@link LIVE_EVENT_SHARDS} beside the events collection, by a hash of the run's workflow ID. A
 * read then costs the events of the few runs in its shard, also on a server that scans a
 * collection to answer a query (FerretDB).
 */
export function eventLiveOf(events: string, run: string): string {
  let hash = 0x811c9dc5; // FNV-1a: stable across processes and versions
  for (let i = 0; i < run.length; i++) hash = Math.imul(hash ^ run.charCodeAt(i), 0x01000193);
  return `${events}.live.${((hash >>> 0) % LIVE_EVENT_SHARDS).toString(16).padStart(2, '0')}`;
}

/** Tenants' daily dollar caps and their spend per UTC day (fixed names; see stores/tenant-budgets.ts). */
export const TENANT_BUDGET_COLLECTIONS = { caps: 'perflow_tenant_budgets', spend: 'perflow_tenant_spend' } as const;

/** Online scores of ended runs, one document per scored run (fixed name; see stores/scores.ts). */
export const SCORES_COLLECTION = 'perflow_scores';

/** Every collection perflow's memory uses (the MongoDB tools keep off them, and off the collections named after them: `perflow_events.*`). */
export const allMemoryCollections = (c: MemoryCollections): string[] => [...Object.values(c), eventArchiveOf(c.events), ...Object.values(TENANT_BUDGET_COLLECTIONS), SCORES_COLLECTION];
