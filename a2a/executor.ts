/**
 * The A2A SDK's `AgentExecutor` for one offered agent: a task's first message starts a run
 * (the task's ID is its workflow ID, the `contextId` its conversation: a known one is continued,
 * under the busy-conversation rule), a message on a task waiting for input answers the decision it
 * waits for; then the run's updates are published until it ends or waits for a person again.
 * A run refused before it started (worker policy, a parameter bound, a busy conversation) is a
 * REJECTED task.
 */
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { PerflowClient } from '../client/connect';
import { PerflowError, failureMessage } from '../client/errors';
import { cancelRun } from '../client/ops';
import { loadAgentFile, startRun } from '../client/run';
import { withMemory } from '../client/stores';
import { paramsInScope, type TenantScope } from '../client/tenant-scope';
import { checkWorkerPolicy } from '../client/worker-policy';
import { oneLine } from '../core/text';
import { progressQuery } from '../workflows/definitions';
import type { OfferedAgent } from '../mcp/agent-tools';
import { scopeOf } from './callers';
import { answerOf, sendAnswer } from './answers';
import { META, messageText, status, textPart } from './parts';
import { runUpdates } from './run-updates';

export interface RunExecutorOptions {
  perflow: PerflowClient;
  agent: OfferedAgent;
  /** The agents folder: sub-agent files must lie in it. */
  agentsDir: string;
}

export class RunExecutor implements AgentExecutor {
  constructor(private readonly o: RunExecutorOptions) {}

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const scope = scopeOf(rc.context);
    if (rc.task) await this.answer(rc, rc.task, bus, scope);
    else await this.start(rc, bus, scope);
  }

  /** Cancels the run; its stream's end publishes CANCELED. */
  async cancelTask(taskId: string): Promise<void> {
    await cancelRun(this.o.perflow.client, taskId);
  }

  private async start(rc: RequestContext, bus: ExecutionEventBus, scope: TenantScope): Promise<void> {
    const { perflow, agent, agentsDir } = this.o;
    const { taskId, contextId } = rc;
    const history = [rc.userMessage];
    try {
      const continues = await conversationExists(perflow, contextId, scope);
      const { agent: definition, parameters } = await loadAgentFile(agent.file, paramsInScope({}, scope), {
        extraToolTypes: perflow.config.extraToolTypes,
        subAgentsWithin: agentsDir,
        ...(perflow.config.limits ? { limits: perflow.config.limits } : {}),
      });
      checkWorkerPolicy(definition, perflow.config);
      await startRun(perflow, { agent: definition, parameters, question: messageText(rc.userMessage), workflowId: taskId, onBusy: 'reject', ...(continues ? { memoryId: contextId } : { newMemoryId: contextId }) });
    } catch (err) {
      // What the caller or the operator can fix is the task's refusal; an outage fails the request.
      if (!(err instanceof PerflowError) || err.kind === 'unavailable') throw err;
      bus.publish(AgentEvent.task(task(taskId, contextId, TaskState.TASK_STATE_REJECTED, oneLine(err.message), history)));
      return;
    }
    bus.publish(AgentEvent.task(task(taskId, contextId, TaskState.TASK_STATE_WORKING, `started ${agent.agent}`, history)));
    await this.follow(taskId, contextId, bus);
  }

  /** A message on a task waiting for input: the answer to the decision it waits for. */
  private async answer(rc: RequestContext, current: Task, bus: ExecutionEventBus, scope: TenantScope): Promise<void> {
    const { client } = this.o.perflow;
    const { taskId, contextId } = rc;
    const history = [...current.history.filter((m) => m.messageId !== rc.userMessage.messageId), rc.userMessage];
    const pending = (await client.workflow.getHandle(taskId).query(progressQuery).catch(() => undefined))?.pending?.[0];
    let said: string;
    try {
      if (!pending) throw new PerflowError('conflict', `the task ${taskId} waits for no decision now`);
      const d = await sendAnswer(client, taskId, pending, answerOf(rc.userMessage), `a2a:${scope.tenant ?? 'operator'}`);
      said = `${d.kind} ${d.action} (${pending.id})`;
    } catch (err) {
      if (!(err instanceof PerflowError) || err.kind === 'unavailable') throw err;
      // Not taken: the task still waits, and says why the answer was not.
      bus.publish(AgentEvent.task({ ...current, history, status: { ...current.status!, message: status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, [textPart(`not taken: ${oneLine(failureMessage(err))}`)]).message } }));
      return;
    }
    bus.publish(AgentEvent.task(task(taskId, contextId, TaskState.TASK_STATE_WORKING, said, history)));
    await this.follow(taskId, contextId, bus, pending.id);
  }

  private async follow(taskId: string, contextId: string, bus: ExecutionEventBus, after?: string): Promise<void> {
    for await (const u of runUpdates(this.o.perflow, taskId, contextId, { stopAtInput: true, ...(after !== undefined ? { after } : {}) })) {
      bus.publish(u.kind === 'statusUpdate' ? AgentEvent.statusUpdate(u.data) : AgentEvent.artifactUpdate(u.data));
    }
  }
}

function task(id: string, contextId: string, state: TaskState, text: string, history: Message[]): Task {
  return { id, contextId, status: status(id, contextId, state, [textPart(text)]), artifacts: [], history, metadata: { [META]: { workflow_id: id, memory_id: contextId } } };
}

/**
 * Whether `contextId` names a conversation to continue: one of the caller's tenant. Another
 * tenant's is refused (its messages are not the caller's to read on).
 */
async function conversationExists(perflow: PerflowClient, contextId: string, scope: TenantScope): Promise<boolean> {
  const owner = await withMemory(perflow, (memory) => memory.memoryOwner(contextId), 3_000);
  if (!owner) return false;
  if (owner.tenant_id !== scope.tenant) throw new PerflowError('refused', `the conversation ${contextId} cannot be continued by this caller: send a new contextId`);
  return true;
}
