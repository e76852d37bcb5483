/**
 * The tool types a stock perflow worker offers (activities/tools/builtin.ts registers them).
 * Agent files are validated against this list; a worker with extra tools passes its own list.
 */
export const BUILTIN_TOOL_TYPES = ['CalculatorTool', 'ListCollectionsTool', 'CollectionSchemaTool', 'SearchCollectionTool'] as const;

export type BuiltinToolType = (typeof BUILTIN_TOOL_TYPES)[number];

/**
 * The OpenSearch tools of the seeds' register-agent bodies, by the MongoDB tool that plays
 * each one's role: an agent file may name either.
 */
export const SEED_TOOL_TYPES: Readonly<Record<string, BuiltinToolType>> = {
  ListIndexTool: 'ListCollectionsTool',
  IndexMappingTool: 'CollectionSchemaTool',
  SearchIndexTool: 'SearchCollectionTool',
};

/** A tool call taking longer becomes an error observation (tool parameter `timeout_seconds`). */
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 90;

/** A tool's `timeout_seconds` (a number or numeric string), else the default. */
export function toolTimeoutSeconds(parameters: Record<string, unknown> | undefined): number {
  const n = Number(parameters?.timeout_seconds);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_TOOL_TIMEOUT_SECONDS;
}

/**
 * A tool that is another agent (`{"type": "AgentTool", "parameters": {"agent": "./other.json"}}`):
 * the model calls it with `{question, memory_id?}` and it runs as a child run of its own type.
 * Not a worker's tool: the executor's workflow runs it (workflows/kernel/sub-agents.ts).
 */
export const AGENT_TOOL_TYPE = 'AgentTool';

/**
 * A remote agent reached over A2A (`{"type": "A2AAgentTool", "parameters": {"url": "https://…",
 * "token_env": "NAME"}}`): its Agent Card describes it to the model when the run starts and each
 * call is a message to it, followed until its task ends (activities/tools/a2a.ts).
 */
export const A2A_AGENT_TOOL_TYPE = 'A2AAgentTool';
