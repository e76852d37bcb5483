/**
 * The A2A SDK's `TaskStore` over perflow runs: a task is read from Temporal each time (runs are
 * durable; a restarted server knows every task), scoped to the caller's tenant. Kept here only
 * what Temporal does not hold: the messages a client sent on a task (its `history`, while this
 * server runs), and tasks refused before any run started (REJECTED).
 */
import type { TaskStore, ServerCallContext } from '@a2a-js/sdk/server';
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Message, type Task } from '@a2a-js/sdk';
import type { PerflowClient } from '../client/connect';
import { listQuery, queryLiteral } from '../client/ops';
import type { TenantScope } from '../client/tenant-scope';
import { NoTask, runTask } from './run-tasks';
import { scopeOf } from './callers';

/** Tasks whose messages and refusals one server remembers; the oldest are forgotten first. */
const MAX_REMEMBERED = 10_000;
/** Tasks read at once for a page of ListTasks. */
const READS_AT_ONCE = 8;

interface Refused {
  task: Task;
  tenant?: string;
}

export class RunTaskStore implements TaskStore {
  private readonly history = new Map<string, Message[]>();
  private readonly refused = new Map<string, Refused>();

  /** `agent`: the agent whose tasks ListTasks gives (the runs of other agents are not this endpoint's). */
  constructor(
    private readonly perflow: PerflowClient,
    private readonly agent: string,
  ) {}

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const scope = scopeOf(context);
    try {
      const task = await runTask(this.perflow, taskId, scope);
      task.history = [...(this.history.get(taskId) ?? [])];
      return task;
    } catch (err) {
      if (!(err instanceof NoTask)) throw err;
      const r = this.refused.get(taskId);
      return r && (scope.tenant === undefined || r.tenant === scope.tenant) ? structuredClone(r.task) : undefined;
    }
  }

  /** Keeps the task's messages; a task refused before its run started is kept whole (no run holds it). */
  async save(task: Task, context: ServerCallContext): Promise<void> {
    remember(this.history, task.id, task.history ?? []);
    if (task.status?.state === TaskState.TASK_STATE_REJECTED) remember(this.refused, task.id, { task: structuredClone(task), ...tenantOf(scopeOf(context)) });
  }

  /** The agent's runs in the caller's scope, newest first, a page at a time (the cursor is Temporal's). */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const scope = scopeOf(context);
    const { client } = this.perflow;
    let query = listQuery(undefined, this.agent, scope.tenant);
    if (params.contextId) query += ` AND PerflowMemory = ${queryLiteral(params.contextId)}`;
    const pageSize = params.pageSize ?? 50;
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize,
      ...(params.pageToken ? { nextPageToken: Buffer.from(params.pageToken, 'base64url') } : {}),
    });
    const ids = (page.executions ?? []).map((e) => e.execution?.workflowId ?? '').filter((id) => id !== '');
    const tasks: Task[] = new Array(ids.length);
    let next = 0;
    const read = async () => {
      for (let i = next++; i < ids.length; i = next++) tasks[i] = (await this.load(ids[i], context).catch(() => undefined)) ?? (undefined as never);
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, ids.length) }, read));
    const wanted = tasks.filter((t) => t !== undefined && (!params.status || t.status?.state === params.status)).map((t) => (params.includeArtifacts ? t : { ...t, artifacts: [] }));
    const token = page.nextPageToken && page.nextPageToken.length > 0 ? Buffer.from(page.nextPageToken).toString('base64url') : '';
    const total = await client.workflow.count(query).then((c) => c.count, () => wanted.length);
    return { tasks: wanted, nextPageToken: token, pageSize, totalSize: total };
  }
}

const tenantOf = (scope: TenantScope) => (scope.tenant !== undefined ? { tenant: scope.tenant } : {});

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, value);
}
