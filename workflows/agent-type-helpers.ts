/** What the step_by_step, todo_list and plan_and_execute agents share beyond the kernel: their prompts' listings. */
import type { AgentTool } from '../core/contract';
import type { ResolvedParameters } from '../core/agent';
import { AGENT_TYPE_SYSTEM_PROMPT } from '../core/agent-types';
import { DEFAULT_PLANNER_SYSTEM_PROMPT } from '../core/prompts';
import { preview } from '../core/text';

/** A named result (Axon Ivy's variables): the query, then each step's or todo's result. */
export interface Variable {
  name: string;
  value: string;
}

/** The seed planner's system prompt asks for {"steps","result"}; these agents ask per call, so they use their own unless the agent sets one. */
export function agentTypeSystemPrompt(p: ResolvedParameters): string {
  return p.system_prompt === DEFAULT_PLANNER_SYSTEM_PROMPT ? AGENT_TYPE_SYSTEM_PROMPT : p.system_prompt;
}

/** Tools of the agent by name (the tool IDs of step_by_step and todo_list plans). */
export function toolsNamed(tools: AgentTool[], names: readonly string[]): AgentTool[] {
  return tools.filter((t) => names.includes(t.spec.name));
}

/** The tool list of a planning prompt: one `name: description` per line. */
export function toolListing(tools: AgentTool[]): string {
  return tools.length === 0 ? 'none' : tools.map((t) => `${t.spec.name}: ${t.spec.description}`).join('\n');
}

/** Variables as the Ivy prompts show them: `- name: value`, one per line. */
export function variableListing(variables: readonly Variable[]): string {
  return variables.map((v) => `- ${v.name}: ${preview(v.value, 1_000)}`).join('\n');
}
