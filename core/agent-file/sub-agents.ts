/**
 * Agents as tools of other agents: an `AgentTool` entry names another agent file, which the
 * client reads, validates and resolves with the agent that lists it, so the run's input carries
 * the whole tree and a worker never reads a file a caller names. Pure module (workflow code reads
 * the types and the walk).
 *
 * @module
 */
import type { AgentDefinition } from './definition';
import type { ResolvedParameters } from './parameters';
import type { ToolEntry } from './definition';
import { AGENT_TOOL_TYPE } from '../tool-types';

/**
 * The most levels an agent tree may have: a root, its sub-agents, theirs and one more level
 * (docs/multi-agent.md). Deeper trees are refused when the files are read.
 */
export const MAX_AGENT_DEPTH = 4;

/** A sub-agent as a run of its own needs it, resolved by the client. */
export interface SubAgent {
  /** The agent file as the parent's entry names it (relative to the parent's file). */
  file: string;
  definition: AgentDefinition;
  /** The workflow type its runs run as (its agent type's). */
  workflow_type: string;
  /** Its own parameters as `sparseParameters` leaves them, without memory IDs (a call chooses those). */
  sparse: { parameters: Partial<ResolvedParameters>; parameter_defaults?: string };
}

/** An `AgentTool` entry's parameters: the file it names and, once read, the sub-agent. */
export interface AgentToolParameters {
  agent: string;
  sub_agent?: SubAgent;
}

/** Whether a tool entry is another agent. */
export function isAgentTool(ref: Pick<ToolEntry, 'type'>): boolean {
  return ref.type === AGENT_TOOL_TYPE;
}

/** The sub-agent of an `AgentTool` entry, when the client resolved it. */
export function subAgentOf(ref: Pick<ToolEntry, 'type' | 'parameters'>): SubAgent | undefined {
  if (!isAgentTool(ref)) return undefined;
  return (ref.parameters as Partial<AgentToolParameters> | undefined)?.sub_agent;
}

/** The name a model calls a sub-agent by: the entry's, else the sub-agent's own name made a tool name. */
export function agentToolName(ref: Pick<ToolEntry, 'name' | 'parameters'>, sub: SubAgent): string {
  return ref.name ?? (sub.definition.name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64) || 'agent');
}

/** Every sub-agent below an agent, depth first, with its path of agent names from the root. */
export function subAgentTree(agent: AgentDefinition, path: string[] = [agent.name]): Array<{ path: string[]; sub: SubAgent }> {
  return agent.tools.flatMap((ref) => {
    const sub = subAgentOf(ref);
    if (!sub) return [];
    const here = [...path, sub.definition.name];
    return [{ path: here, sub }, ...subAgentTree(sub.definition, here)];
  });
}

/** The input schema every agent tool shows the model. */
export const AGENT_TOOL_INPUT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    question: { type: 'string', description: 'What the agent is asked to do, with everything it needs to know.' },
    memory_id: { type: 'string', description: "Continue this agent's earlier conversation: the memory_id an earlier answer of the same agent gave." },
  },
  required: ['question'],
  additionalProperties: false,
};
