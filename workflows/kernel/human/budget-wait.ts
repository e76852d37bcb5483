/**
 * The dollar budget's decision (`max_cost_usd` with `budget_action` pause): the run waits at
 * its cap until a person raises it (`raise-budget`, an Update validated against the cost so
 * far) or ends the run with the work so far (`reject --stop`, routed here by the plan decision
 * Update while a budget decision is pending). A raised cap is part of the human loop's state,
 * so it is carried across continue-as-new. The wait at the tenant's daily cap (tenant-budget-wait.ts)
 * is a budget decision too: `reject --stop` ends it the same way.
 */
import { condition, setHandler } from '@temporalio/workflow';
import { raiseBudgetUpdate, type DecisionRecord } from '../definitions';
import { byOf, checkBy, expectObject, type Decisions } from './pending';
import { openTenantWait, type TenantWait } from './tenant-budget-wait';

/** How a budget wait ended. */
export type BudgetAnswer = { action: 'raise'; usd: number; by: string } | { action: 'stop'; by: string; reason: string };

export interface BudgetDesk {
  /** The cap in force: the raised one, else `max_cost_usd` (undefined: the run has no budget). */
  cap(): number | undefined;
  /** Waits at the cap (`cost` spent) for a person's answer. */
  wait(cost: number, cap: number): Promise<BudgetAnswer>;
  /** Whether a budget decision is pending (`decisionId`: under that ID, when given). */
  pending(decisionId?: string): boolean;
  /** Ends the pending budget wait with the run (`reject --stop`); its decision as recorded. */
  stop(by: string, reason: string): Promise<DecisionRecord>;
  /** Waits at the tenant's daily cap (a model call the activity did not make). */
  tenantWait: TenantWait;
}

/** Sets up the raise-budget Update; returns the budget's desk. */
export function openBudget(desk: Decisions): BudgetDesk {
  const { run, state } = desk;
  const { progress, p } = run;
  const answers = new Map<string, BudgetAnswer>();
  const cap = () => state.max_cost_usd ?? p.max_cost_usd;
  const pendingId = (decisionId?: string) => desk.pendingOf('budget', decisionId)?.id;
  // raise-budget answers the run's own cap only, not a wait at the tenant's.
  const ownPendingId = () => (progress.pending ?? []).find((d) => d.kind === 'budget' && d.budget?.reason !== 'tenant')?.id;

  setHandler(
    raiseBudgetUpdate,
    async (d) => {
      const by = byOf(d.by);
      state.max_cost_usd = d.usd;
      const id = ownPendingId();
      if (id !== undefined) answers.set(id, { action: 'raise', usd: d.usd, by });
      return desk.record({ ...(id !== undefined ? { decision_id: id } : {}), kind: 'budget', action: 'raise', by, detail: `max_cost_usd $${d.usd}` });
    },
    {
      validator: (d) => {
        desk.notEnded();
        expectObject(d, 'a budget decision');
        if (p.max_cost_usd === undefined) throw new Error('the run has no max_cost_usd to raise');
        const cost = progress.usage.cost_usd ?? 0;
        if (typeof d.usd !== 'number' || !Number.isFinite(d.usd) || d.usd <= cost) {
          throw new Error(`the new max_cost_usd must be a number of US dollars above the cost so far ($${cost}), got ${JSON.stringify(d.usd)}`);
        }
        checkBy(d.by);
      },
    },
  );

  return {
    cap,
    pending: (decisionId) => pendingId(decisionId) !== undefined,
    async wait(cost, capNow) {
      state.budget_waits = (state.budget_waits ?? 0) + 1;
      const id = `budget-${state.budget_waits}`;
      const workflowId = desk.workflowId;
      desk.addPending({
        id,
        kind: 'budget',
        since: desk.now(),
        budget: { max_cost_usd: capNow, cost_usd: cost },
        answer: [`perflow raise-budget ${workflowId} --usd N`, `perflow reject ${workflowId} --reason TEXT --stop`],
      });
      await condition(() => answers.has(id));
      desk.removePending(id);
      return answers.get(id)!;
    },
    stop(by, reason) {
      const pending = desk.pendingOf('budget')!;
      const tenant = pending.budget?.reason === 'tenant' ? pending.budget : undefined;
      if (tenant) state.tenant_stop = { by, reason, tenant: tenant.tenant ?? '', cap_usd: tenant.max_cost_usd, spent_usd: tenant.cost_usd };
      else answers.set(pending.id, { action: 'stop', by, reason });
      return desk.record({ decision_id: pending.id, kind: 'budget', action: 'stop', by, detail: reason, ...(tenant ? { tenant: tenant.tenant } : {}) });
    },
    tenantWait: openTenantWait(desk),
  };
}
