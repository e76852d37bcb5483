/** What every agent workflow does the same way at the start of a run and when it fails. */
import { isCancellation, log, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities, AgentTool } from '../activities';
import type { AgentDefinition, ResolvedParameters } from '../core/agent';
import { formatDatetime, injectDatetime } from '../core/datetime';
import type { RunIds } from './definitions';

// Listing MCP servers' tools may need a server to start: a few retries, then fail clearly.
const { describeTools } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** The run's four memory IDs: the client's (or the continued conversation's memory_id), else new ones. */
export function runIdsFor(input: { ids?: Partial<RunIds>; memory_id?: string }): RunIds {
  return {
    memory_id: input.memory_id ?? input.ids?.memory_id ?? uuid4(),
    parent_interaction_id: input.ids?.parent_interaction_id ?? uuid4(),
    executor_agent_memory_id: input.ids?.executor_agent_memory_id ?? uuid4(),
    executor_agent_parent_interaction_id: input.ids?.executor_agent_parent_interaction_id ?? uuid4(),
  };
}

/** The agent's tools and MCP servers' tools, listed once (an activity, so recorded in history). */
export async function listTools(agent: AgentDefinition): Promise<AgentTool[]> {
  // Runs started before agent files had `mcp_servers` carry none in their input.
  const mcpServers = (agent.mcp_servers as AgentDefinition['mcp_servers'] | undefined) ?? [];
  const hasTools = agent.tools.length > 0 || mcpServers.length > 0;
  return hasTools ? describeTools({ tools: agent.tools, mcp_servers: mcpServers }) : [];
}

/** Both system prompts with the date appended when `inject_datetime` is on (workflow time: replay-safe). */
export function withDatetime(p: ResolvedParameters, planner: string, executor: string): { planner: string; executor: string } {
  if (!p.inject_datetime) return { planner, executor };
  const { text, warning } = formatDatetime(Date.now(), p.datetime_format);
  if (warning) log.warn(warning);
  return { planner: injectDatetime(planner, text), executor: injectDatetime(executor, text) };
}

/** The deepest message of a failure's cause chain, for people. */
export function causeMessage(err: unknown): string {
  if (isCancellation(err)) return 'the run was cancelled';
  let message = '';
  for (let e = err as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.message) message = e.message; // the deepest cause that says something
  }
  return message || String(err);
}
