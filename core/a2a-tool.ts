/**
 * A remote agent as a tool over A2A (`A2AAgentTool`): what the agent file gives (`url`,
 * `token_env`), how its Agent Card describes it to the model, and what a call shows the model.
 * Pure module: the agent file's validation, the worker policy and workflow code read it; the
 * activity (activities/tools/a2a.ts) does the I/O.
 *
 * @module
 */
import { A2A_AGENT_TOOL_TYPE } from './tool-types';

/** An `A2AAgentTool` entry's parameters, as the agent file gives them. */
export interface A2AToolParameters {
  /** The agent's base URL (its card at `<url>/.well-known/agent-card.json`), or its card's URL (ending in `.json`). */
  url: string;
  /** The worker variable holding a bearer token sent to the agent (`Authorization: Bearer …`). */
  token_env?: string;
  /** Seconds a call may take, waiting included, before it is an error observation (default 90). */
  timeout_seconds?: number;
  /** Filled when the run starts: the card's JSON-RPC endpoint (the worker policy judges it at each call). */
  endpoint?: string;
}

/** What of an Agent Card describes the tool: its name, description and skills. */
export interface AgentCardSummary {
  name?: string;
  description?: string;
  skills?: ReadonlyArray<{ name?: string; description?: string; examples?: readonly string[]; tags?: readonly string[] }>;
}

/** The input every remote agent tool shows the model. */
export const A2A_TOOL_INPUT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: { message: { type: 'string', description: 'The message to the remote agent, with everything it needs to know.' } },
  required: ['message'],
  additionalProperties: false,
};

/** The most characters of a card's description the model is shown, and the most skills listed. */
export const A2A_CARD_LIMITS = { description: 4_000, skills: 32 } as const;

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether a tool entry is a remote A2A agent. */
export const isA2AAgentTool = (ref: { type: string }): boolean => ref.type === A2A_AGENT_TOOL_TYPE;

/** What is wrong with an `A2AAgentTool` entry's parameters (path relative to the entry, message), none when it is valid. */
export function a2aToolProblems(parameters: Record<string, unknown> | undefined): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  const url = parameters?.url;
  if (typeof url !== 'string' || !httpUrl(url)) problems.push({ path: 'parameters.url', message: 'expected the http(s) URL of the remote agent (its base URL, or its Agent Card\'s)' });
  const token = parameters?.token_env;
  if (token !== undefined && (typeof token !== 'string' || !VARIABLE_NAME.test(token))) problems.push({ path: 'parameters.token_env', message: 'expected the name of a worker environment variable (letters, digits, "_")' });
  const timeout = parameters?.timeout_seconds;
  if (timeout !== undefined && !(Number(timeout) > 0)) problems.push({ path: 'parameters.timeout_seconds', message: 'expected a positive number of seconds' });
  if (parameters?.endpoint !== undefined) problems.push({ path: 'parameters.endpoint', message: 'is read from the remote agent\'s card when the run starts: leave it out' });
  return problems;
}

function httpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** The remote agents of an agent file's tools, as the worker policy judges them. */
export function remoteAgentsOf(tools: ReadonlyArray<{ type: string; name?: string; parameters?: Record<string, unknown> }>): Array<{ name: string; url: string; token_env?: string }> {
  return tools.flatMap((t) => {
    if (!isA2AAgentTool(t) || typeof t.parameters?.url !== 'string') return [];
    const token = t.parameters.token_env;
    return [{ name: t.name ?? t.parameters.url, url: t.parameters.url, ...(typeof token === 'string' ? { token_env: token } : {}) }];
  });
}

/** The name a model calls a remote agent by: the entry's, else the card's name made a tool name. */
export function a2aToolName(entryName: string | undefined, card: AgentCardSummary | undefined): string {
  return entryName ?? ((card?.name ?? '').replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64) || 'remote_agent');
}

/**
 * The tool's description as the model reads it: the entry's when it gives one, else the card's
 * name, description and skills (each skill's name, description and examples), bounded by
 * {@link A2A_CARD_LIMITS}; without a card, a line naming the URL.
 */
export function a2aToolDescription(url: string, card: AgentCardSummary | undefined, entryDescription?: string): string {
  if (entryDescription !== undefined) return entryDescription;
  if (!card) return `The remote agent at ${url} (A2A): send it a message, it answers.`;
  const skills = (card.skills ?? []).slice(0, A2A_CARD_LIMITS.skills).map((s) => {
    const examples = (s.examples ?? []).slice(0, 3).map((e) => `"${e}"`).join(', ');
    return `- ${s.name ?? 'skill'}${s.description ? `: ${s.description}` : ''}${examples ? ` (e.g. ${examples})` : ''}`;
  });
  const more = (card.skills?.length ?? 0) > A2A_CARD_LIMITS.skills ? [`- … and ${(card.skills?.length ?? 0) - A2A_CARD_LIMITS.skills} more skills`] : [];
  const text = [`The remote agent "${card.name ?? url}" (A2A)${card.description ? `: ${card.description}` : ''}`, ...(skills.length > 0 ? ['Its skills:', ...skills, ...more] : []), 'Send it a message; it answers, or asks for what it needs.'].join('\n');
  return text.length > A2A_CARD_LIMITS.description ? `${text.slice(0, A2A_CARD_LIMITS.description)}… [cut: ${text.length} characters]` : text;
}

/** A remote agent's question, waiting for a person's answer (task state INPUT_REQUIRED). */
export interface A2AInputRequest {
  /** The remote task that waits. */
  task_id: string;
  context_id: string;
  /** What the remote agent asks, as text. */
  question: string;
  /** The messages sent on the task so far (the next one is `turn + 1`). */
  turn: number;
  /** The question's own ID (its message's, else its time): the reply waits until the task has moved past it. */
  question_id: string;
}

/** A call that answers a remote agent's question: the message goes to its waiting task. */
export interface A2AReply {
  task_id: string;
  context_id: string;
  /** This message's number on the task (the first message is 1). */
  turn: number;
  /** The question it answers (`A2AInputRequest.question_id`): until the task moves past it, the answer has not been read. */
  question_id: string;
}
