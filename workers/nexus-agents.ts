/**
 * A worker's agents as a Nexus service (`perflow worker --nexus-agents DIR`): the operation
 * `runAgent` starts the named agent file of DIR — read here, from the folder the operator
 * chose, never a path a caller sent — as an ordinary perflow run in this worker's namespace,
 * and answers with its result. Cancelling the caller's operation cancels the run.
 */
import { join } from 'node:path';
import * as nexus from 'nexus-rpc';
import { startWorkflow, WorkflowRunOperationHandler } from '@temporalio/nexus';
import { agentTypeSpec, isAgentTool, parseAgentDefinition, resolveParameters, sparseParameters, type AgentDefinition } from '../core/agent';
import { perflowAgentsService, SERVED_AGENT_NAME, type NexusAgentInput, type NexusAgentOutput } from '../core/nexus-agents';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { runStart } from '../workflows/run-start';

/** The Nexus service handler of the agent files in `dir`. */
export function nexusAgentsHandler(dir: string): nexus.ServiceHandler<(typeof perflowAgentsService)['operations']> {
  return nexus.serviceHandler(perflowAgentsService, {
    runAgent: new WorkflowRunOperationHandler<NexusAgentInput, NexusAgentOutput>(async (ctx, input) => {
      if (typeof input?.agent !== 'string' || !SERVED_AGENT_NAME.test(input.agent)) throw new nexus.HandlerError('BAD_REQUEST', `agent must name an agent file of this worker's folder (letters, digits, "_", "-"), got ${JSON.stringify(input?.agent)}`);
      if (typeof input.question !== 'string' || input.question.trim() === '') throw new nexus.HandlerError('BAD_REQUEST', 'question must be a non-empty string');
      const agent = await servedAgent(dir, input.agent);
      const own = agent.parameters.max_cost_usd;
      const { memory_id: _m, executor_agent_memory_id: _e, ...parameters } = resolveParameters(agent, {
        ...(input.tenant_id !== undefined ? { tenant_id: input.tenant_id } : {}),
        ...(input.max_cost_usd !== undefined ? { max_cost_usd: Math.min(own ?? Infinity, input.max_cost_usd), budget_action: 'stop' } : {}),
      });
      const ids = { memory_id: input.memory_id ?? randomUUID(), parent_interaction_id: randomUUID(), executor_agent_memory_id: randomUUID(), executor_agent_parent_interaction_id: randomUUID() };
      const start = runStart({ agent, question: input.question, sparse: sparseParameters(parameters), ids, continuesConversation: input.memory_id !== undefined });
      // Without perflow's search attributes: the serving namespace may not have them.
      return startWorkflow(ctx, agentTypeSpec(agent.type).workflowType, {
        workflowId: input.workflow_id,
        args: [start.input],
        memo: start.memo,
        staticSummary: start.staticSummary,
        staticDetails: start.staticDetails,
      });
    }),
  });
}

/** A served agent file, parsed; its problems are the caller's bad request, in one line. */
async function servedAgent(dir: string, name: string): Promise<AgentDefinition> {
  try {
    const agent = parseAgentDefinition(JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8')) as unknown, { toolTypes: 'any' });
    if (agent.tools.some(isAgentTool)) throw new Error('a served agent cannot list agent tools (its sub-agents would be read by the client that starts it)');
    return agent;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new nexus.HandlerError(missing ? 'NOT_FOUND' : 'BAD_REQUEST', missing ? `this worker serves no agent "${name}"` : `agent "${name}": ${(err as Error).message}`);
  }
}
