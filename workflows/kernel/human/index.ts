/**
 * People in the loop, for every agent type: a proposed plan waits for approval
 * (`plan_approval`, plan-review.ts), a tool call that requires approval waits in its executor
 * child, which asks the run (tool-approval.ts), guidance reaches the next planning call and a
 * pause holds the run between steps (steering.ts), a run at its dollar budget waits for a
 * raised cap or a stop (budget-wait.ts), and a model call refused at the tenant's daily cap waits for
 * a higher cap, the next UTC day or a stop (tenant-budget-wait.ts). Every decision is a workflow Update,
 * validated before it is accepted (an invalid one changes nothing), and recorded in history,
 * progress and memory (pending.ts).
 *
 * Nothing here adds a command unless a person (or `plan_approval`, or a tool's
 * `requires_approval`) asks for it, so runs recorded before replay unchanged.
 */
import type { GuardrailVerdict } from '../../../core/guardrail-verdict';
import type { HumanState } from '../definitions';
import { openBudget, type BudgetDesk } from './budget-wait';
import { openGuardrailAsk, type GuardrailAnswer } from './guardrail-ask';
import { openDecisions, type HumanRun } from './pending';
import { openPlanReview, type PlanOutcome } from './plan-review';
import { openSteering, type Steering } from './steering';
import { openToolApproval } from './tool-approval';

export type { HumanState, PlanOutcome };
export type { BudgetAnswer, BudgetDesk } from './budget-wait';
export type { GuardrailAnswer } from './guardrail-ask';
export { FEEDBACK_HEADING } from './steering';
export { TIMEOUT_BY } from './pending';
export { askToolApproval, toolApprovalAnswers } from './tool-approval';
export { askTenantWait, tenantWaitAnswers } from './tenant-budget-wait';

export interface HumanLoop extends Steering {
  state: HumanState;
  /** Puts a proposed plan to review when `plan_approval` asks for it; waits for the answer. */
  reviewPlan(steps: string[]): Promise<PlanOutcome>;
  /** Waits until every decision being recorded is recorded (before the run ends). */
  settle(): Promise<void>;
  /** The dollar budget's cap and wait (`max_cost_usd`). */
  budget: BudgetDesk;
  /** Waits for a person's answer on a failed guardrail with `on_fail: "ask"`. */
  askGuardrail(verdict: GuardrailVerdict): Promise<GuardrailAnswer>;
}

const NO_STATE: HumanState = { plans_reviewed: 0, plans_approved: 0, rejections: 0, feedback: [], paused: false };

/** Sets up the decision handlers of a run; `carried` is the state of its previous execution. */
export function openHumanLoop(run: HumanRun, carried?: HumanState): HumanLoop {
  const state: HumanState = { ...NO_STATE, ...carried, feedback: [...(carried?.feedback ?? [])] };
  const desk = openDecisions(run, state);
  const budget = openBudget(desk);
  const guardrail = openGuardrailAsk(desk);
  const reviewPlan = openPlanReview(desk, budget, guardrail);
  openToolApproval(desk);
  return { state, reviewPlan, ...openSteering(desk), settle: desk.settle, budget, askGuardrail: guardrail.ask };
}
