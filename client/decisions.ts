/**
 * People's decisions on running agents: approve, edit or reject a plan, approve or deny a tool
 * call, guide, pause and resume, raise a run's dollar budget — each a workflow Update the run validates before accepting —
 * and the runs waiting for one (`PerflowPending`).
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import {
  guideUpdate,
  pauseUpdate,
  planDecisionUpdate,
  progressQuery,
  raiseBudgetUpdate,
  resumeUpdate,
  SearchAttributes,
  toolDecisionUpdate,
  type DecisionRecord,
  type PendingDecision,
  type PlanDecision,
  type ToolDecision,
} from '../workflows/definitions';
import { PerflowError } from './errors';
import { parseJson, readTextFile } from './json-file';
import { lenientClient } from './payloads';
import { listQuery, needingSearchAttributes } from './ops';

/** Who decides (free text, recorded with the decision). */
export interface DecidedBy {
  by?: string;
}

/** Sends a decision; a rejected one (the run's validator said no) becomes a one-line error. */
async function decide<A>(client: Client, workflowId: string, update: { name: string }, arg: A): Promise<DecisionRecord> {
  try {
    return await client.workflow.getHandle(workflowId).executeUpdate(update as never, { args: [arg] as never });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      throw new PerflowError('conflict', `${workflowId} did not accept the ${update.name} decision: ${(err.cause as Error | undefined)?.message ?? err.message}`, { cause: err });
    }
    // The server answers "not found" for a run that has ended; say which it is.
    const status = err instanceof WorkflowNotFoundError ? await client.workflow.getHandle(workflowId).describe().then((d) => d.status.name, () => undefined) : undefined;
    if (status !== undefined) throw new PerflowError('conflict', `${workflowId} did not accept the ${update.name} decision: the run has ended (${status.toLowerCase()})`, { cause: err });
    throw err;
  }
}

/** Approves the plan awaiting approval, or runs `steps` instead of it (an edit). */
export function approvePlan(client: Client, workflowId: string, o: DecidedBy & { steps?: string[]; decisionId?: string } = {}): Promise<DecisionRecord> {
  const d: PlanDecision = { action: 'approve', ...(o.steps ? { steps: o.steps } : {}), ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, planDecisionUpdate, d);
}

/** Rejects the plan awaiting approval: the planner is asked again with the reason, or (`stop`) the run ends with it. */
export function rejectPlan(client: Client, workflowId: string, o: DecidedBy & { reason: string; stop?: boolean; decisionId?: string }): Promise<DecisionRecord> {
  const d: PlanDecision = { action: 'reject', reason: o.reason, ...(o.stop ? { stop: true } : {}), ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, planDecisionUpdate, d);
}

/** Approves the oldest tool call awaiting approval, optionally with another input (checked against the tool's schema). */
export function approveTool(client: Client, workflowId: string, o: DecidedBy & { input?: Record<string, unknown>; decisionId?: string } = {}): Promise<DecisionRecord> {
  const d: ToolDecision = { action: 'approve', ...(o.input ? { input: o.input } : {}), ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, toolDecisionUpdate, d);
}

/** Denies the oldest tool call awaiting approval; the model gets the reason as the call's observation. */
export function denyTool(client: Client, workflowId: string, o: DecidedBy & { reason: string; decisionId?: string }): Promise<DecisionRecord> {
  const d: ToolDecision = { action: 'deny', reason: o.reason, ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, toolDecisionUpdate, d);
}

/** Guidance for a running agent: its next planning call sees it as user feedback. */
export function guideRun(client: Client, workflowId: string, text: string, o: DecidedBy = {}): Promise<DecisionRecord> {
  return decide(client, workflowId, guideUpdate, { text, ...by(o) });
}

/** Pauses a run at its next point between steps. */
export function pauseRun(client: Client, workflowId: string, o: DecidedBy & { reason?: string } = {}): Promise<DecisionRecord> {
  return decide(client, workflowId, pauseUpdate, { ...by(o), ...(o.reason ? { reason: o.reason } : {}) });
}

/** Resumes a paused run. */
export function resumeRun(client: Client, workflowId: string, o: DecidedBy = {}): Promise<DecisionRecord> {
  return decide(client, workflowId, resumeUpdate, by(o));
}

/** Raises the run's `max_cost_usd` to `usd` (above its cost so far); a run waiting at its budget goes on. */
export function raiseBudget(client: Client, workflowId: string, o: DecidedBy & { usd: number }): Promise<DecisionRecord> {
  return decide(client, workflowId, raiseBudgetUpdate, { usd: o.usd, ...by(o) });
}

const by = (o: DecidedBy) => (o.by !== undefined ? { by: o.by } : {});

/** A run waiting for a person, as `perflow pending` lists it. */
export interface PendingRun {
  workflow_id: string;
  agent?: string;
  /** `plan`, `budget`, `tool` or `paused`. */
  waiting_for: string;
  pending: PendingDecision[];
}

/** Runs waiting for a decision or paused (via the `PerflowPending` search attribute), with what each waits for. */
export async function listPending(client: Client, limit = 100, tenant?: string): Promise<PendingRun[]> {
  return needingSearchAttributes(client, 'pending', () => pendingRuns(client, limit, tenant));
}

/** How long `pending` waits for one run's answer: a run whose workers are down is listed without its details rather than holding up the others. */
const PENDING_QUERY_MS = 5_000;
/** Runs asked at once. */
const PENDING_QUERIES_AT_ONCE = 8;

async function pendingRuns(client: Client, limit: number, tenant?: string): Promise<PendingRun[]> {
  const listed: WorkflowExecutionInfo[] = [];
  const query = `${listQuery('running', undefined, tenant)} AND PerflowPending IN ('plan', 'budget', 'tool', 'paused')`;
  for await (const wf of lenientClient(client).workflow.list({ query })) {
    listed.push(wf);
    if (listed.length >= limit) break;
  }
  const out: PendingRun[] = new Array(listed.length);
  let next = 0;
  const ask = async () => {
    for (let i = next++; i < listed.length; i = next++) {
      const wf = listed[i];
      const progress = await client
        .withDeadline(Date.now() + PENDING_QUERY_MS, () => client.workflow.getHandle(wf.workflowId).query(progressQuery))
        .catch(() => undefined);
      const agent = wf.memo?.agent;
      out[i] = {
        workflow_id: wf.workflowId,
        ...(typeof agent === 'string' ? { agent } : {}),
        waiting_for: wf.typedSearchAttributes.get(SearchAttributes.pending) ?? 'unknown',
        pending: progress?.pending ?? [],
      };
    }
  };
  await Promise.all(Array.from({ length: Math.min(PENDING_QUERIES_AT_ONCE, listed.length) }, ask));
  return out;
}

/** The steps of an edited plan from a file: a JSON array of strings, or one step per non-empty line. */
export async function readStepsFile(file: string): Promise<string[]> {
  const text = await readTextFile(file, 'steps file');
  if (text.trim().startsWith('[')) {
    const steps = parseJson(text, `steps file ${file}`);
    if (!Array.isArray(steps) || steps.some((s) => typeof s !== 'string')) throw new PerflowError('invalid', `steps file ${file} must hold a JSON array of strings`);
    return steps as string[];
  }
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
}
