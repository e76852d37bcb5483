/** `perflow budget set|show`: tenants' daily dollar caps. */
import { PerflowError } from '../../client/errors';
import { setTenantBudget, showTenantBudgets, type TenantBudgetView } from '../../client/tenant-budgets';
import { USD_PER_DAY_NEEDED } from '../../client/tenant-budgets';
import { withClient, withStores, type CommandContext, type CommandHandler } from '../context';
import { answer } from '../output';
import { formatCost } from '../../core/text';

export const budget: CommandHandler = async (ctx) => {
  const sub = ctx.positionals[0];
  if (sub === 'set') return set(ctx);
  if (sub === 'show') return show(ctx);
  throw new PerflowError('invalid', `budget needs set or show: perflow budget set --tenant ID --usd-per-day N | perflow budget show [--tenant ID]${sub !== undefined ? ` (got "${sub}")` : ''}`);
};

async function set(ctx: CommandContext): Promise<number> {
  const { o } = ctx;
  const raw = o['usd-per-day'];
  const usd = raw !== undefined && raw.trim() !== '' ? Number(raw) : NaN;
  if (o.tenant === undefined || o.tenant.trim() === '') throw new PerflowError('invalid', 'budget set needs --tenant ID (a non-empty tenant_id)');
  if (!Number.isFinite(usd) || usd <= 0) throw new PerflowError('invalid', `${USD_PER_DAY_NEEDED}${raw !== undefined ? `, got "${raw}"` : ''}`);
  const tenant = o.tenant;
  return withClient(ctx, async (perflow) => {
    const done = await setTenantBudget(perflow, { tenant, usdPerDay: usd, ...(o.by !== undefined ? { by: o.by } : {}) });
    answer(o.json, done, () => `tenant ${done.tenant}: $${done.usd_per_day} per UTC day (set by ${done.by}); told ${done.notified.length} running run(s), ${done.waiting.length} of them waiting`);
    return 0;
  });
}

async function show(ctx: CommandContext): Promise<number> {
  const { o } = ctx;
  const budgets = await withStores(ctx, (stores) => showTenantBudgets(stores, o.tenant));
  if (o.tenant !== undefined && budgets.length === 0) throw new PerflowError('not_found', `tenant ${o.tenant} has no daily budget (perflow budget set --tenant ${o.tenant} --usd-per-day N)`);
  answer(o.json, budgets, () => (budgets.length === 0 ? ['no tenant has a daily budget'] : budgets.map(budgetLine)));
  return 0;
}

const budgetLine = (b: TenantBudgetView) => `${b.tenant}: ${formatCost(b.spent_usd)} of ${formatCost(b.usd_per_day)} spent on ${b.day} (UTC), ${formatCost(b.remaining_usd)} left (set by ${b.by} at ${b.updated_at})`;
