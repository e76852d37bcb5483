/**
 * A judge's model call, for an eval's checks and a guardrail's: the criteria asked of the model
 * (the check's own `llm`, else the agent's), within the tenant's daily cap and counted into it,
 * its verdict read from the answer.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ModelSettings } from '../core/activity-contract';
import { judgeRequest, parseJudgeVerdict, type JudgeCheck, type JudgeVerdict } from '../core/eval/checks';
import type { CallPosition, Usage } from '../core/llm-types';
import type { TenantBudgets } from '../stores/tenant-budgets';
import { tenantCostOf, tenantPriceProblem } from '../telemetry/model-prices';
import { chat, type ChatDeps } from './llm/chat';
import { checkModel, type PolicyDeps } from './policy';
import { NOT_MADE, withinTenantBudget } from './tenant-budgets';

export type JudgeDeps = ChatDeps & PolicyDeps & { tenantBudgets: () => TenantBudgets };

export interface JudgeAsk {
  check: JudgeCheck;
  /** The model of a judge without its own `llm`. */
  model: ModelSettings;
  question: string;
  response: string;
  reference?: string;
  position: CallPosition;
  tenant?: string;
  /** The agent's name (labels the cost) and the run's memory ID (the span's conversation). */
  agent?: string;
  conversation?: string;
  /** Who asked, for the one-line refusal at the tenant's cap: `the judge`, `the guardrail's judge`. */
  who: string;
}

/** The judge's verdict and what its call used. @throws ApplicationFailure `Tenant.BudgetReached` when the tenant's day is spent */
export async function askJudge(deps: JudgeDeps, a: JudgeAsk): Promise<JudgeVerdict & { usage: Usage }> {
  const model = a.check.llm ?? a.model;
  checkModel(deps, model, a.check.llm ? 'judge llm' : 'llm');
  const { system, prompt } = judgeRequest({ criteria: a.check.judge, question: a.question, response: a.response, ...(a.reference !== undefined ? { reference: a.reference } : {}) });
  const owner = { ...(a.agent !== undefined ? { agent: a.agent } : {}), ...(a.conversation !== undefined ? { conversation: a.conversation } : {}) };
  const answer = await withinTenantBudget(
    deps.tenantBudgets,
    a.tenant,
    () => chat(model, { system, messages: [{ role: 'user', content: prompt }], position: a.position }, deps, undefined, owner),
    () => NOT_MADE,
    Date.now,
    (r) => tenantCostOf(model, r.usage),
    (t) => tenantPriceProblem(model, t),
  );
  if (answer.tenant_budget) {
    const { tenant: t, cap_usd, spent_usd } = answer.tenant_budget;
    throw ApplicationFailure.nonRetryable(`tenant ${t}'s daily budget is spent ($${spent_usd} of $${cap_usd}): ${a.who} was not called`, 'Tenant.BudgetReached');
  }
  return { ...parseJudgeVerdict(answer.content), usage: answer.usage };
}
