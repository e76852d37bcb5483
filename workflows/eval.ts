/**
 * An eval: a suite's cases run as child runs of the agent type's workflow (at most
 * `concurrency` at once), each scored by an activity when it ends, the eval's document saved at
 * the start and the end. A worker or client killed mid-eval loses nothing: the workflow goes on
 * where its history stands, and a case's run is started once (its workflow ID is
 * `<eval_id>-<case id>`). Cancelling the eval cancels the runs still going.
 */
import { ActivityFailure, CancellationScope, CancelledFailure, ChildWorkflowFailure, executeChild, isCancellation, proxyActivities, setHandler, TerminatedFailure, TimeoutFailure } from '@temporalio/workflow';
import type { EvalActivities } from '../activities/eval';
import type { AgentDefinition, ResolvedParameters } from '../core/agent';
import type { CaseResult, EvalCheck, EvalResult } from '../core/eval/types';
import { tallyEval } from '../core/eval/results';
import { ZERO_USAGE } from '../core/llm-types';
import { causeChain, firstLine } from '../core/text';
import { evalProgressQuery, evalScoredQuery, SearchAttributes, workflowTypeFor, type RunIds, type RunWorkflow } from './definitions';
import { runStart } from './run-start';

export interface EvalCaseInput {
  id: string;
  question: string;
  reference?: string;
  checks: EvalCheck[];
  /** The run's parameters as `sparseParameters` leaves them, without its memory IDs. */
  sparse: { parameters: Partial<ResolvedParameters>; parameter_defaults?: string };
  /** The run's memory IDs, chosen by the client. */
  ids: RunIds;
  continues_conversation?: boolean;
}

export interface EvalInput {
  eval_id: string;
  /** The suite's name. */
  suite: string;
  /** The agent every case runs, resolved once. */
  agent: AgentDefinition;
  /**
   * The workflow type the cases run as, the agent type's as the client knows it (an added type's
   * too); absent in evals started before: the built-in type's.
   */
  workflow_type?: string;
  /** Most case runs at once. */
  concurrency: number;
  cases: EvalCaseInput[];
  llm_task_queue?: string;
  /** perflow's version where the eval was started: its case runs' fingerprints include it. */
  perflow_version?: string;
  /** Stamped on the eval's document. */
  tenant_id?: string;
  /**
   * The search attributes the namespace has (absent: all of perflow's): a case run set with one
   * the server lacks would not start, so the runs go without those, as `perflow run`'s do.
   */
  search_attributes?: string[];
}

// Judges call models: a crashed worker's scoring is retried after the heartbeat timeout, not the whole call's;
// a judge whose model stays unreachable fails its case after these attempts (a few minutes), not the eval.
const scoring = proxyActivities<EvalActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
// The eval's document is saved however long MongoDB is out of reach.
const saving = proxyActivities<EvalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function perflowEval(input: EvalInput): Promise<EvalResult> {
  const startedAt = new Date().toISOString();
  const scored = new Map<string, CaseResult>();
  let running = 0;
  const resultNow = (status: EvalResult['status']): EvalResult => {
    const cases = input.cases.flatMap((c) => scored.get(c.id) ?? []);
    return { eval_id: input.eval_id, suite: input.suite, agent: input.agent.name, status, started_at: startedAt, ...tallyEval(cases), cases };
  };
  const progress = () => {
    const { passed, failed } = tallyEval([...scored.values()]);
    return { total: input.cases.length, done: scored.size, passed, failed, running };
  };
  setHandler(evalProgressQuery, progress);
  setHandler(evalScoredQuery, () => ({ progress: progress(), cases: resultNow('running').cases }));
  const save = (result: EvalResult) =>
    saving.saveEval.executeWithOptions({ summary: `save eval: ${result.status}` }, [{ result, ...(input.tenant_id !== undefined ? { tenant_id: input.tenant_id } : {}) }]);
  await save(resultNow('running'));

  // Lanes taking the next case in suite order: at most `concurrency` runs at once, the same order on every replay.
  let next = 0;
  const lane = async () => {
    while (next < input.cases.length) {
      const c = input.cases[next++];
      running++;
      try {
        scored.set(c.id, await runCase(input, c));
      } finally {
        running--;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, input.cases.length)) }, lane));
  } catch (err) {
    // A cancelled eval's document says so (with the cases scored by then), not `running` for ever.
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => save({ ...resultNow('cancelled'), ended_at: new Date().toISOString() }));
    throw err;
  }
  const result = { ...resultNow('completed'), ended_at: new Date().toISOString() };
  await save(result);
  return result;
}

/** Runs a case as a child run and scores it; a run that fails or times out is a failed case. */
async function runCase(input: EvalInput, c: EvalCaseInput): Promise<CaseResult> {
  const start = runStart({ agent: input.agent, question: c.question, sparse: c.sparse, ids: c.ids, continuesConversation: c.continues_conversation, llmTaskQueue: input.llm_task_queue, version: input.perflow_version });
  const workflowId = `${input.eval_id}-${c.id}`;
  const began = Date.now();
  let outcome: Parameters<EvalActivities['scoreEvalCase']>[0]['outcome'];
  try {
    const out = await executeChild<RunWorkflow>(input.workflow_type ?? workflowTypeFor(input.agent.type), {
      workflowId,
      args: [start.input],
      memo: start.memo,
      staticSummary: start.staticSummary,
      staticDetails: start.staticDetails,
      typedSearchAttributes: [...start.searchAttributes, { key: SearchAttributes.eval, value: input.eval_id }].filter((a) => input.search_attributes?.includes(a.key.name) ?? true),
    });
    // `output` and `tripped` only when the run has them: the scoring input of runs without stays as it was.
    outcome = {
      status: out.tripped ? 'tripped' : 'completed',
      response: out.response,
      usage: out.usage,
      steps: out.steps_executed,
      ...(out.output !== undefined ? { output: out.output } : {}),
      ...(out.tripped ? { tripped: out.tripped } : {}),
    };
  } catch (err) {
    if (CancellationScope.current().consideredCancelled) throw err;
    outcome = { status: endStatus(err), response: '', error: endMessage(err), usage: ZERO_USAGE, steps: 0 };
  }
  const duration_ms = Date.now() - began;
  const scoreInput = {
    eval_id: input.eval_id,
    case: { id: c.id, question: c.question, checks: c.checks, ...(c.reference !== undefined ? { reference: c.reference } : {}) },
    workflow_id: workflowId,
    outcome,
    duration_ms,
    ids: c.ids,
    // The schema only where a check validates against it: up to 32 KB a case in the eval's history otherwise.
    agent: { name: input.agent.name, llm: input.agent.llm, ...(input.agent.output_schema !== undefined && c.checks.some((k) => 'output_valid' in k) ? { output_schema: input.agent.output_schema } : {}) },
  };
  const fingerprint = { fingerprint: String(start.memo.fingerprint) };
  try {
    return { ...(await scoring.scoreEvalCase.executeWithOptions({ summary: `score: ${c.id}` }, [scoreInput])), ...fingerprint };
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // A check that cannot be scored (a judge out of script, say) fails its case, not the eval.
    const detail = endMessage(err);
    return { id: c.id, workflow_id: workflowId, status: outcome.status, passed: false, checks: [{ check: 'scored', passed: false, detail }], usage: outcome.usage, cost_usd: outcome.usage.cost_usd ?? null, duration_ms, steps: outcome.steps, error: detail, ...fingerprint };
  }
}

/** How a child run ended that did not complete, as Temporal names it. */
function endStatus(err: unknown): string {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  if (cause instanceof TimeoutFailure) return 'timed_out';
  if (cause instanceof TerminatedFailure) return 'terminated';
  if (cause instanceof CancelledFailure) return 'canceled';
  return 'failed';
}

/** The innermost message of a failure, one line. */
const endMessage = (err: unknown): string => firstLine(causeChain(err).at(-1) ?? err);
