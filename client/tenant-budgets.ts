/**
 * Tenants' daily dollar caps (`perflow budget`): set one in MongoDB and tell the tenant's runs
 * waiting at it (a signal each, found by their search attributes); show caps with the spend of
 * the current UTC day.
 */
import type { Client } from '@temporalio/client';
import { tenantCapSignal } from '../workflows/definitions';
import { TenantBudgets, utcDay, type TenantBudgetView } from '../memory/tenant-budgets';
import { CliError } from './errors';
import { withMemory } from './memory';
import { listQuery, needingSearchAttributes } from './ops';
import { lenientClient } from './payloads';

export type { TenantBudgetView };

export interface TenantBudgetSet {
  tenant: string;
  usd_per_day: number;
  by: string;
  /** The runs waiting at the tenant's cap that were told of the new one. */
  notified: string[];
}

/** Sets the tenant's daily cap in US dollars; the tenant's runs waiting at its cap are told and go on when it is above the day's spend. */
export async function setTenantBudget(client: Client, env: NodeJS.ProcessEnv, o: { tenant: string; usdPerDay: number; by?: string }): Promise<TenantBudgetSet> {
  const tenant = checkTenant(o.tenant);
  if (!Number.isFinite(o.usdPerDay) || o.usdPerDay <= 0) throw new CliError(`budget set needs --usd-per-day N (a positive number of US dollars), got ${JSON.stringify(o.usdPerDay)}`, 2);
  const by = o.by !== undefined && o.by.trim() !== '' ? o.by.trim() : 'unknown';
  await withMemory(env, (memory) => new TenantBudgets(memory.db).setCap(tenant, o.usdPerDay, by, new Date()));
  // After the write: a run that reads the cap from now on sees the new one.
  const notified = await needingSearchAttributes(client, 'budget set', async () => {
    const ids: string[] = [];
    const query = `${listQuery('running', undefined, tenant)} AND PerflowPending = 'budget'`;
    for await (const wf of lenientClient(client).workflow.list({ query })) ids.push(wf.workflowId);
    return ids;
  });
  await Promise.all(notified.map((id) => client.workflow.getHandle(id).signal(tenantCapSignal, { tenant, usd_per_day: o.usdPerDay, by })));
  return { tenant, usd_per_day: o.usdPerDay, by, notified };
}

/** The tenant's cap (or every tenant's) with its spend of the current UTC day. */
export async function showTenantBudgets(env: NodeJS.ProcessEnv, tenant?: string): Promise<TenantBudgetView[]> {
  const one = tenant !== undefined ? checkTenant(tenant) : undefined;
  return withMemory(env, (memory) => new TenantBudgets(memory.db).show(utcDay(Date.now()), one));
}

function checkTenant(tenant: string | undefined): string {
  if (tenant === undefined || tenant.trim() === '') throw new CliError('budget needs --tenant ID (a non-empty tenant_id)', 2);
  return tenant;
}
