/**
 * An agent tool's call: the sub-agent runs as a child workflow of the executor step that called
 * it (`<step>/agent-<n>`), of its own agent type, with its own memory, the caller's tenant and
 * what is left of the caller's dollar budget. Its answer is the observation; its usage counts in
 * the step (so in the run's and the root's); cancelling the caller cancels it.
 */
import { ChildWorkflowFailure, createNexusServiceClient, isCancellation, startChild, uuid4, workflowInfo } from '@temporalio/workflow';
import { NexusOperationFailure } from '@temporalio/common';
import { perflowAgentsService, type NexusAgentInput, type NexusAgentOutput } from '../../core/nexus-agents';
import type { AgentToolRef, ToolObservation } from '../../core/activity-contract';
import { agentToolName, subAgentOf } from '../../core/agent-file/sub-agents';
import { QUESTION_MAX_CHARS } from '../../core/agent-file/limits';
import { ZERO_USAGE, type Usage } from '../../core/llm-types';
import type { ToolCallPlace } from '../../core/memory-ids';
import { causeChain, firstLine } from '../../core/text';
import type { RunIds, RunOutput, RunWorkflow, SubAgentPlace } from './definitions';
import { runStart } from './run-start';
import { agentToolEnded, agentToolStarted } from './activity-presets';

/** What the calling step hands its sub-agent. */
export interface SubAgentCaller {
  /** Agent names from the root to the calling run. */
  path: string[];
  tenant?: string;
  /** Dollars the step may still spend: the sub-agent's `max_cost_usd` (at most its own). */
  budget_usd?: number;
  llm_task_queue?: string;
  /** The search attributes the calling run has: the sub-agent's run is given those of its own. */
  search_attributes: string[];
  /** The tree's perflow version (its root's): part of the sub-agent's fingerprint. */
  version?: string;
}

/** An agent tool's call: its observation and the usage of the sub-agent's run. */
export async function callSubAgent(ref: AgentToolRef, input: Record<string, unknown>, place: ToolCallPlace, caller: SubAgentCaller): Promise<{ observation: ToolObservation; usage: Usage }> {
  const sub = subAgentOf(ref);
  const name = ref.name ?? ref.type;
  if (!sub) return failed(`Error: tool "${name}" has no sub-agent (the run was started without its agent file)`);
  const asked = questionOf(input, name);
  if ('error' in asked) return failed(asked.error);
  const { question, memory_id } = asked;
  const info = workflowInfo();
  const workflowId = `${info.workflowId}/agent-${place.callIndex + 1}`;
  const ids: RunIds = { memory_id: memory_id ?? uuid4(), parent_interaction_id: uuid4(), executor_agent_memory_id: uuid4(), executor_agent_parent_interaction_id: uuid4() };
  const own = sub.sparse.parameters.max_cost_usd;
  const budget = caller.budget_usd === undefined ? own : Math.min(own ?? Infinity, caller.budget_usd);
  // At the caller's budget a sub-agent stops with what it has (budget_action stop): the wait for
  // more money is the root's, where one `raise-budget ROOT` answers it for the whole tree.
  const callersBudget = caller.budget_usd !== undefined && (own === undefined || caller.budget_usd <= own);
  const parameters = {
    ...sub.sparse.parameters,
    ...(caller.tenant !== undefined ? { tenant_id: caller.tenant } : {}),
    ...(budget !== undefined ? { max_cost_usd: budget } : {}),
    ...(callersBudget ? { budget_action: 'stop' as const } : {}),
  };
  const start = runStart({ agent: sub.definition, question, sparse: { ...sub.sparse, parameters }, ids, continuesConversation: memory_id !== undefined, llmTaskQueue: caller.llm_task_queue, version: caller.version });
  const place_: SubAgentPlace = { path: [...caller.path, sub.definition.name], parent_workflow_id: info.workflowId, root_workflow_id: info.root?.workflowId ?? info.workflowId };
  const record = { name: agentToolName(ref, sub), agent: sub.definition.name, input, place, sub_run: { workflow_id: workflowId, memory_id: ids.memory_id } };
  // The namespace's perflow search attributes, as the calling run has them (a child set with one the server lacks would not start).
  const present = new Set(caller.search_attributes);
  let output: RunOutput | undefined;
  let error: string | undefined;
  try {
    const child = await startChild<RunWorkflow>(sub.workflow_type, {
      workflowId,
      args: [{ ...start.input, sub_agent: place_ }],
      memo: { ...start.memo, agent_path: place_.path, parent_workflow_id: place_.parent_workflow_id, root_workflow_id: place_.root_workflow_id },
      staticSummary: `${place_.path.join(' → ')}: ${start.staticSummary}`,
      staticDetails: start.staticDetails,
      typedSearchAttributes: start.searchAttributes.filter((a) => present.has(a.key.name)),
    });
    // Announced once the run exists: a tree's stream follows it from this event.
    await agentToolStarted.executeWithOptions({ summary: `agent tool: ${record.name}` }, [record]);
    output = await child.result();
  } catch (err) {
    if (!(err instanceof ChildWorkflowFailure) || isCancellation(err)) throw err;
    error = firstLine(causeChain(err).at(-1) ?? err);
  }
  const content = output
    ? `${output.response}\n[${sub.definition.name} answered in run ${workflowId}; memory_id "${ids.memory_id}" continues its conversation]`
    : `Error: agent "${sub.definition.name}" failed (run ${workflowId}): ${error}`;
  const observation = await agentToolEnded.executeWithOptions({ summary: `agent tool ended: ${record.name}` }, [{ ...record, content, is_error: output === undefined }]);
  return { observation, usage: output?.usage ?? ZERO_USAGE };
}

const failed = (content: string) => ({ observation: { content, is_error: true }, usage: ZERO_USAGE });

/** What an agent tool's call asks (`{question, memory_id?}`), or why the model's input is not that. */
function questionOf(input: Record<string, unknown>, name: string): { question: string; memory_id?: string } | { error: string } {
  const { question, memory_id } = input;
  if (typeof question !== 'string' || question.trim() === '' || question.length > QUESTION_MAX_CHARS || (memory_id !== undefined && typeof memory_id !== 'string')) {
    return { error: `Error: invalid input for ${name}: expected {"question": non-empty string of at most ${QUESTION_MAX_CHARS} characters, "memory_id"?: string}` };
  }
  return { question, ...(memory_id !== undefined ? { memory_id } : {}) };
}

/**
 * A Nexus agent tool's call: the agent runs in the namespace behind the endpoint, as a run of the
 * worker that serves it (`perflow worker --nexus-agents DIR`), under the workflow ID this call
 * chooses (`<step>/agent-K`: a retried start finds its run). Cancelling the caller cancels the
 * operation, so the run; a failure there is an error observation here.
 */
export async function callNexusAgent(ref: AgentToolRef, input: Record<string, unknown>, place: ToolCallPlace, caller: SubAgentCaller): Promise<{ observation: ToolObservation; usage: Usage }> {
  const { endpoint, agent } = ref.parameters as { endpoint: string; agent: string };
  const name = ref.name ?? agent;
  const asked = questionOf(input, name);
  if ('error' in asked) return failed(asked.error);
  const { question, memory_id } = asked;
  const workflowId = `${workflowInfo().workflowId}/agent-${place.callIndex + 1}`;
  const record = { name, agent, input, place, sub_run: { workflow_id: workflowId, memory_id: memory_id ?? '' }, elsewhere: { endpoint } };
  const call: NexusAgentInput = {
    agent,
    question,
    workflow_id: workflowId,
    ...(memory_id !== undefined ? { memory_id } : {}),
    ...(caller.tenant !== undefined ? { tenant_id: caller.tenant } : {}),
    ...(caller.budget_usd !== undefined ? { max_cost_usd: caller.budget_usd } : {}),
  };
  let output: NexusAgentOutput | undefined;
  let error: string | undefined;
  try {
    const operation = await createNexusServiceClient({ endpoint, service: perflowAgentsService }).startOperation('runAgent', call);
    await agentToolStarted.executeWithOptions({ summary: `agent tool: ${name} (Nexus endpoint ${endpoint})` }, [record]);
    output = await operation.result();
  } catch (err) {
    if (!(err instanceof NexusOperationFailure) || isCancellation(err)) throw err;
    error = firstLine(causeChain(err).at(-1) ?? err);
  }
  const content = output
    ? `${output.response}\n[${agent} answered through the Nexus endpoint ${endpoint} in run ${workflowId}; memory_id "${output.memory_id}" continues its conversation]`
    : `Error: agent "${agent}" failed through the Nexus endpoint ${endpoint}: ${error}`;
  const observation = await agentToolEnded.executeWithOptions({ summary: `agent tool ended: ${name}` }, [{ ...record, sub_run: { workflow_id: workflowId, memory_id: output?.memory_id ?? record.sub_run.memory_id }, content, is_error: output === undefined }]);
  return { observation, usage: output?.usage ?? ZERO_USAGE };
}
