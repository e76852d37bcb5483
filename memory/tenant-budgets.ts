/**
 * Tenants' daily dollar caps and their spend per UTC day, in MongoDB beside the memory. Each
 * priced model call inserts one spend document (keyed by the call, so a repeated insert counts
 * once), and a day's spend is their sum: every worker and run of a tenant counts into the same
 * total. An insert is atomic everywhere; an `$inc` is not on FerretDB, which loses concurrent
 * increments of one document (read, add and write are not isolated there).
 */
import { randomUUID } from 'node:crypto';
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { TENANT_BUDGET_COLLECTIONS } from '../core/memory-collections';

export { utcDay } from '../core/datetime';

export interface TenantCapDoc {
  /** The tenant. */
  _id: string;
  usd_per_day: number;
  updated_at: Date;
  by: string;
}

/** One priced model call of a tenant's run. */
export interface TenantSpendDoc {
  /** The call (workflow, activity and attempt). */
  _id: string;
  tenant: string;
  /** The UTC day the call began in, YYYY-MM-DD. */
  day: string;
  usd: number;
  at: Date;
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

const DUPLICATE_KEY = 11000;

export class TenantBudgets {
  readonly caps: Collection<TenantCapDoc>;
  readonly spend: Collection<TenantSpendDoc>;

  constructor(db: Db) {
    this.caps = db.collection<TenantCapDoc>(TENANT_BUDGET_COLLECTIONS.caps);
    this.spend = db.collection<TenantSpendDoc>(TENANT_BUDGET_COLLECTIONS.spend);
  }

  /** The index a day's spend is summed over (FerretDB on PostgreSQL pushes the equality down without it). */
  async ensureIndexes(): Promise<void> {
    await this.spend.createIndex({ tenant: 1, day: 1 }, { name: 'tenant_day' });
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
    const [total] = await this.spend.aggregate<{ usd: number }>([{ $match: { tenant, day } }, { $group: { _id: null, usd: { $sum: '$usd' } } }]).toArray();
    return total?.usd ?? 0;
  }

  /** Counts a call's cost into the tenant's spend of `day`; the same `call` counts once. */
  async addSpend(tenant: string, day: string, usd: number, call: string = randomUUID()): Promise<void> {
    try {
      await this.spend.insertOne({ _id: call, tenant, day, usd, at: new Date() });
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
    }
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
