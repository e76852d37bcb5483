/**
 * Remote A2A agents where the tool-call activities meet them: the run's remote agents described
 * at its start, and one call made from inside its activity — its IDs from the activity's
 * workflow and the call's place, the remote task remembered in the activity's heartbeat details
 * so a retried attempt re-attaches to it.
 */
import { Context, log } from '@temporalio/activity';
import type { AgentTool, AgentToolRef, ToolObservation } from '../../core/activity-contract';
import type { ToolEntry } from '../../core/agent';
import { isA2AAgentTool, type A2AReply, type A2AToolParameters } from '../../core/a2a-tool';
import type { ToolCallPlace } from '../../core/memory-ids';
import { callA2AAgent, cancelA2ATask, describeA2AAgent, type A2AAccess, type A2ACallPlace, type A2AHeartbeat } from './a2a';

/** The remote agents among an agent's tools, each described by its card (after the policy allowed them). */
export async function describeA2AAgents(tools: readonly ToolEntry[], accessOf: (ref: ToolEntry) => A2AAccess): Promise<Map<ToolEntry, AgentTool>> {
  const described = new Map<ToolEntry, AgentTool>();
  for (const ref of tools.filter(isA2AAgentTool)) described.set(ref, await describeA2AAgent(ref, accessOf(ref), (m, a) => log.warn(m, a)));
  return described;
}

/** What a remote agent's call gets from its activity besides the access. */
export interface A2AToolCall extends A2AAccess {
  place: ToolCallPlace;
  /** Heartbeats with details a retried attempt reads. */
  beat: (details: unknown) => void;
  reply?: A2AReply;
  decline?: string;
}

/** One call of a remote agent: the model's message (or a person's answer) sent, its task followed; any failure an error observation naming the agent. */
export async function callA2AAgentTool(ref: AgentToolRef, input: Record<string, unknown>, call: A2AToolCall): Promise<ToolObservation> {
  const name = ref.name ?? ref.type;
  const parameters = ref.parameters as unknown as A2AToolParameters;
  const message = input.message;
  const access = { check: call.check, secret: call.secret };
  if (call.decline === undefined && (typeof message !== 'string' || message.trim() === '')) return { content: `Error: invalid input for ${name}: expected {"message": non-empty string}`, is_error: true };
  try {
    if (call.reply && call.decline !== undefined) {
      await cancelA2ATask(name, parameters, call.reply.task_id, call.decline, access);
      return { content: `Error: the remote agent "${name}" asked a question that was not answered (${call.decline}); its task ${call.reply.task_id} was cancelled`, is_error: true };
    }
    const info = activityInfo();
    const place: A2ACallPlace = { workflow_id: info?.workflowExecution?.workflowId ?? '', run_id: info?.workflowExecution?.runId ?? '', step: call.place.stepIndex, call: call.place.callIndex };
    const remembered = info?.heartbeatDetails as A2AHeartbeat | undefined;
    return await callA2AAgent({ name, parameters, message: String(message), place, ...(call.reply ? { reply: call.reply } : {}), ...(remembered?.a2a_task_id ? { remembered } : {}), remember: call.beat }, access);
  } catch (err) {
    if (cancelled()) throw err;
    return { content: `Error: remote agent "${name}" failed: ${(err as Error).message}`, is_error: true };
  }
}

const cancelled = (): boolean => {
  try {
    return Context.current().cancellationSignal.aborted;
  } catch {
    return false;
  }
};

function activityInfo(): Context['info'] | undefined {
  try {
    return Context.current().info;
  } catch {
    return undefined;
  }
}
