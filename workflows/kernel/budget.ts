/**
 * The run's dollar budget (`max_cost_usd`): checked before each of the run's model calls
 * against the cost so far (`progress.usage.cost_usd`). At or over the cap, `budget_action`
 * decides: `pause` waits for a person (human/budget.ts), `stop` ends the run with a summary of
 * its steps (as at max_steps, by {@link BudgetStop} through `guard`), `fail` fails it with
 * `Budget.Exceeded`. Runs without `max_cost_usd` take none of this: no command is added.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { FailureTypes } from '../definitions';
import type { RunContext } from './context';

/** Thrown by a model call at the budget: `guard` ends the run with the work so far. */
export class BudgetStop extends Error {
  constructor(
    readonly cap: number,
    readonly cost: number,
    /** A person who answered the budget wait with `reject --stop`. */
    readonly stopped?: { by: string; reason: string },
  ) {
    super(`the run reached its max_cost_usd ($${cost} of $${cap})`);
    this.name = 'BudgetStop';
  }
}

/** Before a model call: returns when the call may start, else takes `budget_action`. */
export async function withinBudget(run: RunContext): Promise<void> {
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

/** The run output's metadata on its budget (runs with `max_cost_usd`): the cap, and each raise or stop with who decided. */
export function budgetMetadata(run: RunContext): Record<string, unknown> {
  const { p, progress } = run;
  if (p.max_cost_usd === undefined) return {};
  const decisions = (progress.decisions ?? []).filter((d) => d.kind === 'budget').map((d) => ({ action: d.action, by: d.by, at: d.at, after_steps: d.after_steps, ...(d.detail !== undefined ? { detail: d.detail } : {}) }));
  const cap = run.human.budget.cap();
  return { budget: { max_cost_usd: p.max_cost_usd, ...(cap !== p.max_cost_usd ? { raised_to: cap } : {}), action: p.budget_action ?? 'pause', decisions } };
}
