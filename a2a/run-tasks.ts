/**
 * A run as an A2A task, read from Temporal alone (no state of `perflow a2a`'s own): a restarted
 * server, or another one, knows every task. The task's ID is the run's workflow ID, its
 * `contextId` the run's conversation (memory ID).
 */
import { isNotFound, PerflowError } from '../client/errors';
import type { PerflowClient } from '../client/connect';
import type { TenantScope } from '../client/tenant-scope';
import { oneLine } from '../core/text';
import type { PendingDecision } from '../core/decisions';
import { progressQuery, SearchAttributes, type Progress } from '../workflows/definitions';
import { TaskState, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';
import { endOf, type AgentRunEnd } from '../mcp/agent-runs';
import { answerArtifact, dataPart, META, status, textPart } from './parts';

/** No such task for this caller: unknown, or another tenant's (the same answer, so existence is not revealed). */
export class NoTask extends PerflowError {
  constructor(id: string) {
    super('not_found', `no task ${id}`);
  }
}

/** What a pending decision asks, in words, and the choices that answer it. */
export function askFor(p: PendingDecision): Part[] {
  const choices = p.kind === 'budget' ? ['raise', 'reject'] : ['approve', 'reject'];
  const what =
    p.kind === 'plan'
      ? `The plan awaits approval: ${(p.plan ?? []).map((s, i) => `${i + 1}. ${s}`).join(' | ')}.`
      : p.kind === 'tool' && typeof (p as { question?: unknown }).question === 'string'
        ? `The agent ${p.tool ?? ''} asks: ${String((p as { question?: unknown }).question)} (answer with a data part {"decision": "approve", "input": {"message": "…"}}).`
        : p.kind === 'tool'
          ? `The tool call ${p.tool ?? ''} ${JSON.stringify(p.input ?? {})} awaits approval.`
          : p.kind === 'budget'
            ? `The run reached its budget (${p.budget?.cost_usd ?? '?'} of ${p.budget?.max_cost_usd ?? '?'} USD).`
            : `A check asks a person: ${JSON.stringify((p as { guardrail?: unknown }).guardrail ?? p.id)}.`;
  const how =
    p.kind === 'budget'
      ? 'Answer with a data part {"decision": "raise", "usd": N}, or "reject" to stop the run.'
      : `Answer "approve" or "reject" (text), or a data part {"decision": "approve"|"reject", "reason"?: string${p.kind === 'plan' ? ', "steps"?: [string]' : p.kind === 'tool' ? ', "input"?: {…}' : ''}}.`;
  const { answer: _cli, ...pending } = p;
  return [textPart(oneLine(`${what} ${how}`)), dataPart({ pending, choices })];
}

/** A running run's status: the decision it waits for, else what it does. */
export function runningStatus(taskId: string, contextId: string, p: Progress | undefined): TaskStatus {
  const pending = p?.pending?.[0];
  if (pending) return status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, askFor(pending));
  if (!p) return status(taskId, contextId, TaskState.TASK_STATE_WORKING, undefined);
  const step = p.current_step ? `: step ${p.current_step.index} ${p.current_step.step}` : '';
  return status(taskId, contextId, TaskState.TASK_STATE_WORKING, [textPart(oneLine(`${p.status}${step}`))]);
}

/** The run's IDs, steps and cost (and typed `output`), as the answer's data part carries them. */
export function endData(end: AgentRunEnd): Record<string, unknown> {
  const { response: _r, error: _e, ...data } = end;
  return data;
}

/** An ended run's status, and its answer's artifact when it completed. */
export function endedStatus(taskId: string, contextId: string, end: AgentRunEnd, at?: string): { status: TaskStatus; artifact?: ReturnType<typeof answerArtifact> } {
  if (end.status === 'completed') return { status: status(taskId, contextId, TaskState.TASK_STATE_COMPLETED, undefined, at), artifact: answerArtifact(taskId, end.response, endData(end)) };
  if (end.status === 'cancelled') return { status: status(taskId, contextId, TaskState.TASK_STATE_CANCELED, [textPart('The run was cancelled.')], at) };
  // A tripped run's response says which guardrail stopped it and why.
  const reason = end.status === 'tripped' ? end.response : `The run ${end.status}${end.error ? `: ${end.error}` : ''}`;
  return { status: status(taskId, contextId, TaskState.TASK_STATE_FAILED, [textPart(oneLine(reason))], at) };
}

/**
 * The task of run `id` as Temporal knows it now, or {@link NoTask} when there is no such run or it
 * is outside `scope`.
 */
export async function runTask(perflow: PerflowClient, id: string, scope: TenantScope): Promise<Task> {
  const handle = perflow.client.workflow.getHandle(id);
  const d = await handle.describe().catch((err: unknown) => Promise.reject(isNotFound(err) ? new NoTask(id) : err));
  if (scope.tenant !== undefined && d.memo?.tenant_id !== scope.tenant) throw new NoTask(id);
  const running = d.status.name === 'RUNNING' || d.status.name === 'CONTINUED_AS_NEW';
  const progress = running ? await handle.query(progressQuery).catch(() => undefined) : undefined;
  const memoryAttr = d.typedSearchAttributes.get(SearchAttributes.memory);
  let contextId = memoryAttr ?? progress?.memory_id ?? '';
  let taskStatus: TaskStatus;
  const artifacts = [];
  if (running) {
    taskStatus = runningStatus(id, contextId, progress);
  } else {
    const end = await endOf(perflow, id, contextId);
    contextId ||= end.memory_id;
    const ended = endedStatus(id, contextId, end, d.closeTime?.toISOString());
    taskStatus = ended.status;
    if (ended.artifact) artifacts.push(ended.artifact);
  }
  const agent = typeof d.memo?.agent === 'string' ? d.memo.agent : undefined;
  return { id, contextId, status: taskStatus, artifacts, history: [], metadata: { [META]: { workflow_id: id, memory_id: contextId, ...(agent ? { agent } : {}) } } };
}
