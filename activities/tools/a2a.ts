/**
 * Remote agents over A2A (`@a2a-js/sdk`'s client): the Agent Card read when a run starts, and a
 * call as a message followed until the remote task ends or asks for input. Every request goes
 * through the worker policy (a host it does not allow is refused before the request, redirects
 * are not followed), and a call's IDs are derived from where it stands in the run, so a retried
 * activity finds the task its earlier attempt created instead of creating another.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AgentCard, Message, Part, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { AgentTool, ToolObservation } from '../../core/activity-contract';
import type { ToolEntry } from '../../core/agent';
import { A2A_TOOL_INPUT_SCHEMA, a2aToolDescription, a2aToolName, type A2AInputRequest, type A2AReply, type A2AToolParameters } from '../../core/a2a-tool';
import { toolTimeoutSeconds } from '../../core/tool-types';
import type { SecretReader } from './mcp';

/** The SDK (client side, ~0.2 s to load), loaded by a worker's first remote agent. */
/* eslint-disable @typescript-eslint/no-require-imports */
const a2aSdk = () => ({
  ...(require('@a2a-js/sdk') as typeof import('@a2a-js/sdk')),
  ...(require('@a2a-js/sdk/client') as typeof import('@a2a-js/sdk/client')),
});
/* eslint-enable @typescript-eslint/no-require-imports */

/** Where a call stands in its run: what its message and context IDs are derived from. */
export interface A2ACallPlace {
  /** The workflow execution that makes the call (the step's executor). */
  workflow_id: string;
  run_id: string;
  step: number;
  call: number;
}

/** A name-based UUID (version 8 layout) of `parts`: the same parts give the same ID. */
function derivedUuid(kind: string, parts: ReadonlyArray<string | number>): string {
  const hex = createHash('sha256').update([kind, ...parts].join('\n')).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The `messageId` of a call's `turn`-th message (1: the model's; then each person's answer): the same for every attempt of the activity. */
export function a2aMessageId(place: A2ACallPlace, turn: number): string {
  return derivedUuid('perflow-a2a-message', [place.workflow_id, place.run_id, place.step, place.call, turn]);
}

/** The `contextId` of a call's task: a retried first send finds the task it created by it. */
export function a2aContextId(place: A2ACallPlace): string {
  return derivedUuid('perflow-a2a-context', [place.workflow_id, place.run_id, place.step, place.call]);
}

/** The card's URL: the `url` itself when it names a `.json` file, else its well-known path under it. */
export function agentCardUrl(url: string): string {
  return /\.json$/i.test(new URL(url).pathname) ? url : `${url.replace(/\/+$/, '')}/.well-known/agent-card.json`;
}

/** Throws (a refusal naming the rule) when the policy does not let agent files reach `url`. */
export type HostCheck = (url: string) => void;

/** `fetch` held to the policy: every request's host checked first, the token added, redirects refused. */
function policyFetch(check: HostCheck, token: string | undefined): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    check(url);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers, redirect: 'error' });
  };
}

/** What reaching a remote agent needs from the worker: its policy and its variables. */
export interface A2AAccess {
  check: HostCheck;
  /** The worker's variables as the policy lets agent files read them. */
  secret: SecretReader;
}

function tokenOf(name: string, p: A2AToolParameters, secret: SecretReader): string | undefined {
  if (p.token_env === undefined) return undefined;
  const token = secret(p.token_env);
  if (token === undefined) throw new Error(`remote agent "${name}": token_env ${p.token_env} is not set in the worker's environment`);
  return token;
}

/** Reads the remote agent's card (the policy checks its host first). */
export async function readAgentCard(name: string, p: A2AToolParameters, access: A2AAccess): Promise<AgentCard> {
  const { DefaultAgentCardResolver } = a2aSdk();
  const resolver = new DefaultAgentCardResolver({ fetchImpl: policyFetch(access.check, tokenOf(name, p, access.secret)) });
  return resolver.resolve(agentCardUrl(p.url), '');
}

async function connect(name: string, p: A2AToolParameters, access: A2AAccess): Promise<Client> {
  const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } = a2aSdk();
  const fetchImpl = policyFetch(access.check, tokenOf(name, p, access.secret));
  // Each request of the client (the card, then its endpoint, wherever the card points) goes through fetchImpl.
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }), clientConfig: { polling: true } });
  return factory.createFromUrl(agentCardUrl(p.url), '');
}

/** A call of a remote agent: the model's message, or a person's answer to the remote task's question (`reply`). */
export interface A2ACall {
  name: string;
  parameters: A2AToolParameters;
  message: string;
  place: A2ACallPlace;
  reply?: A2AReply;
  /** Records the remote task's ID where a retried attempt finds it (the activity's heartbeat details). */
  remember(details: A2AHeartbeat): void;
  /** What an earlier attempt of this activity remembered. */
  remembered?: A2AHeartbeat;
}

/** What an attempt remembers in its heartbeat details. */
export interface A2AHeartbeat {
  a2a_task_id: string;
}

const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

/** What a remote agent's call gives the model, or its question for a person. */
export type A2AResult = ToolObservation & { input_required?: A2AInputRequest };

/**
 * Sends the call's message (or finds the task an earlier attempt sent it to) and follows the task
 * until it ends or asks for input, heartbeating; an activity cancelled meanwhile cancels the
 * remote task. Remote failures are error observations naming the agent.
 */
export async function callA2AAgent(call: A2ACall, access: A2AAccess): Promise<A2AResult> {
  const { name, parameters } = call;
  const seconds = toolTimeoutSeconds(parameters as unknown as Record<string, unknown>);
  const deadline = Date.now() + seconds * 1_000;
  const signal = cancellationSignal();
  const client = await connect(name, parameters, access);
  const turn = call.reply?.turn ?? 1;
  const messageId = a2aMessageId(call.place, turn);
  const contextId = call.reply?.context_id ?? a2aContextId(call.place);
  const { taskStateToJSON } = a2aSdk();
  const state = (t: Task) => taskStateToJSON(t.status?.state ?? 0);

  let task = await findSent(client, call, messageId, contextId);
  if (task === undefined) {
    const sent = await client.sendMessage(sendRequest(call, messageId, contextId), { signal });
    if ('messageId' in sent) return { content: partsText((sent as Message).parts), is_error: false };
    task = sent as Task;
  }
  call.remember({ a2a_task_id: task.id });
  const cancelRemote = (why: string) => client.cancelTask({ tenant: '', id: task!.id, metadata: { reason: why } }).catch(() => undefined);
  let wait = 200;
  // A task still showing the question this call answers has not read the answer yet.
  const unread = (t: Task) => call.reply !== undefined && questionId(t) === call.reply.question_id;
  while ((!TERMINAL.has(state(task)) && !INTERRUPTED.has(state(task))) || unread(task)) {
    if (signal.aborted) {
      await cancelRemote('the calling run was cancelled');
      throw signal.reason;
    }
    if (Date.now() >= deadline) {
      await cancelRemote(`no answer within ${seconds} s`);
      return { content: `Error: remote agent "${name}" did not answer within ${seconds} s (task ${task.id}, cancelled)`, is_error: true };
    }
    await sleep(wait, undefined, { signal }).catch(() => undefined);
    wait = Math.min(wait * 2, 2_000);
    if (!signal.aborted) task = await client.getTask({ tenant: '', id: task.id, historyLength: 0 });
    call.remember({ a2a_task_id: task.id });
  }
  const said = partsText(task.status?.message?.parts ?? []);
  switch (state(task)) {
    case 'TASK_STATE_COMPLETED': {
      const produced = task.artifacts.map((a) => partsText(a.parts)).filter((t) => t !== '');
      const content = [...produced, ...(said !== '' && !produced.includes(said) ? [said] : [])].join('\n');
      return { content: content === '' ? `(remote agent "${name}" completed task ${task.id} without an answer)` : content, is_error: false };
    }
    case 'TASK_STATE_INPUT_REQUIRED':
      return { content: `The remote agent "${name}" asks: ${said || '(no question given)'}`, is_error: false, input_required: { task_id: task.id, context_id: task.contextId, question: said || '(no question given)', turn, question_id: questionId(task) } };
    case 'TASK_STATE_AUTH_REQUIRED':
      await cancelRemote('perflow cannot authenticate mid-task');
      return { content: `Error: remote agent "${name}" asked for authentication mid-task (task ${task.id}, cancelled)${said ? `: ${said}` : ''}`, is_error: true };
    default:
      return { content: `Error: remote agent "${name}" ${state(task) === 'TASK_STATE_REJECTED' ? 'rejected' : state(task) === 'TASK_STATE_CANCELED' ? 'cancelled' : 'failed'} the task (${task.id})${said ? `: ${said}` : ''}`, is_error: true };
  }
}

const questionId = (t: Task): string => t.status?.message?.messageId || t.status?.timestamp || '';

/** Cancels a remote task whose question a person declined to answer. */
export async function cancelA2ATask(name: string, parameters: A2AToolParameters, taskId: string, reason: string, access: A2AAccess): Promise<void> {
  const client = await connect(name, parameters, access);
  await client.cancelTask({ tenant: '', id: taskId, metadata: { reason } });
}

function cancellationSignal(): AbortSignal {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return new AbortController().signal; // outside an activity (tests of the function itself)
  }
}

/** The task this message went to already: remembered by an earlier attempt, else found by its derived context, else none. */
async function findSent(client: Client, call: A2ACall, messageId: string, contextId: string): Promise<Task | undefined> {
  const holds = (t: Task) => t.history.some((m) => m.messageId === messageId);
  const known = call.remembered?.a2a_task_id ?? call.reply?.task_id;
  if (known !== undefined) {
    const task = await client.getTask({ tenant: '', id: known });
    // A reply not yet delivered is sent; a task remembered by an attempt is this call's.
    return call.reply && !holds(task) && call.remembered === undefined ? undefined : task;
  }
  // The attempt that sent may have died before it remembered the task: the derived context finds it.
  try {
    const { TaskState } = a2aSdk();
    const { tasks } = await client.listTasks({ tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
    // Listed tasks leave their artifacts out: the one found is read whole.
    const found = tasks.find(holds) ?? (await Promise.all(tasks.map((t) => client.getTask({ tenant: '', id: t.id })))).find(holds);
    return found && (await client.getTask({ tenant: '', id: found.id }));
  } catch {
    return undefined; // an agent without ListTasks: the message is sent
  }
}

function sendRequest(call: A2ACall, messageId: string, contextId: string) {
  const { SendMessageRequest } = a2aSdk();
  return SendMessageRequest.fromJSON({
    message: { messageId, contextId, ...(call.reply ? { taskId: call.reply.task_id } : {}), role: 'ROLE_USER', parts: [{ text: call.message }] },
    configuration: { returnImmediately: true },
  });
}

/** Text and data parts as the model reads them (data as JSON; a file by its name or URL). */
export function partsText(parts: readonly Part[]): string {
  return parts
    .map((p) => {
      const c = p.content;
      if (!c) return '';
      if (c.$case === 'text') return c.value;
      if (c.$case === 'data') return JSON.stringify(c.value);
      if (c.$case === 'url') return `[file ${p.filename || c.value}: ${c.value}]`;
      return `[file ${p.filename || 'unnamed'}, ${p.mediaType || 'bytes'}]`;
    })
    .filter((t) => t !== '')
    .join('\n');
}

/**
 * A remote agent as the model sees it: the entry's name and description, else its card's (name,
 * description, skills). A card that cannot be read is logged and the tool described by its URL:
 * a call then reports what fails.
 */
export async function describeA2AAgent(ref: ToolEntry, access: A2AAccess, warn: (message: string, attrs: Record<string, unknown>) => void): Promise<AgentTool> {
  const parameters = ref.parameters as unknown as A2AToolParameters;
  let card: AgentCard | undefined;
  try {
    card = await readAgentCard(ref.name ?? parameters.url, parameters, access);
  } catch (err) {
    if (err instanceof ApplicationFailure && err.nonRetryable) throw err; // the policy's refusal
    warn('remote agent: its Agent Card could not be read; described by its URL', { url: parameters.url, error: (err as Error).message });
  }
  const name = a2aToolName(ref.name, card);
  return { spec: { name, description: a2aToolDescription(parameters.url, card, ref.description), input_schema: A2A_TOOL_INPUT_SCHEMA }, ref: { ...ref, name } };
}
