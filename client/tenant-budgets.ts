/**
 * Tenants' daily dollar caps (`perflow budget`): set one in MongoDB and tell the tenant's
 * running runs (a signal each, found by their search attributes); show caps with the spend of
 * the current UTC day.
 */
import { TenantBudgets, utcDay, type TenantBudgetView } from '../stores/tenant-budgets';
import { PerflowError } from './errors';
import { withMemory, type StoresClient } from './stores';
import type { PerflowClient } from './connect';

export type { TenantBudgetView };

export interface TenantBudgetSet {
  tenant: string;
  usd_per_day: number;
  by: string;
  /** The tenant's running runs that were told of the new cap. */
  notified: string[];
  /** Those of them that were waiting at the tenant's cap (or at their own budget). */
  waiting: string[];
}

/** What `budget set` needs of its cap (the CLI checks it before it connects, too). */
export const USD_PER_DAY_NEEDED = 'budget set needs --usd-per-day N (a positive number of US dollars)';

/**
 * Sets the tenant's daily cap in US dollars and tells every running run of the tenant (a
 * signal, found by `PerflowTenant`): a run waiting at the cap goes on when the new one is above
 * the day's spend. Runs not waiting keep the notice, so one that was refused just before the
 * cap changed, and begins to wait only now, goes on too.
 */
export async function setTenantBudget(perflow: PerflowClient, o: { tenant: string; usdPerDay: number; by?: string }): Promise<TenantBudgetSet> {
  const { client } = perflow;
  const tenant = checkTenant(o.tenant);
  if (!Number.isFinite(o.usdPerDay) || o.usdPerDay <= 0) throw new PerflowError('invalid', `${USD_PER_DAY_NEEDED}, got ${JSON.stringify(o.usdPerDay)}`);
  const by = o.by !== undefined && o.by.trim() !== '' ? o.by.trim() : 'unknown';
  await withMemory(perflow, (memory) => new TenantBudgets(memory.db).setCap(tenant, o.usdPerDay, by, new Date()));
  // After the write: a run that reads the cap from now on sees the new one.
  // Temporal's side loads here: `budget show` reads MongoDB only.
  const [{ SearchAttributes, tenantCapSignal }, { listQuery, needingSearchAttributes, signalRunning }, { lenientClient }] = await Promise.all([
    import('../workflows/definitions'),
    import('./ops'),
    import('./payloads'),
  ]);
  const runs = await needingSearchAttributes(client, 'budget set', async () => {
    const found: { id: string; waiting: boolean }[] = [];
    for await (const wf of lenientClient(client).workflow.list({ query: listQuery('running', undefined, tenant) })) {
      found.push({ id: wf.workflowId, waiting: wf.typedSearchAttributes.get(SearchAttributes.pending) === 'budget' });
    }
    return found;
  });
  const told = new Set(await signalRunning(client, runs.map((r) => r.id), tenantCapSignal, { tenant, usd_per_day: o.usdPerDay, by }));
  const notified = runs.filter((r) => told.has(r.id));
  return { tenant, usd_per_day: o.usdPerDay, by, notified: notified.map((r) => r.id), waiting: notified.filter((r) => r.waiting).map((r) => r.id) };
}

/** The tenant's cap (or every tenant's) with its spend of the current UTC day. */
export async function showTenantBudgets(stores: StoresClient, tenant?: string): Promise<TenantBudgetView[]> {
  const one = tenant !== undefined ? checkTenant(tenant) : undefined;
  return withMemory(stores, (memory) => new TenantBudgets(memory.db).show(utcDay(Date.now()), one));
}

function checkTenant(tenant: string | undefined): string {
  if (tenant === undefined || tenant.trim() === '') throw new PerflowError('invalid', 'budget needs --tenant ID (a non-empty tenant_id)');
  return tenant;
}
