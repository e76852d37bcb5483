/**
 * MCP Tasks (specification 2025-11-25, experimental) over perflow runs: a task is a run this
 * server started for a tool call made as a task; its ID is the run's workflow ID, its status
 * Temporal's, its result the run's answer. Nothing is kept here but which session started which
 * task: the run itself is durable, so a task's result outlives a worker crash, and `perflow
 * status ID` reads it whatever becomes of this server.
 */
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { PerflowClient } from '../client/connect';
import { cancelRun } from '../client/ops';
import { progressQuery } from '../workflows/definitions';
import { endOf, toolResult } from './agent-runs';

/** How often a client is asked to poll a task (ms). */
export const TASK_POLL_MS = 1_000;
/** Tasks one server remembers; the oldest are forgotten first (their runs stay). */
const MAX_TASKS = 10_000;

interface OwnedTask {
  sessionId?: string;
  memoryId: string;
  ttl: number | null;
  createdAt: string;
  cancelRequested?: true;
}

/** Temporal's status of a run as a task's. */
const TASK_STATUS: Record<string, Task['status']> = { RUNNING: 'working', COMPLETED: 'completed', CANCELLED: 'cancelled', FAILED: 'failed', TERMINATED: 'failed', TIMED_OUT: 'failed', CONTINUED_AS_NEW: 'working' };

export class RunTaskStore implements TaskStore {
  private readonly tasks = new Map<string, OwnedTask>();

  constructor(private readonly perflow: PerflowClient) {}

  /** `taskParams.context` names the run: `{ workflowId, memoryId }` (set by the tool call that started it). */
  async createTask(taskParams: CreateTaskOptions, _requestId: RequestId, _request: Request, sessionId?: string): Promise<Task> {
    const { workflowId, memoryId } = taskParams.context as { workflowId: string; memoryId: string };
    const createdAt = new Date().toISOString();
    if (this.tasks.size >= MAX_TASKS) this.tasks.delete(this.tasks.keys().next().value!);
    this.tasks.set(workflowId, { ...(sessionId !== undefined ? { sessionId } : {}), memoryId, ttl: taskParams.ttl ?? null, createdAt });
    return { taskId: workflowId, status: 'working', ttl: taskParams.ttl ?? null, createdAt, lastUpdatedAt: createdAt, pollInterval: TASK_POLL_MS };
  }

  /** The task of a session: another session's, or a run this server did not start, is not found. */
  private owned(taskId: string, sessionId?: string): OwnedTask | undefined {
    const t = this.tasks.get(taskId);
    return t && t.sessionId === sessionId ? t : undefined;
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const t = this.owned(taskId, sessionId);
    if (!t) return null;
    const handle = this.perflow.client.workflow.getHandle(taskId);
    const d = await handle.describe();
    let status = TASK_STATUS[d.status.name] ?? 'failed';
    // A cancel asked for is the task's status at once (the run ends cancelled a moment later).
    if (status === 'working' && t.cancelRequested) status = 'cancelled';
    const progress = status === 'working' ? await handle.query(progressQuery).catch(() => undefined) : undefined;
    const statusMessage = progress ? `${progress.status}, ${progress.steps_executed} steps done${(progress.pending ?? []).length > 0 ? `; waiting for a person: ${progress.pending![0].answer[0] ?? 'perflow pending'}` : ''}` : undefined;
    const updated = (d.closeTime ?? new Date()).toISOString();
    return { taskId, status, ttl: t.ttl, createdAt: t.createdAt, lastUpdatedAt: updated, pollInterval: TASK_POLL_MS, ...(statusMessage ? { statusMessage } : {}) };
  }

  /** Nothing to store: the run holds its result. */
  async storeTaskResult(): Promise<void> {}

  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const t = this.owned(taskId, sessionId);
    if (!t) throw new Error(`task ${taskId} not found`);
    return toolResult(await endOf(this.perflow, taskId, t.memoryId));
  }

  /** `cancelled` cancels the run; other statuses are Temporal's to say. */
  async updateTaskStatus(taskId: string, status: Task['status'], _statusMessage?: string, sessionId?: string): Promise<void> {
    const t = this.owned(taskId, sessionId);
    if (!t || status !== 'cancelled') return;
    t.cancelRequested = true;
    await cancelRun(this.perflow.client, taskId);
  }

  async listTasks(_cursor?: string, sessionId?: string): Promise<{ tasks: Task[] }> {
    const mine = [...this.tasks.keys()].filter((id) => this.owned(id, sessionId));
    const tasks = await Promise.all(mine.slice(-100).map((id) => this.getTask(id, sessionId)));
    return { tasks: tasks.filter((t): t is Task => t !== null) };
  }
}
