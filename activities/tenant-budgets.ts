/**
 * A tenant's daily dollar cap around one model call: before the call, the tenant's spend of the
 * UTC day is read against its cap (no cap: nothing to check); at or over it, the model is not
 * called and the run is told so (`tenant_budget`), and waits. After a call, its cost is counted
 * into the day's spend (one insert per attempt: an attempt that called the model spent). So the
 * day's total overshoots the cap by at most the calls already running when it was reached — one
 * per run, or per running step with parallel steps.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { TenantBudgetReached, TenantChecked } from '../core/activity-contract';
import { ZERO_USAGE, type Usage } from '../core/llm-types';
import { TenantBudgets, utcDay } from '../stores/tenant-budgets';
import type { Db } from 'mongodb';

/** The worker's tenant budgets, opened on the first call of a run with a tenant. */
export function openTenantBudgets(db: Db): TenantBudgets {
  const budgets = new TenantBudgets(db);
  // Spend recorded before days had collections of their own; a worker that cannot read it now tries at its next start.
  void budgets.adoptEarlierSpend(new Date()).catch(() => undefined);
  return budgets;
}

/** A call the tenant's daily cap kept from being made answers nothing (as either model activity's answer). */
export const NOT_MADE = { text: '', content: '', tool_calls: [], stop_reason: 'other' as const, usage: ZERO_USAGE };

/** `call` unless the tenant is at its cap; its cost counted into the tenant's day. */
export async function withinTenantBudget<T extends { usage: Usage }>(
  budgets: () => TenantBudgets,
  tenant: string | undefined,
  call: () => Promise<T>,
  notMade: (reached: TenantBudgetReached) => T,
  now: () => number = Date.now,
  /** What the answer costs the tenant (default: its usage's cost). */
  billable: (answer: T) => number | null = (answer) => answer.usage.cost_usd ?? null,
  /** Why a capped tenant's call cannot be counted (its model has no price the operator knows): refused, not made. */
  unpriced?: (tenant: string) => string | undefined,
): Promise<TenantChecked<T>> {
  if (tenant === undefined) return call();
  const day = utcDay(now());
  const store = budgets();
  const cap = await store.cap(tenant);
  const problem = cap !== undefined ? unpriced?.(tenant) : undefined;
  if (problem !== undefined) throw ApplicationFailure.nonRetryable(problem, 'Tenant.Unpriced');
  // A tenant without a cap is not summed (its spend is still counted below).
  const spent = cap === undefined ? 0 : await store.spent(tenant, day);
  if (cap !== undefined && spent >= cap) {
    const reached = { tenant, day, cap_usd: cap, spent_usd: spent };
    return { ...notMade(reached), tenant_budget: reached };
  }
  const answer = await call();
  const cost = billable(answer);
  // Counted into the day the call began in, so a call across midnight counts where it was allowed.
  if (typeof cost === 'number' && cost > 0) await store.addSpend(tenant, day, cost, callKey());
  return answer;
}

/** The attempt of the current activity (a random key outside one). */
function callKey(): string | undefined {
  try {
    const { workflowExecution: run, activityId, attempt } = Context.current().info;
    return `${run?.workflowId ?? ''}/${run?.runId ?? ''}/${activityId}/${attempt}`;
  } catch {
    return undefined;
  }
}
