/**
 * The run's dollar budget (`max_cost_usd`): checked before each of the run's model calls
 * against the cost so far (`progress.usage.cost_usd`). At or over the cap, `budget_action`
 * decides: `pause` waits for a person (human/budget-wait.ts), `stop` ends the run with a summary of
 * its steps (as at max_steps, by {@link BudgetStop} through `guard`), `fail` fails it with
 * `Budget.Exceeded`. Runs without `max_cost_usd` take none of this: no command is added.
 *
 * The tenant's daily cap is checked by the model-call activity itself (a run with a
 * `tenant_id`); a call it did not make waits here ({@link withinTenantBudget}).
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { TenantChecked } from '../../core/activity-contract';
import { costBudgetReachedMessage, tenantBudgetReachedMessage } from '../../core/prompts';
import { FailureTypes } from './definitions';
import type { RunContext } from './context';

/** Thrown by a model call at the budget: `guard` ends the run with the work so far. */
export class BudgetStop extends Error {
  constructor(
    readonly cap: number,
    readonly cost: number,
    /** A person who answered the budget wait with `reject --stop`. */
    readonly stopped?: { by: string; reason: string },
    /** The wait was at this tenant's daily cap (`cap` and `cost`: its cap and the day's spend). */
    readonly tenant?: string,
  ) {
    super(tenant !== undefined ? `the tenant ${tenant} reached its daily cap ($${cost} of $${cap})` : `the run reached its max_cost_usd ($${cost} of $${cap})`);
    this.name = 'BudgetStop';
  }

  /** The run's response: the work so far (`summary`) and how to continue. */
  response(summary: string, memoryId: string): string {
    return this.tenant !== undefined
      ? tenantBudgetReachedMessage(this.tenant, this.cap, this.cost, summary, memoryId, this.stopped!)
      : costBudgetReachedMessage(this.cap, this.cost, summary, memoryId, this.stopped);
  }
}

/** Before a model call: returns when the call may start, else takes `budget_action`. */
export async function withinBudget(run: RunContext): Promise<void> {
  // A person ended a wait at the tenant's cap (maybe an executor child's): the run ends here.
  const stop = run.human.state.tenant_stop;
  if (stop) throw new BudgetStop(stop.cap_usd, stop.spent_usd, stop, stop.tenant);
  if (run.p.max_cost_usd === undefined) return;
  for (;;) {
    const cap = run.human.budget.cap()!;
    const cost = run.progress.usage.cost_usd;
    // An unknown cost cannot be judged (runs with a budget start only with priced models).
    if (cost === null || cost === undefined || cost < cap) return;
    const action = run.p.budget_action ?? 'pause';
    if (action === 'fail') {
      throw ApplicationFailure.nonRetryable(`the run reached its max_cost_usd: $${cost} spent of $${cap} before its next model call`, FailureTypes.BudgetExceeded);
    }
    if (action === 'stop') throw new BudgetStop(cap, cost);
    const answer = await run.human.budget.wait(cost, cap);
    if (answer.action === 'stop') throw new BudgetStop(cap, cost, { by: answer.by, reason: answer.reason });
  }
}

/**
 * A model call of a run with a tenant: `call` is asked again after each wait at the tenant's
 * daily cap, until the activity makes it; a stop ends the run with the work so far.
 */
export async function withinTenantBudget<T>(run: RunContext, call: () => Promise<TenantChecked<T>>): Promise<T> {
  for (;;) {
    const answer = await call();
    const reached = answer.tenant_budget;
    if (reached === undefined) return answer;
    const ended = await run.human.budget.tenantWait(reached);
    if (ended.action === 'stop') throw new BudgetStop(reached.cap_usd, reached.spent_usd, { by: ended.by, reason: ended.reason ?? '' }, reached.tenant);
  }
}

/** The call's tenant, for the activity's check of its daily cap (runs with a `tenant_id`). */
export const tenantOf = (run: RunContext): { tenant?: string } => (run.p.tenant_id !== undefined ? { tenant: run.p.tenant_id } : {});

/**
 * The run output's metadata on its budgets: the run's (with `max_cost_usd`: the cap, and each
 * raise or stop with who decided) and its tenant's (when it waited at the tenant's daily cap).
 */
export function budgetMetadata(run: RunContext): Record<string, unknown> {
  const { p, progress } = run;
  const recorded = (progress.decisions ?? []).filter((d) => d.kind === 'budget');
  const listed = (tenant: boolean) =>
    recorded.filter((d) => (d.tenant !== undefined) === tenant).map((d) => ({ action: d.action, by: d.by, at: d.at, after_steps: d.after_steps, ...(d.detail !== undefined ? { detail: d.detail } : {}) }));
  const tenantDecisions = listed(true);
  const tenant = tenantDecisions.length > 0 ? { tenant_budget: { tenant: p.tenant_id, decisions: tenantDecisions } } : {};
  if (p.max_cost_usd === undefined) return tenant;
  const cap = run.human.budget.cap();
  return { budget: { max_cost_usd: p.max_cost_usd, ...(cap !== p.max_cost_usd ? { raised_to: cap } : {}), action: p.budget_action ?? 'pause', decisions: listed(false) }, ...tenant };
}
