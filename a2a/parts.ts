/**
 * The A2A objects `perflow a2a` sends (messages, parts, status updates, artifacts), in the SDK's
 * v1.0 shapes: one place that knows them, so the task store and the executor word them alike.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part, type TaskStatus, type TaskStatusUpdateEvent } from '@a2a-js/sdk';

/** Where perflow's own fields sit in an A2A object's `metadata`. */
export const META = 'perflow';

export const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} });

export const dataPart = (data: Record<string, unknown>): Part => ({ content: { $case: 'data', value: data }, mediaType: 'application/json', filename: '', metadata: {} });

/** A message of the agent's on a task. */
export function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { messageId: randomUUID(), taskId, contextId, role: Role.ROLE_AGENT, parts, metadata: {}, extensions: [], referenceTaskIds: [] };
}

/** A task's status: its state, with the agent's message when it says something. */
export function status(taskId: string, contextId: string, state: TaskState, parts: Part[] | undefined, at = new Date().toISOString()): TaskStatus {
  return { state, message: parts ? agentMessage(taskId, contextId, parts) : undefined, timestamp: at };
}

/** A status update; `offset` is the run's stream offset it comes from (given back to re-attach). */
export function statusUpdate(taskId: string, contextId: string, s: TaskStatus, offset?: number): TaskStatusUpdateEvent {
  return { taskId, contextId, status: s, metadata: offset !== undefined ? { [META]: { offset } } : {} };
}

/** The one artifact a completed run gives; its ID is the run's, so a re-read task has the same. */
export function answerArtifact(workflowId: string, response: string, data: Record<string, unknown>): Artifact {
  return { artifactId: `${workflowId}/answer`, name: 'answer', description: "The agent's answer, and the run's IDs, steps and cost.", parts: [textPart(response), dataPart(data)], metadata: {}, extensions: [] };
}

/** The states after which a task takes no message. */
export const TERMINAL: readonly TaskState[] = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED];

/** The text of a message's text parts, joined. */
export function messageText(m: Message | undefined): string {
  return (m?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n').trim();
}

/** The first data part's value of a message, if it has one that is an object. */
export function messageData(m: Message | undefined): Record<string, unknown> | undefined {
  for (const p of m?.parts ?? []) {
    const v: unknown = p.content?.$case === 'data' ? p.content.value : undefined;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  }
  return undefined;
}
