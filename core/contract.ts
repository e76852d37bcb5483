/**
 * The types that cross the workflow/activity boundary: model settings and scripts as calls
 * carry them, chat requests, prompt references, tool references and observations. Agent-file
 * shapes are derived from the zod schemas (core/agent-file/), not copied.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import type { ExecutorTurn, ModelConfig, ModelScript, ScriptedToolCall, ToolEntry } from './agent';
import type { CallPosition, ChatMessage, ToolSpec } from './llm-types';
import type { ToolCallPlace } from './memory-ids';

export type { ScriptedToolCall, ToolCallPlace };

/** One scripted executor model turn. */
export type ScriptedTurn = ExecutorTurn;

/**
 * A scripted model's script as a call carries it: only the entries that call needs (see
 * workflows/kernel/scripted-calls.ts), so every list may be absent.
 */
export type Script = Partial<ModelScript>;

/** Which model to call and how, as an activity receives it. */
export type ModelSettings = Omit<ModelConfig, 'script'> & { script?: Script };

/** One chat request to a model. */
export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  position: CallPosition;
  /** `llm_response_filter` when the agent sets one other than its interface's default. */
  response_filter?: string;
}

/**
 * A planner prompt by reference: the template, its small parameters, and the interaction IDs
 * of the completed steps, whose texts the activity loads from memory (claim check).
 */
export interface PlannerPromptRef {
  template: string;
  params: Record<string, string>;
  /** The current plan, for `${parameters.steps}`. */
  steps: string[];
  /** Earlier exchanges and step traces, in order, for `${parameters.completed_steps}`. */
  completed_step_ids: string[];
  /** Appended after rendering (the parse-retry instruction). */
  suffix?: string;
}

/** A planning-model call with a ready `prompt`, or one rendered in the activity from `render`. */
export interface PlannerCallInput extends Omit<ChatRequest, 'messages'> {
  model: ModelSettings;
  prompt?: string;
  render?: PlannerPromptRef;
}

/** An execution-model call: a chat turn, with the tools the model may call. */
export interface ExecutorCallInput extends ChatRequest {
  model: ModelSettings;
}

/** A tool as the agent file lists it (or an MCP tool, with its server in `parameters`). */
export type AgentToolRef = ToolEntry;

/** A tool an agent may call: what the model sees, and how the worker runs it. */
export interface AgentTool {
  spec: ToolSpec;
  ref: AgentToolRef;
}

export interface ToolCallInput {
  tool: AgentToolRef;
  input: Record<string, unknown>;
  /** Where the call is recorded in memory (with its whole output). */
  place: ToolCallPlace;
}

/** What a tool call gives the model: its output, or an error it can act on. */
export interface ToolObservation {
  content: string;
  is_error: boolean;
}
