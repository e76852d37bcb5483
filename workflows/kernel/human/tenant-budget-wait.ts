/**
 * The wait at the tenant's daily dollar cap (`perflow budget set`): a model call the activity
 * did not make because the tenant's spend of the UTC day reached its cap waits here, as a
 * budget decision with reason `tenant`, until `budget set` tells the run of a cap above the
 * spend (a signal), the UTC day ends (a durable timer), or a person ends the run
 * (`reject --stop`, through the budget desk). Then the call is asked again and the activity
 * checks anew. An executor child asks its run to wait for it (a signal each way), so the run
 * alone holds the pending decision and receives `budget set`'s signal.
 */
import { condition, getExternalWorkflowHandle, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import type { TenantBudgetReached } from '../../../core/activity-contract';
import { msUntilUtcDayEnds, nextUtcDay } from '../../../core/datetime';
import { tenantCapSignal, tenantWaitAnswerSignal, tenantWaitRequestSignal, type TenantCapNotice, type TenantWaitAnswer } from '../definitions';
import type { Decisions } from './pending';

/** Waits at the tenant's cap; resolves with how the wait ended. */
export type TenantWait = (reached: TenantBudgetReached) => Promise<Omit<TenantWaitAnswer, 'request_id'>>;

/**
 * Sets up `budget set`'s signal and the children's requests; returns the run's wait. A stop
 * (`state.tenant_stop`, set by the budget desk) ends every wait of the run.
 */
export function openTenantWait(desk: Decisions): TenantWait {
  const { state } = desk;
  let notice: TenantCapNotice | undefined;
  let used: TenantCapNotice | undefined;
  const requests = new Set<string>();
  setHandler(tenantCapSignal, (n) => {
    if (n.tenant === desk.run.p.tenant_id) notice = n;
  });

  const wait: TenantWait = async (reached) => {
    state.budget_waits = (state.budget_waits ?? 0) + 1;
    const id = `budget-${state.budget_waits}`;
    const { tenant, day, cap_usd, spent_usd } = reached;
    desk.addPending({
      id,
      kind: 'budget',
      since: desk.now(),
      budget: { max_cost_usd: cap_usd, cost_usd: spent_usd, reason: 'tenant', tenant, day },
      answer: [`perflow budget set --tenant ${tenant} --usd-per-day N`, `perflow reject ${desk.workflowId} --reason TEXT --stop`],
    });
    // A cap at or under the day's spend changes nothing (the spend only grows). A notice may have
    // come between the activity's check and this wait; one that already ended a wait does not
    // end another (the cap may have been lowered since).
    const raised = () => notice !== undefined && notice !== used && notice.usd_per_day > spent_usd;
    const raisedTo = await condition(() => raised() || state.tenant_stop !== undefined, msUntilUtcDayEnds(day, Date.now()));
    desk.removePending(id);
    if (state.tenant_stop) return { action: 'stop', by: state.tenant_stop.by, reason: state.tenant_stop.reason };
    if (raisedTo) used = notice;
    const by = raisedTo && notice ? notice.by : 'perflow';
    const detail = raisedTo && notice ? `tenant ${tenant}: cap $${notice.usd_per_day} per day` : `tenant ${tenant}: UTC day ${nextUtcDay(day)} began`;
    await desk.record({ decision_id: id, kind: 'budget', action: 'resume', by, detail, tenant });
    return { action: 'resume', by };
  };

  setHandler(tenantWaitRequestSignal, async (req) => {
    if (requests.has(req.request_id)) return; // asked again by a replayed child
    requests.add(req.request_id);
    try {
      const answer = await wait(req.reached);
      await getExternalWorkflowHandle(req.executor_workflow_id).signal(tenantWaitAnswerSignal, { request_id: req.request_id, ...answer });
    } catch (err) {
      // The run is being cancelled (its children with it): nobody is waiting for the answer.
      if (!isCancellation(err)) throw err;
    }
  });
  return wait;
}

/**
 * An executor child's wait at the tenant's cap: asked of its run, which answers. A child
 * without a run waits for the UTC day to end.
 */
export async function askTenantWait(answers: Map<string, TenantWaitAnswer>, requestId: string, reached: TenantBudgetReached): Promise<TenantWaitAnswer> {
  const info = workflowInfo();
  if (!info.parent) {
    await condition(() => false, msUntilUtcDayEnds(reached.day, Date.now()));
    return { request_id: requestId, action: 'resume', by: 'perflow' };
  }
  await getExternalWorkflowHandle(info.parent.workflowId).signal(tenantWaitRequestSignal, { request_id: requestId, executor_workflow_id: info.workflowId, reached });
  await condition(() => answers.has(requestId));
  return answers.get(requestId)!;
}

/** The answers an executor child receives from its run, by request ID. */
export function tenantWaitAnswers(): Map<string, TenantWaitAnswer> {
  const answers = new Map<string, TenantWaitAnswer>();
  setHandler(tenantWaitAnswerSignal, (a) => {
    answers.set(a.request_id, a);
  });
  return answers;
}
