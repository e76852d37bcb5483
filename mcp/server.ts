/**
 * `perflow mcp`: perflow agents as MCP tools. Each agent file of a folder is a tool; a call is an
 * ordinary perflow run (durable, in `list`, the console and the Temporal UI) whose answer is the
 * result, with progress notifications from the run's event stream while it runs, cancellation
 * as `cancel`, and the run as an MCP Task when the client asks for one.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import type { PerflowClient } from '../client/connect';
import { PerflowError } from '../client/errors';
import { packageVersion } from '../client/package-root';
import { AGENT_TOOL_INPUT, agentToolOutputSchema, checkedArguments, type OfferedAgent } from './agent-tools';
import { followAgentRun, refusedResult, startAgentRun, toolResult } from './agent-runs';
import { RunTaskStore, TASK_POLL_MS } from './run-tasks';

export interface McpServerOptions {
  perflow: PerflowClient;
  agentsDir: string;
  /** The tools, read from the folder once when the server starts. */
  agents: readonly OfferedAgent[];
  /** Shared by every session of one process (HTTP): a task is found by the session that started it. */
  tasks: RunTaskStore;
}

const INSTRUCTIONS =
  'Each tool is a perflow agent: it plans, calls its own tools step by step and answers. A call may take minutes; its progress notifications say what the agent does. ' +
  'Give the whole question; to continue an earlier conversation with the same agent, pass the memory_id its answer gave.';

/** One MCP server (one session): the folder's agents as tools. */
export function createMcpServer(o: McpServerOptions): Server {
  const byTool = new Map(o.agents.map((a) => [a.tool, a]));
  const server = new Server(
    { name: 'perflow', version: packageVersion() },
    { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: o.tasks, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: o.agents.map((a) => ({
      name: a.tool,
      title: a.agent,
      description: a.description,
      inputSchema: AGENT_TOOL_INPUT,
      outputSchema: agentToolOutputSchema(a) as { type: 'object' },
      execution: { taskSupport: 'optional' as const },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
    const { name, arguments: args, task, _meta } = request.params;
    const offered = byTool.get(name);
    if (!offered) throw new McpError(ErrorCode.InvalidParams, `no tool "${name}": the tools are ${[...byTool.keys()].join(', ') || 'none'}`);
    let started;
    try {
      started = await startAgentRun(o.perflow, offered, checkedArguments(name, args), o.agentsDir);
    } catch (err) {
      // What the caller can fix (its input, the agent file, the policy) is the tool's answer; an outage is an error.
      if (err instanceof PerflowError && err.kind !== 'unavailable') return refusedResult(err);
      throw err;
    }
    if (task && extra.taskStore) {
      const created = await extra.taskStore.createTask({ ...(task.ttl !== undefined ? { ttl: task.ttl } : {}), pollInterval: TASK_POLL_MS, context: { workflowId: started.workflowId, memoryId: started.ids.memory_id } });
      return { task: created };
    }
    const token = _meta?.progressToken;
    let n = 0;
    const progress =
      token === undefined ? undefined : (message: string) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++n, message } });
    return toolResult(await followAgentRun(o.perflow, started, { signal: extra.signal, ...(progress ? { progress } : {}) }));
  });
  return server;
}
