/**
 * Plan review (`plan_approval`): a proposed plan waits for a person to approve it, approve an
 * edited plan, or reject it with a reason (asked again, the reason reaching the planner as
 * feedback) or stop the run; `approval_timeout` decides when nobody does.
 */
import { setHandler } from '@temporalio/workflow';
import { planDecisionUpdate, type PlanDecision } from '../definitions';
import type { BudgetDesk } from './budget-wait';
import type { GuardrailDesk } from './guardrail-ask';
import { byOf, checkBy, expectObject, numbered, TIMEOUT_BY, waitFor, type Decisions } from './pending';

/** How the run goes on after a plan review. */
export type PlanOutcome = { action: 'run'; steps: string[] } | { action: 'replan' } | { action: 'stop'; reason: string; by: string };

/** Sets up the plan decision Update; returns the review a run puts each proposed plan to. */
export function openPlanReview(desk: Decisions, budget: BudgetDesk, guardrail: GuardrailDesk): (steps: string[]) => Promise<PlanOutcome> {
  const { run, state } = desk;
  const { p } = run;
  const answers = new Map<string, PlanDecision & { by: string }>();

  setHandler(
    planDecisionUpdate,
    async (d) => {
      // `approve` / `reject` while a failed `ask` guardrail waits answer it.
      if (atGuardrail(d)) return guardrail.answer(d);
      // `reject --stop` while the run waits at its budget ends the run there.
      if (atBudget(d)) return budget.stop(byOf(d.by), d.reason!.trim());
      const pending = desk.pendingOf('plan', d.decision_id)!;
      const by = byOf(d.by);
      answers.set(pending.id, { ...d, by });
      const action = d.action === 'approve' ? (d.steps ? 'edit' : 'approve') : d.stop ? 'stop' : 'reject';
      const detail = d.action === 'approve' ? (d.steps ? numbered(d.steps) : undefined) : d.reason;
      return desk.record({ decision_id: pending.id, kind: 'plan', action, by, ...(detail !== undefined ? { detail } : {}) });
    },
    {
      validator: (d) => {
        desk.notEnded();
        expectObject(d, 'a plan decision');
        if (d.action !== 'approve' && d.action !== 'reject') throw new Error(`action must be approve or reject, got ${JSON.stringify(d.action)}`);
        if (atGuardrail(d)) return guardrail.validate(d);
        if (atBudget(d) || (d.action === 'approve' && !desk.pendingOf('plan', d.decision_id) && budget.pending())) {
          if (d.action !== 'reject' || !d.stop) throw new Error(budgetWaitAnswers(desk.pendingOf('budget')?.budget?.tenant));
          if (typeof d.reason !== 'string' || d.reason.trim() === '') throw new Error('a rejection needs a reason (--reason TEXT)');
          checkBy(d.by);
          return;
        }
        if (!desk.pendingOf('plan', d.decision_id)) throw new Error(`no plan is awaiting approval${d.decision_id ? ` as ${d.decision_id}` : ''} (status: ${run.progress.status})`);
        checkBy(d.by);
        if (d.action === 'approve' && d.steps !== undefined) {
          if (!Array.isArray(d.steps) || d.steps.length === 0) throw new Error('an edited plan needs at least one step');
          if (d.steps.some((s: unknown) => typeof s !== 'string' || s.trim() === '')) throw new Error('every step of an edited plan must be a non-empty string');
        }
        if (d.action === 'reject' && (typeof d.reason !== 'string' || d.reason.trim() === '')) throw new Error('a rejection needs a reason (--reason TEXT)');
      },
    },
  );

  /** How a budget wait is answered: the run's cap, or (`tenant`) the tenant's daily cap. */
  function budgetWaitAnswers(tenant: string | undefined): string {
    const raise = tenant !== undefined ? `the run waits at the tenant ${tenant}'s daily cap: raise it (budget set --tenant ${tenant} --usd-per-day N)` : 'the run waits at its max_cost_usd: raise it (raise-budget --usd N)';
    return `${raise} or end the run (reject --reason TEXT --stop)`;
  }

  /** A decision that answers the pending guardrail decision (no plan pending under its ID). */
  function atGuardrail(d: PlanDecision): boolean {
    return !desk.pendingOf('plan', d.decision_id) && guardrail.pending(d.decision_id);
  }

  /** A rejection that answers the pending budget decision (no plan pending under its ID). */
  function atBudget(d: PlanDecision): boolean {
    return d.action === 'reject' && !desk.pendingOf('plan', d.decision_id) && budget.pending(d.decision_id);
  }

  return async function reviewPlan(steps: string[]): Promise<PlanOutcome> {
    const mode = p.plan_approval ?? 'none';
    if (mode === 'none' || (mode === 'first' && state.plans_approved > 0)) return { action: 'run', steps };
    const id = `plan-${++state.plans_reviewed}`;
    const workflowId = desk.workflowId;
    desk.addPending({
      id,
      kind: 'plan',
      since: desk.now(),
      plan: steps,
      ...desk.timeoutOf(),
      answer: [`perflow approve ${workflowId}`, `perflow approve ${workflowId} --step TEXT [--step TEXT]…`, `perflow reject ${workflowId} --reason TEXT [--stop]`],
    });
    const answered = await waitFor(() => answers.has(id), desk.timeoutMs);
    if (!answered) {
      const reason = `nobody answered within ${p.approval_timeout} s`;
      const d: PlanDecision & { by: string } = desk.timeoutAction === 'approve' ? { action: 'approve', by: TIMEOUT_BY } : { action: 'reject', reason, by: TIMEOUT_BY };
      answers.set(id, d);
      await desk.record({ decision_id: id, kind: 'plan', action: d.action, by: TIMEOUT_BY, ...(d.reason ? { detail: reason } : {}) });
    }
    const d = answers.get(id)!;
    desk.removePending(id);
    if (d.action === 'approve') {
      state.plans_approved++;
      state.rejections = 0;
      return { action: 'run', steps: d.steps ?? steps };
    }
    const reason = d.reason ?? '';
    if (d.stop || state.rejections >= p.max_plan_rejections) return { action: 'stop', reason, by: d.by };
    state.rejections++;
    state.feedback.push(`The proposed plan was rejected by ${d.by}:\n${numbered(steps)}\nReason: ${reason}\nPropose a plan that addresses this.`);
    return { action: 'replan' };
  };
}
