/**
 * An eval's activities: scoring a case's ended run against its checks (judges call their model
 * here), and keeping the eval's document in MongoDB.
 */
import type { ModelConfig } from '../core/agent-file/model';
import type { CaseObservation, CaseResult, EvalCheck, EvalResult } from '../core/eval/types';
import { casePassed, scoreCase, tripReason } from '../core/eval/checks';
import type { GuardrailVerdict } from '../core/guardrail-verdict';
import type { Usage } from '../core/llm-types';
import type { RunIds } from '../core/memory-ids';
import { saveEval } from '../stores/evals';
import type { MemoryStore } from '../stores/store';
import type { ChatDeps } from './llm/chat';
import { withHeartbeat } from './heartbeat';
import { askJudge } from './judge-call';
import type { PolicyDeps } from './policy';
import type { TenantBudgets } from '../stores/tenant-budgets';

export interface ScoreCaseInput {
  eval_id: string;
  case: { id: string; question: string; reference?: string; checks: EvalCheck[] };
  workflow_id: string;
  /**
   * How the run ended, as the eval workflow saw it (usage and steps of a run that did not complete
   * are 0): status `tripped` when a guardrail stopped it (`tripped`: which and why); `output`: its
   * typed answer, when it gave one.
   */
  outcome: { status: string; response: string; error?: string; usage: Usage; steps: number; output?: unknown; tripped?: GuardrailVerdict };
  /** Workflow time from the child's start to its end. */
  duration_ms: number;
  /** The run's memory IDs: its tool calls are read from there. */
  ids: RunIds;
  /**
   * The agent's name (labels the judge's cost), `llm` (the model of judges without their own) and
   * `output_schema` (sent only for a case with an `output_valid` check).
   */
  agent: { name: string; llm: ModelConfig; output_schema?: Record<string, unknown> };
}

/** The names of the tools a run called, in order, from its executor memory (every agent type records its calls there). */
export async function toolsCalled(store: MemoryStore, ids: RunIds): Promise<string[]> {
  const prefix = `${ids.executor_agent_parent_interaction_id}:step-`;
  const calls = await store.interactions
    .find({ memory_id: ids.executor_agent_memory_id, origin: 'tool' }, { projection: { tool_name: 1, step_index: 1, trace_number: 1 } })
    .toArray();
  return calls
    .filter((c) => c._id.startsWith(prefix))
    .sort((a, b) => (a.step_index ?? 0) - (b.step_index ?? 0) || (a.trace_number ?? 0) - (b.trace_number ?? 0))
    .map((c) => c.tool_name ?? '');
}

/** What scoring needs: the model clients, the worker policy, the memory and the tenants' budgets (judges count into the case's tenant). */
type EvalDeps = ChatDeps & PolicyDeps & { memory: MemoryStore; tenantBudgets: () => TenantBudgets };

export function createEvalActivities(deps: EvalDeps) {
  return {
    /** Scores a case's ended run (see {@link scoreEvalCase}). */
    scoreEvalCase: (input: ScoreCaseInput): Promise<CaseResult> => withHeartbeat(() => scoreEvalCase(deps, input)),

    /** Upserts the eval's document (`perflow_evals`). */
    async saveEval(input: { result: EvalResult; tenant_id?: string }): Promise<void> {
      await saveEval(deps.memory, input.result, input.tenant_id);
    },
  };
}

export type EvalActivities = ReturnType<typeof createEvalActivities>;

/**
 * Scores a case's ended run (a case passes when its run completed, or tripped as a `tripped`
 * check expects, and every check passed). A judge's model call answers `script.judge[N]` when
 * scripted (N: the judge's place among the case's judges); its tokens are not the case's: the
 * usage checks measure the agent's run.
 */
async function scoreEvalCase(deps: EvalDeps, input: ScoreCaseInput): Promise<CaseResult> {
  const { outcome } = input;
  const error = outcome.error ?? (outcome.tripped ? tripReason(outcome.tripped) : undefined);
  const obs: CaseObservation = {
    status: outcome.status,
    response: outcome.response,
    ...(error !== undefined ? { error } : {}),
    ...(outcome.output !== undefined ? { output: outcome.output } : {}),
    ...(input.agent.output_schema !== undefined ? { output_schema: input.agent.output_schema } : {}),
    ...(outcome.tripped ? { tripped: outcome.tripped } : {}),
    tools_called: await toolsCalled(deps.memory, input.ids),
    steps: outcome.steps,
    usage: outcome.usage,
    duration_ms: input.duration_ms,
  };
  let judged = 0;
  // A judge's call is the case's tenant's (its run's memory names it): counted into its day, held to its cap.
  let tenant: Promise<string | undefined> | undefined;
  const checks = await scoreCase(input.case.checks, obs, async (check, o) => {
    tenant ??= deps.memory.memoryOwner(input.ids.memory_id).then((owner) => owner?.tenant_id);
    const position = { role: 'task' as const, kind: 'judge' as const, call: judged++ };
    const reference = input.case.reference !== undefined ? { reference: input.case.reference } : {};
    const t = await tenant;
    return askJudge(deps, { check, model: input.agent.llm, question: input.case.question, response: o.response, ...reference, position, ...(t !== undefined ? { tenant: t } : {}), agent: input.agent.name, who: 'the judge' });
  });
  return {
    id: input.case.id,
    workflow_id: input.workflow_id,
    status: outcome.status,
    passed: casePassed(obs, checks, input.case.checks),
    checks,
    usage: outcome.usage,
    cost_usd: outcome.usage.cost_usd ?? null,
    duration_ms: input.duration_ms,
    steps: outcome.steps,
    ...(error !== undefined ? { error } : {}),
  };
}
