/**
 * A run's event stream: what happens in a run, in order, as it happens — plans, steps, tool
 * calls and every piece of model text. Each event has an offset (0, 1, 2, … without gaps) in
 * its run's stream; consumers re-attach from an offset.
 *
 * Pure module: the workflow (through a sink), the activities and the client share these types.
 *
 * @module
 */

import type { PendingDecision } from './decisions';
import { preview } from './text';

/** Longest text of an event's previews (questions, inputs, outputs, results). */
export const EVENT_PREVIEW_CHARS = 500;

/**
 * The largest typed answer (`output`, as JSON) `run_finished` carries whole: a value cannot be
 * previewed as text is; a larger one is left to the run's result (`perflow result`).
 */
export const EVENT_OUTPUT_CHARS = 16_384;

/** `{output}` for a run's `run_finished` event when the run has a typed answer that fits, else `{}`. */
export function eventOutput(output: unknown): { output?: unknown } {
  return output !== undefined && JSON.stringify(output).length <= EVENT_OUTPUT_CHARS ? { output } : {};
}

/** Who is writing a model answer: the planner, a step's executor, or another agent type's role (the kind of call). */
export type ModelRole = 'planner' | 'executor' | 'summary' | string;

/** The events a run's stream carries, by type, without offset and time. */
export type RunEventBody =
  | { type: 'run_started'; workflow_id: string; agent: string; agent_type: string; question: string; memory_id: string; forked_from?: { workflow_id: string; step: number } }
  /** The steps still to do, when a plan is made or changed (not when a step of it ends). */
  | { type: 'plan'; steps: string[] }
  | { type: 'step_started'; index: number; step: string }
  /** A piece of a model's answer; `step` for executor turns; `call` names the model call (unique in the run). */
  | { type: 'model_delta'; role: ModelRole; step?: number; call: string; text: string }
  /** `sub_run`: an agent tool's call, run as the sub-agent's own run (its events follow in a tree's stream). */
  | { type: 'tool_call'; step: number; tool: string; call: string; input: string; sub_run?: { workflow_id: string; agent: string } }
  | { type: 'tool_result'; step: number; tool: string; call: string; ok: boolean; output: string }
  | { type: 'step_finished'; index: number; ok: boolean; result: string }
  /** What waits for a person: the pending decision as `status` shows it, with the commands that answer it. */
  | ({ type: 'decision_pending' } & PendingDecision)
  | { type: 'decision'; id: string; kind: string; action: string; by: string }
  /**
   * A model or tool attempt is being retried: `call` names it (with its `role` and `step`, or its
   * `tool`); a consumer drops the text that call streamed so far.
   */
  | { type: 'retry'; call: string; attempt: number; role?: ModelRole; step?: number; tool?: string }
  /**
   * A prompt that would not fit its model's context window was compacted before the call: its
   * oldest `dropped` completed steps (planner) or messages (executor, `step`) were summarized or
   * left out (`strategy`), the prompt going from `tokens_before` to `tokens_after` (estimated).
   */
  | { type: 'context_compacted'; role: ModelRole; step?: number; model: string; strategy: 'summarize' | 'trim'; window: number; tokens_before: number; tokens_after: number; dropped: number }
  /** A guardrail checked the question (`input`) or the answer (`output`): passed, or failed with what its failure does. */
  | { type: 'guardrail_passed'; place: 'input' | 'output' | 'tool_output'; check: string; detail: string }
  | { type: 'guardrail_tripped'; place: 'input' | 'output' | 'tool_output'; check: string; detail: string; action: 'stop' | 'retry' | 'ask' }
  /** `tripped`: a guardrail stopped the run (its response says which and why). */
  | { type: 'run_finished'; status: 'completed' | 'tripped' | 'failed' | 'cancelled' | 'terminated' | 'timed_out'; response: string; error?: string; output?: unknown };

export type RunEventType = RunEventBody['type'];

/** Every event type, in the order a run usually emits them. */
export const RUN_EVENT_TYPES: readonly RunEventType[] = [
  'run_started',
  'plan',
  'step_started',
  'model_delta',
  'tool_call',
  'tool_result',
  'step_finished',
  'decision_pending',
  'decision',
  'retry',
  'context_compacted',
  'guardrail_passed',
  'guardrail_tripped',
  'run_finished',
];

/**
 * An event as a consumer sees it: its offset in the run's stream and when it was published
 * (ISO-8601). In an agent tree's stream a descendant's event also names its run and the agent
 * names from the root to it (`agent_path`); its offset is in that run's own stream.
 */
export type RunEvent = { offset: number; at: string; run?: string; agent_path?: string[] } & RunEventBody;

/** An event before its offset is known: the time it was published. */
export type TimedEvent = RunEventBody & { at: string };

/**
 * The run a workflow execution's events belong to: an executor child `<run>/step-<n>` streams
 * into its run's stream.
 */
export function streamOf(workflowId: string): string {
  return workflowId.replace(/\/step-\d+$/, '');
}

/**
 * The model answers a stream carries, whole and in order, with the text of retried attempts
 * dropped: what counted. (`watch` shows the same; tests compare it with the run's answers.)
 */
export function answersOf(events: Iterable<RunEvent | RunEventBody>): Array<{ role: ModelRole; step?: number; call: string; text: string }> {
  const answers = new Map<string, { role: ModelRole; step?: number; call: string; text: string }>();
  for (const e of events) {
    if (e.type === 'model_delta') {
      const answer = answers.get(e.call) ?? { role: e.role, ...(e.step !== undefined ? { step: e.step } : {}), call: e.call, text: '' };
      answer.text += e.text;
      answers.set(e.call, answer);
    } else if (e.type === 'retry') {
      const answer = answers.get(e.call);
      if (answer) answer.text = '';
    }
  }
  return [...answers.values()].filter((a) => a.text !== '');
}

/** A model call's role in events: its position's role, a task's kind. */
export const modelRoleOf = (position: { role: string; kind?: string }): ModelRole => (position.role === 'task' ? position.kind! : position.role);

/** The name of a model call in events: its position in the run (unique, the same in every attempt). */
export function modelCallName(position: { role: string; kind?: string; call?: number; step?: number; iteration?: number }): string {
  if (position.role === 'executor') return `executor:${position.step}:${position.iteration}`;
  if (position.role === 'task') return `${position.kind}:${position.call}`;
  return position.call !== undefined ? `${position.role}:${position.call}` : position.role;
}

/** The name of a tool call in events. */
export const toolCallName = (step: number, index: number): string => `tool:${step}:${index}`;

/** Run events with their keys (one each): written once per key in a run's stream (`events_before`). */
export interface KeyedRunEvents {
  events: RunEventBody[];
  keys: string[];
  /** The run whose keys these are where a key starts with `#` (a step executor's copies: each key shorter). */
  key_run?: string;
}

/** Whose stream it is: the run's conversation and tenant, written in its head with its first event. */
export interface StreamHead {
  memory_id: string;
  tenant_id?: string;
}

/** A run's first event and its stream's head, for the activity that opens the run to write as it starts (`opening`; keys relative to the run). */
export interface StreamOpening extends KeyedRunEvents {
  head: StreamHead;
}

/** The events with each key whole (see {@link KeyedRunEvents.key_run}). */
export function wholeKeys({ events, keys, key_run }: KeyedRunEvents): KeyedRunEvents {
  return { events, keys: key_run === undefined ? keys : keys.map((k) => (k.startsWith('#') ? `${key_run}${k}` : k)) };
}

/** `a`'s events, then `b`'s (undefined when neither has any). */
export function joinedEvents(a: KeyedRunEvents | undefined, b: KeyedRunEvents | undefined): KeyedRunEvents | undefined {
  if (!b || b.events.length === 0) return a && a.events.length > 0 ? { events: a.events, keys: a.keys } : undefined;
  if (!a || a.events.length === 0) return { events: b.events, keys: b.keys };
  return { events: [...a.events, ...b.events], keys: [...a.keys, ...b.keys] };
}

type ToolCallEvent = Extract<RunEventBody, { type: 'tool_call' }>;
type ToolResultEvent = Extract<RunEventBody, { type: 'tool_result' }>;

/** A tool call's event as it starts, whoever writes it. */
export function toolCallEvent(step: number, tool: string, call: string, input: unknown, subRun?: ToolCallEvent['sub_run']): ToolCallEvent {
  return { type: 'tool_call', step, tool, call, input: preview(JSON.stringify(input ?? {}), EVENT_PREVIEW_CHARS), ...(subRun ? { sub_run: subRun } : {}) };
}

/** A tool call's outcome as an event: `output` is its answer as the model sees it. */
export function toolResultEvent(step: number, tool: string, call: string, ok: boolean, output: string): ToolResultEvent {
  return { type: 'tool_result', step, tool, call, ok, output: preview(output, EVENT_PREVIEW_CHARS) };
}

/** A tool call whose events its activity handed on to the step's next model call (`hand_events`). */
export interface HandedToolCall {
  /** Its index in the step (`ToolCallPlace.callIndex`). */
  call: number;
  tool: string;
  input: unknown;
  /** Its answer as the model sees it. */
  output: string;
  ok: boolean;
  /** Its call event was published while it ran (a slow call): the result only is left. */
  call_published?: boolean;
}

/**
 * The events of tool calls handed on, keyed by the workflow execution that made them (the
 * executor child's run ID): the model call that takes them, a retry of it, or the run when no
 * call did, write them once.
 */
export function handedToolEvents(runId: string, step: number, calls: readonly HandedToolCall[]): KeyedRunEvents {
  const events: RunEventBody[] = [];
  const keys: string[] = [];
  for (const c of calls) {
    const call = toolCallName(step, c.call);
    if (!c.call_published) {
      events.push(toolCallEvent(step, c.tool, call, c.input));
      keys.push(`${runId}#${call}`);
    }
    events.push(toolResultEvent(step, c.tool, call, c.ok, c.output));
    keys.push(`${runId}#${call}:result`);
  }
  return { events, keys };
}
