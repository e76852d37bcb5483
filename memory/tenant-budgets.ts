/**
 * Tenants' daily dollar caps and their spend per UTC day, in MongoDB beside the memory. A
 * day's spend is one document per tenant and day, grown by one atomic `$inc` after each priced
 * model call, so every worker and run of a tenant counts into the same total.
 */
import type { Collection, Db } from 'mongodb';
import { TENANT_BUDGET_COLLECTIONS } from '../core/memory-collections';

export interface TenantCapDoc {
  /** The tenant. */
  _id: string;
  usd_per_day: number;
  updated_at: Date;
  by: string;
}

export interface TenantSpendDoc {
  /** `<tenant>/<day>`. */
  _id: string;
  tenant: string;
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  spent_usd: number;
}

/** A tenant's budget as `perflow budget show` reports it. */
export interface TenantBudgetView {
  tenant: string;
  usd_per_day: number;
  day: string;
  spent_usd: number;
  remaining_usd: number;
  updated_at: string;
  by: string;
}

/** The UTC day of a time (YYYY-MM-DD). */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const spendId = (tenant: string, day: string) => `${tenant}/${day}`;

export class TenantBudgets {
  readonly caps: Collection<TenantCapDoc>;
  readonly spend: Collection<TenantSpendDoc>;

  constructor(db: Db) {
    this.caps = db.collection<TenantCapDoc>(TENANT_BUDGET_COLLECTIONS.caps);
    this.spend = db.collection<TenantSpendDoc>(TENANT_BUDGET_COLLECTIONS.spend);
  }

  async setCap(tenant: string, usdPerDay: number, by: string, now: Date): Promise<void> {
    await this.caps.updateOne({ _id: tenant }, { $set: { usd_per_day: usdPerDay, updated_at: now, by } }, { upsert: true });
  }

  /** The tenant's daily cap (undefined: it has none). */
  async cap(tenant: string): Promise<number | undefined> {
    return (await this.caps.findOne({ _id: tenant }))?.usd_per_day;
  }

  /** The tenant's spend of `day` (0 before its first priced call that day). */
  async spent(tenant: string, day: string): Promise<number> {
    return (await this.spend.findOne({ _id: spendId(tenant, day) }))?.spent_usd ?? 0;
  }

  /** Adds a call's cost to the tenant's spend of `day`, atomically. */
  async addSpend(tenant: string, day: string, usd: number): Promise<void> {
    await this.spend.updateOne({ _id: spendId(tenant, day) }, { $inc: { spent_usd: usd }, $setOnInsert: { tenant, day } }, { upsert: true });
  }

  /** The caps with the spend of `day`: one tenant's, or every tenant's that has a cap. */
  async show(day: string, tenant?: string): Promise<TenantBudgetView[]> {
    const caps = tenant !== undefined ? await this.caps.find({ _id: tenant }).toArray() : await this.caps.find().sort({ _id: 1 }).toArray();
    return Promise.all(
      caps.map(async (c) => {
        const spent = await this.spent(c._id, day);
        return { tenant: c._id, usd_per_day: c.usd_per_day, day, spent_usd: spent, remaining_usd: Math.max(0, c.usd_per_day - spent), updated_at: c.updated_at.toISOString(), by: c.by };
      }),
    );
  }
}
