/**
 * Tenants' daily dollar caps and their spend per UTC day, in MongoDB beside the memory. Each
 * priced model call inserts one spend document (keyed by the call, so a repeated insert counts
 * once), and a day's spend is their sum: every worker and run of a tenant counts into the same
 * total. An insert is atomic everywhere; an `$inc` is not on FerretDB, which loses concurrent
 * increments of one document (read, add and write are not isolated there).
 *
 * Each UTC day's calls are a collection of their own (`perflow_tenant_spend.YYYY-MM-DD`): the sum
 * before a call reads that day's documents only — FerretDB answers it by scanning the collection,
 * so one collection of every day's calls made each check cost all the spend ever recorded.
 */
import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { ignoreDuplicates } from './duplicate-key';
import { Inserts } from './insert-batches';
import { TENANT_BUDGET_COLLECTIONS } from '../core/memory-collections';

import { utcDay } from '../core/datetime';

export { utcDay };

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

export class TenantBudgets {
  readonly caps: Collection<TenantCapDoc>;
  /** The adoption of earlier spend under way (sums wait for it; failed, they go on without). */
  private adopting: Promise<void> | undefined;
  /** The days whose collection has its index (created once per day and process). */
  private readonly indexed = new Set<string>();
  /** Calls ending at once count their spend in one insert (see stores/insert-batches.ts). */
  private readonly inserts = new Inserts();

  constructor(private readonly db: Db) {
    this.caps = db.collection<TenantCapDoc>(TENANT_BUDGET_COLLECTIONS.caps);
  }

  /** The spend of one UTC day (YYYY-MM-DD). */
  spendOf(day: string): Collection<TenantSpendDoc> {
    return this.db.collection<TenantSpendDoc>(`${TENANT_BUDGET_COLLECTIONS.spend}.${day}`);
  }

  /**
   * Brings the current and the previous UTC day's spend recorded in the one collection of every
   * day (before days had collections) into their day's collection, so an upgraded worker counts
   * what was spent today. Idempotent: each call's document keeps its key.
   */
  adoptEarlierSpend(now: Date): Promise<void> {
    const legacy = this.db.collection<TenantSpendDoc>(TENANT_BUDGET_COLLECTIONS.spend);
    this.adopting = (async () => {
      for (const day of [utcDay(now.getTime() - 86_400_000), utcDay(now.getTime())]) {
        const docs = await legacy.find({ day }).toArray();
        if (docs.length > 0) await this.spendOf(day).insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
      }
    })();
    return this.adopting;
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
    await this.adopting?.catch(() => undefined);
    const [total] = await this.spendOf(day).aggregate<{ usd: number }>([{ $match: { tenant } }, { $group: { _id: null, usd: { $sum: '$usd' } } }]).toArray();
    return total?.usd ?? 0;
  }

  /** Counts a call's cost into the tenant's spend of `day`; the same `call` counts once. */
  async addSpend(tenant: string, day: string, usd: number, call: string = randomUUID()): Promise<void> {
    const spend = this.spendOf(day);
    if (!this.indexed.has(day)) {
      // The sum's index on MongoDB (FerretDB scans the day's documents with or without it).
      await spend.createIndex({ tenant: 1 }, { name: 'tenant' });
      this.indexed.add(day);
    }
    // The same call counted again (a retried attempt) finds its document there: left as it is.
    await this.inserts.insert(spend, [{ _id: call, tenant, day, usd, at: new Date() }]);
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
