/**
 * The A2A request handler of one offered agent: the SDK's `DefaultRequestHandler` over perflow's
 * task store and executor, with what it cannot know done here — a message is checked before
 * anything starts (text only, no inline agent; an answer only to a task waiting for input), a
 * cancel cancels the run and waits for its end, and a subscription reads the run's durable
 * event stream from the offset the client last saw (`Last-Event-ID`), so a stream re-attached
 * after a drop or a server restart loses no update and repeats none. Push notification configs
 * are checked against the worker policy before they are stored (push-configs.ts); the server's
 * notifier, not the SDK's sender, delivers them (push-notifier.ts).
 */
import { DefaultRequestHandler, type A2ARequestHandler, type PushNotificationSender, type ServerCallContext } from '@a2a-js/sdk/server';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { TaskState, type SendMessageRequest, type StreamResponse, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { PerflowClient } from '../client/connect';
import { PerflowError } from '../client/errors';
import { cancelRun } from '../client/ops';
import { QUESTION_MAX_CHARS } from '../core/agent-file/limits';
import type { OfferedAgent } from '../mcp/agent-tools';
import { handlerCard } from './agent-cards';
import { callerGone } from './callers';
import { answerOf } from './answers';
import { RunExecutor } from './executor';
import { messageText, TERMINAL } from './parts';
import { checkPushConfig, type MongoPushConfigStore } from './push-configs';
import { runUpdates } from './run-updates';
import { RunTaskStore } from './task-store';

/** How long a cancel waits for the run to end before answering with the task as it is. */
const CANCEL_WAIT_MS = 30_000;

export interface AgentHandlerOptions {
  perflow: PerflowClient;
  agent: OfferedAgent;
  agentsDir: string;
  /** The server's base URL (the card's interfaces name it). */
  baseUrl: string;
  /** Where push notification configs are kept (one store for the server's agents). */
  pushConfigs: MongoPushConfigStore;
}

/** The SDK's own sender is not used: notifications go through durable delivery workflows (push-notifier.ts). */
const NOT_SENT_HERE: PushNotificationSender = { send: async () => undefined };

/** The handler of one agent's endpoint. */
export function agentHandler(o: AgentHandlerOptions): A2ARequestHandler {
  const store = new RunTaskStore(o.perflow, o.agent.agent);
  const inner = new DefaultRequestHandler(handlerCard(o.agent, o.baseUrl), store, new RunExecutor(o), undefined, o.pushConfigs, NOT_SENT_HERE);
  return new PerflowRequestHandler(inner, store, o.perflow);
}

class PerflowRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly inner: DefaultRequestHandler,
    private readonly store: RunTaskStore,
    private readonly perflow: PerflowClient,
  ) {}

  getAgentCard = () => this.inner.getAgentCard();
  getAuthenticatedExtendedAgentCard: A2ARequestHandler['getAuthenticatedExtendedAgentCard'] = (p, c) => this.inner.getAuthenticatedExtendedAgentCard(p, c);
  getTask: A2ARequestHandler['getTask'] = (p, c) => this.inner.getTask(p, c);
  listTasks: A2ARequestHandler['listTasks'] = (p, c) => this.inner.listTasks(p, c);

  async sendMessage(params: SendMessageRequest, context: ServerCallContext) {
    await this.check(params, context);
    return this.inner.sendMessage(params, context);
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    await this.check(params, context);
    yield* this.inner.sendMessageStream(params, context);
  }

  /** A message is taken only when it can be: refused here, before any run starts or any decision is sent. */
  private async check(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    const m = params.message;
    if (!m) throw new RequestMalformedError('a message is required');
    // A receiver the policy does not allow is refused before anything starts.
    const push = params.configuration?.taskPushNotificationConfig;
    if (push) checkPushConfig(push, this.perflow);
    if (m.taskId) {
      const task = await this.store.load(m.taskId, context);
      if (!task) throw new TaskNotFoundError(`no task ${m.taskId}`);
      if (task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) return void refusedAsMalformed(() => answerOf(m));
      if (!TERMINAL.includes(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
        throw new UnsupportedOperationError(`the task ${m.taskId} is working: it takes a message when it waits for input (INPUT_REQUIRED); a new question is a new task (same contextId to continue the conversation)`);
      }
      return; // a terminal task: the SDK's handler refuses it in its words
    }
    // The question is text: a data or file part could carry an agent definition, which is never taken inline.
    if (m.parts.some((p) => p.content?.$case !== 'text')) throw new RequestMalformedError('a new task takes text parts only (the agent is this endpoint\'s agent file; inline agents, data and files are refused)');
    const question = messageText(m);
    if (question === '') throw new RequestMalformedError('the message has no text: send the question as a text part');
    if (question.length > QUESTION_MAX_CHARS) throw new RequestMalformedError(`the question has ${question.length} characters, above the limit of ${QUESTION_MAX_CHARS}`);
  }

  /** Cancels the run (idempotent) and answers once it has ended (CANCELED), or with the task as it is after a while. */
  async cancelTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    const task = await this.store.load(params.id, context);
    if (!task) throw new TaskNotFoundError(`no task ${params.id}`);
    if (task.status?.state === TaskState.TASK_STATE_CANCELED) return task;
    if (TERMINAL.includes(task.status!.state)) throw new TaskNotCancelableError(`the task ${params.id} has ended`);
    await cancelRun(this.perflow.client, params.id);
    const ended = this.perflow.client.workflow.getHandle(params.id).result().catch(() => undefined);
    await Promise.race([ended, new Promise((r) => setTimeout(r, CANCEL_WAIT_MS).unref())]);
    return (await this.store.load(params.id, context)) ?? task;
  }

  /** The task as it is now, then its updates from the client's last seen offset (`Last-Event-ID`), else from the run's start. */
  async *resubscribe(params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.store.load(params.id, context);
    if (!task) throw new TaskNotFoundError(`no task ${params.id}`);
    if (TERMINAL.includes(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) throw new UnsupportedOperationError(`the task ${params.id} has ended: GetTask reads it`);
    yield { payload: { $case: 'task', value: task } };
    const from = lastSeen(context);
    const gone = callerGone(context);
    for await (const u of runUpdates(this.perflow, params.id, task.contextId, { ...(from !== undefined ? { from: from + 1 } : {}), ...(gone ? { signal: gone } : {}) })) {
      yield u.kind === 'statusUpdate' ? { payload: { $case: 'statusUpdate', value: u.data } } : { payload: { $case: 'artifactUpdate', value: u.data } };
    }
  }

  /** Checked before the task is even looked up: a refused receiver is never stored. */
  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    checkPushConfig(params, this.perflow);
    return this.inner.createTaskPushNotificationConfig(params, context);
  }
  getTaskPushNotificationConfig: A2ARequestHandler['getTaskPushNotificationConfig'] = (p, c) => this.inner.getTaskPushNotificationConfig(p, c);
  listTaskPushNotificationConfigs: A2ARequestHandler['listTaskPushNotificationConfigs'] = (p, c) => this.inner.listTaskPushNotificationConfigs(p, c);
  deleteTaskPushNotificationConfig: A2ARequestHandler['deleteTaskPushNotificationConfig'] = (p, c) => this.inner.deleteTaskPushNotificationConfig(p, c);
}

function refusedAsMalformed(check: () => unknown): void {
  try {
    check();
  } catch (err) {
    if (err instanceof PerflowError) throw new RequestMalformedError(err.message);
    throw err;
  }
}

/** The offset a re-attaching client saw last: its `Last-Event-ID` header (each streamed update's `id`). */
function lastSeen(context: ServerCallContext): number | undefined {
  const headers = context.state.get('headers') as Record<string, string | string[] | undefined> | undefined;
  const raw = headers?.['last-event-id'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
