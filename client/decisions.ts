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
  type Progress,
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

/** A decision as the run that took it recorded it, with that run's ID (a descendant's, when the root's ID was given). */
export type RoutedDecision = DecisionRecord & { workflow_id: string };

/**
 * Sends a decision; a rejected one (the run's validator said no) becomes a one-line error. A
 * decision that answers a wait (`waiting`) given to a run that does not wait so goes to its
 * oldest descendant that does — an agent tree has one inbox, at its root.
 */
async function decide<A>(client: Client, given: string, update: { name: string }, arg: A, waiting?: WaitKind): Promise<RoutedDecision> {
  const workflowId = waiting ? await waiterIn(client, given, waiting) : given;
  try {
    return { ...(await client.workflow.getHandle(workflowId).executeUpdate(update as never, { args: [arg] as never })), workflow_id: workflowId };
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
export function approvePlan(client: Client, workflowId: string, o: DecidedBy & { steps?: string[]; decisionId?: string } = {}): Promise<RoutedDecision> {
  const d: PlanDecision = { action: 'approve', ...(o.steps ? { steps: o.steps } : {}), ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, planDecisionUpdate, d, 'plan');
}

/** Rejects the plan awaiting approval: the planner is asked again with the reason, or (`stop`) the run ends with it. */
export function rejectPlan(client: Client, workflowId: string, o: DecidedBy & { reason: string; stop?: boolean; decisionId?: string }): Promise<RoutedDecision> {
  const d: PlanDecision = { action: 'reject', reason: o.reason, ...(o.stop ? { stop: true } : {}), ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, planDecisionUpdate, d, 'plan');
}

/** Approves the oldest tool call awaiting approval, optionally with another input (checked against the tool's schema). */
export function approveTool(client: Client, workflowId: string, o: DecidedBy & { input?: Record<string, unknown>; decisionId?: string } = {}): Promise<RoutedDecision> {
  const d: ToolDecision = { action: 'approve', ...(o.input ? { input: o.input } : {}), ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, toolDecisionUpdate, d, 'tool');
}

/** Denies the oldest tool call awaiting approval; the model gets the reason as the call's observation. */
export function denyTool(client: Client, workflowId: string, o: DecidedBy & { reason: string; decisionId?: string }): Promise<RoutedDecision> {
  const d: ToolDecision = { action: 'deny', reason: o.reason, ...by(o), ...(o.decisionId ? { decision_id: o.decisionId } : {}) };
  return decide(client, workflowId, toolDecisionUpdate, d, 'tool');
}

/** Guidance for a running agent: its next planning call sees it as user feedback. */
export function guideRun(client: Client, workflowId: string, text: string, o: DecidedBy = {}): Promise<RoutedDecision> {
  return decide(client, workflowId, guideUpdate, { text, ...by(o) });
}

/** Pauses a run at its next point between steps. */
export function pauseRun(client: Client, workflowId: string, o: DecidedBy & { reason?: string } = {}): Promise<RoutedDecision> {
  return decide(client, workflowId, pauseUpdate, { ...by(o), ...(o.reason ? { reason: o.reason } : {}) });
}

/** Resumes a paused run. */
export function resumeRun(client: Client, workflowId: string, o: DecidedBy = {}): Promise<RoutedDecision> {
  return decide(client, workflowId, resumeUpdate, by(o), 'paused');
}

/** Raises the run's `max_cost_usd` to `usd` (above its cost so far); a run waiting at its budget goes on. */
export function raiseBudget(client: Client, workflowId: string, o: DecidedBy & { usd: number }): Promise<RoutedDecision> {
  return decide(client, workflowId, raiseBudgetUpdate, { usd: o.usd, ...by(o) }, 'budget');
}

/** What a run waits for, as its `PerflowPending` search attribute says. */
type WaitKind = 'plan' | 'tool' | 'budget' | 'paused';

/**
 * The run that answers a `kind` decision given to `workflowId`: the run itself when it waits so
 * (or cannot be asked), else its descendant that has waited longest (sub-agents' runs have IDs
 * under their root's: `<root>/step-N/agent-M…`), else the run itself (whose validator then says
 * nothing waits).
 */
async function waiterIn(client: Client, workflowId: string, kind: WaitKind): Promise<string> {
  // approve and reject answer a failed `ask` guardrail as they answer a plan.
  const kinds: string[] = kind === 'plan' ? ['plan', 'guardrail'] : [kind];
  const waitsSo = (p: Progress | undefined) => (kind === 'paused' ? p?.status === 'paused' : (p?.pending ?? []).some((d) => kinds.includes(d.kind)));
  const since = (p: Progress) => (kind === 'paused' ? '' : (p.pending ?? []).filter((d) => kinds.includes(d.kind)).map((d) => d.since).sort()[0] ?? '');
  const own = await client.workflow.getHandle(workflowId).query(progressQuery).catch(() => undefined);
  if (own === undefined || waitsSo(own)) return workflowId;
  const query = `WorkflowId STARTS_WITH ${JSON.stringify(`${workflowId}/`)} AND ExecutionStatus = 'Running' AND ${SearchAttributes.pending.name} IN (${kinds.map((k) => `'${k}'`).join(', ')})`;
  const waiting: Array<{ id: string; since: string }> = [];
  try {
    for await (const wf of lenientClient(client).workflow.list({ query })) {
      const p = await client.workflow.getHandle(wf.workflowId).query(progressQuery).catch(() => undefined);
      if (p !== undefined && waitsSo(p)) waiting.push({ id: wf.workflowId, since: since(p) });
      if (waiting.length >= 100) break;
    }
  } catch {
    return workflowId; // a namespace without perflow's search attributes has no tree inbox
  }
  waiting.sort((a, b) => a.since.localeCompare(b.since) || a.id.localeCompare(b.id));
  return waiting[0]?.id ?? workflowId;
}

const by = (o: DecidedBy) => (o.by !== undefined ? { by: o.by } : {});

/** A run waiting for a person, as `perflow pending` lists it. */
export interface PendingRun {
  workflow_id: string;
  agent?: string;
  /** `plan`, `budget`, `tool`, `guardrail` or `paused`. */
  waiting_for: string;
  /** A sub-agent's run: its tree's root (whose ID answers it too) and the agent names from the root to it. */
  root_workflow_id?: string;
  agent_path?: string[];
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
  const query = `${listQuery('running', undefined, tenant)} AND PerflowPending IN ('plan', 'budget', 'tool', 'guardrail', 'paused')`;
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
      const { agent, root_workflow_id, agent_path } = wf.memo ?? {};
      out[i] = {
        workflow_id: wf.workflowId,
        ...(typeof agent === 'string' ? { agent } : {}),
        ...(typeof root_workflow_id === 'string' && Array.isArray(agent_path) ? { root_workflow_id, agent_path: agent_path.map(String) } : {}),
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
