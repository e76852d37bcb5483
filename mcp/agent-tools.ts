/**
 * The tools `perflow mcp` offers: one per agent file of its folder, named by the agent (or, when
 * that name is not a valid tool name or two files share it, by the file), described by the
 * agent file's `description`, called with `{question, memory_id?}` as an agent tool is.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { AGENT_TOOL_INPUT_SCHEMA } from '../core/agent-file/sub-agents';
import { QUESTION_MAX_CHARS } from '../core/agent-file/limits';
import { PerflowError } from '../client/errors';
import { agentFiles } from '../console/offered-files';

/** An agent offered as a tool. */
export interface OfferedAgent {
  tool: string;
  file: string;
  agent: string;
  description: string;
  /** The agent file's `output_schema`: its answer's JSON value is the result's `output`. */
  output_schema?: Record<string, unknown>;
}

/** MCP tool names: letters, digits, `_`, `-` and `.`, at most 128 characters (the specification's). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The agents of `dir` as tools, in file order; none when the folder holds no agent file. */
export async function offeredAgents(dir: string): Promise<OfferedAgent[]> {
  const files = await agentFiles(dir);
  const taken = new Map<string, number>();
  for (const f of files) taken.set(f.name, (taken.get(f.name) ?? 0) + 1);
  return files.map((f) => {
    const byFile = f.file.replace(/\.json$/, '').replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
    const tool = TOOL_NAME.test(f.name) && taken.get(f.name) === 1 ? f.name : byFile;
    return { tool, file: join(dir, f.file), agent: f.name, description: f.description ?? `The perflow agent ${f.name} (${f.type}).`, ...(f.output_schema ? { output_schema: f.output_schema } : {}) };
  });
}

/** What a call gives: the question, and the conversation to continue. */
export const agentToolArguments = z.strictObject({
  question: z.string().trim().min(1, 'question must not be empty').max(QUESTION_MAX_CHARS, `question must be at most ${QUESTION_MAX_CHARS} characters`),
  memory_id: z.string().min(1).max(200).optional(),
});
export type AgentToolArguments = z.infer<typeof agentToolArguments>;

/** A call's arguments, or a one-line `invalid` error naming what to fix. */
export function checkedArguments(tool: string, args: unknown): AgentToolArguments {
  const parsed = agentToolArguments.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new PerflowError('invalid', `${tool}: ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message} (expected {"question": string, "memory_id"?: string})`);
}

/** What a call answers besides its text (structured content). */
export const AGENT_TOOL_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    response: { type: 'string', description: "The agent's answer." },
    workflow_id: { type: 'string', description: 'The run: `perflow status`, `watch` and the Temporal UI know it by this ID.' },
    memory_id: { type: 'string', description: "Continues the agent's conversation when given to a later call." },
    status: { type: 'string', enum: ['completed', 'tripped', 'failed', 'cancelled', 'terminated', 'timed_out'] },
    steps_executed: { type: 'integer' },
    cost_usd: { type: ['number', 'null'], description: 'What the run cost, null when a model has no known price.' },
  },
  required: ['response', 'workflow_id', 'memory_id', 'status'],
} as const;

/** A tool's output schema: with the agent's `output_schema`, its answer's JSON value as `output` (present when the run completed). */
export function agentToolOutputSchema(offered: Pick<OfferedAgent, 'output_schema'>): Record<string, unknown> {
  if (!offered.output_schema) return AGENT_TOOL_OUTPUT_SCHEMA;
  return { ...AGENT_TOOL_OUTPUT_SCHEMA, properties: { ...AGENT_TOOL_OUTPUT_SCHEMA.properties, output: offered.output_schema } };
}

export const AGENT_TOOL_INPUT = { ...AGENT_TOOL_INPUT_SCHEMA, type: 'object' as const };
