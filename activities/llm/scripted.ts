/**
 * The `scripted` LLM interface: answers from a script in the agent file, chosen only by the
 * call's position in the run, so retries, worker restarts and replays get the same answer.
 * An answer may quote what the model was given (`{{observation}}`, `{{step_result:N}}`), so
 * a scripted run can state what its tools really computed. It records every request so tests
 * can assert on prompts.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { JSONPath } from 'jsonpath-plus';
import type { ChatRequest, Script, ScriptedToolCall, ScriptedTurn } from '../../core/activity-contract';
import type { RawChatResponse } from '../../core/llm-types';
import { builtinInterface } from '../../core/agent-file/llm-interfaces';
import { perflowModelParameters } from '../../core/agent-file/model-parameters';
import type { ModelAdapter, ModelCall } from './adapter';
import { activitySignal, type OnDelta } from './call-options';

export type { ChatRequest, Script, ScriptedToolCall, ScriptedTurn };

export type RecordedRequest = ChatRequest;

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function outOfScript(what: string, available: number): never {
  throw ApplicationFailure.nonRetryable(
    `scripted model has no ${what} (the script has ${available}); add it to llm.script in the agent file`,
    'ScriptedModel.OutOfScript',
  );
}

export function scriptedChat(script: Script, request: ChatRequest, recorder?: RecordedRequest[]): RawChatResponse {
  recorder?.push(structuredClone(request));
  const promptTokens = estimateTokens(request.system + request.messages.map((m) => m.content).join(''));
  const { position } = request;
  let turn: ScriptedTurn;
  if (position.role === 'planner') {
    const answers = script.planner ?? [];
    if (position.call >= answers.length) outOfScript(`planner answer at position ${position.call}`, answers.length);
    turn = { content: answers[position.call] };
  } else if (position.role === 'task') {
    const answers = script[position.kind] ?? [];
    if (position.call >= answers.length || answers[position.call] == null) outOfScript(`${position.kind} answer at position ${position.call}`, answers.length);
    turn = { content: answers[position.call] };
  } else if (position.role === 'executor') {
    const steps = script.executor ?? [];
    if (position.step >= steps.length) outOfScript(`executor turns for step ${position.step}`, steps.length);
    const turns = steps[position.step];
    if (position.iteration >= turns.length) {
      outOfScript(`executor turn ${position.iteration} for step ${position.step}`, turns.length);
    }
    turn = turns[position.iteration];
  } else if (position.role === 'compaction') {
    const answers = script.compaction ?? [];
    if (answers.length === 0) outOfScript('compaction answer', 0);
    turn = { content: answers[0] };
  } else {
    const answers = script.summary ?? [];
    if (answers.length === 0) outOfScript('summary answer', 0);
    turn = { content: answers[0] };
  }
  const toolCalls = ('tool_calls' in turn ? turn.tool_calls : []).map((call, i) => ({
    id: call.id ?? `call_${position.role}_${'step' in position ? position.step : 0}_${'iteration' in position ? position.iteration : 0}_${i}`,
    name: call.name,
    input: call.input ?? {},
  }));
  const content = fillPlaceholders(turn.content ?? '', request);
  return {
    content,
    tool_calls: toolCalls,
    stop_reason: toolCalls.length > 0 ? 'tool_use' : 'end_turn',
    usage: { input_tokens: promptTokens, output_tokens: estimateTokens(content + JSON.stringify(toolCalls)) },
    raw: { content, tool_calls: toolCalls },
    ...('carry' in turn && turn.carry !== undefined ? { carry: turn.carry } : {}),
  };
}

/** How many characters a scripted answer streams at a time unless `llm.parameters.stream_chunk_chars` says. */
const SCRIPTED_CHUNK_CHARS = 16;

/**
 * The scripted model as a model adapter. It answers after `llm.parameters.latency_ms` (for
 * measuring what perflow adds to real model latency); streamed, its answer arrives in pieces of
 * `stream_chunk_chars` spread evenly over that time, the last one at its end. The wait ends
 * early when the activity is cancelled. Its clients are the recorder of the requests it gets.
 */
export const scriptedAdapter: ModelAdapter<RecordedRequest[] | undefined> = {
  spec: builtinInterface('scripted'),
  connect: ({ recorder }) => recorder,
  chat: (recorder, { model, request, onDelta }: ModelCall) => withLatency(model.parameters, () => scriptedChat(model.script ?? {}, request, recorder), onDelta),
};

async function withLatency(parameters: Record<string, unknown> | undefined, answer: () => RawChatResponse, onDelta?: OnDelta): Promise<RawChatResponse> {
  const response = answer();
  const { latency_ms: ms = 0, stream_chunk_chars: size = SCRIPTED_CHUNK_CHARS } = perflowModelParameters(parameters);
  const pieces = onDelta ? (response.content.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? []) : [];
  const signal = activitySignal();
  const waits = Math.max(1, pieces.length);
  for (let i = 0; i < waits; i++) {
    if (ms > 0) await sleep(ms / waits, signal);
    if (pieces[i] !== undefined) onDelta?.(pieces[i]);
  }
  return response;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => (clearTimeout(timer), reject(signal?.reason));
    const timer = setTimeout(() => (signal?.removeEventListener('abort', abort), resolve()), ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

const PLACEHOLDER = /\{\{(observation|step_result)(?::([^}]*))?\}\}/g;

function badPlaceholder(placeholder: string, why: string): never {
  throw ApplicationFailure.nonRetryable(`scripted answer placeholder ${placeholder}: ${why}`, 'ScriptedModel.Placeholder');
}

/**
 * Fills the placeholders of a scripted answer from the request:
 * - `{{observation}}`: the last tool result the model was given; `{{observation:JSONPATH}}` the
 *   first value the JSONPath selects in it (parsed as JSON);
 * - `{{step_result:N}}`: the result of completed step N as the prompt shows it
 *   (`<step-N-result>` block).
 * Planner and task answers are JSON texts, so there the values are inserted JSON-escaped.
 */
export function fillPlaceholders(content: string, request: ChatRequest): string {
  const escape = request.position.role === 'planner' || request.position.role === 'task';
  return content.replace(PLACEHOLDER, (whole, kind: string, arg: string | undefined) => {
    const value = kind === 'observation' ? observationValue(whole, request, arg) : stepResult(whole, request, arg);
    return escape ? JSON.stringify(value).slice(1, -1) : value;
  });
}

function observationValue(placeholder: string, request: ChatRequest, path: string | undefined): string {
  const last = request.messages.filter((m) => m.role === 'tool').at(-1);
  if (!last) badPlaceholder(placeholder, 'the request has no tool result yet');
  if (path === undefined || path.trim() === '') return last.content;
  let json: unknown;
  try {
    json = JSON.parse(last.content);
  } catch {
    badPlaceholder(placeholder, `the last tool result is not JSON: ${last.content.slice(0, 200)}`);
  }
  const selected = JSONPath({ path: path.trim(), json: json as object, wrap: true }) as unknown[];
  const value = selected.find((v) => v !== undefined && v !== null);
  if (value === undefined) badPlaceholder(placeholder, `selects nothing in the last tool result: ${last.content.slice(0, 200)}`);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function stepResult(placeholder: string, request: ChatRequest, n: string | undefined): string {
  if (!n || !/^\d+$/.test(n.trim())) badPlaceholder(placeholder, 'expected a step number, e.g. {{step_result:1}}');
  const tag = `step-${n.trim()}-result`;
  const text = [request.system, ...request.messages.map((m) => m.content)].join('\n');
  const start = text.lastIndexOf(`<${tag}>\n`);
  const end = start < 0 ? -1 : text.indexOf(`\n</${tag}>`, start);
  if (end < 0) badPlaceholder(placeholder, `the prompt shows no <${tag}> block`);
  return text.slice(start + tag.length + 3, end);
}
