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
  /** The runs' event streams (see memory/run-events.ts). */
  events: string;
  /** Evals' results (see memory/evals.ts), one document per eval. */
  evals: string;
}

export const DEFAULT_COLLECTIONS: MemoryCollections = { memories: 'perflow_memories', interactions: 'perflow_interactions', prompts: 'perflow_prompts', events: 'perflow_events', evals: 'perflow_evals' };

/** Where ended runs' event streams are kept: beside the events collection, named after it. */
export const eventArchiveOf = (events: string): string => `${events}.archive`;

/** Tenants' daily dollar caps and their spend per UTC day (fixed names; see memory/tenant-budgets.ts). */
export const TENANT_BUDGET_COLLECTIONS = { caps: 'perflow_tenant_budgets', spend: 'perflow_tenant_spend' } as const;

/** Every collection perflow's memory uses (the MongoDB tools keep off them). */
export const allMemoryCollections = (c: MemoryCollections): string[] => [...Object.values(c), eventArchiveOf(c.events), ...Object.values(TENANT_BUDGET_COLLECTIONS)];
