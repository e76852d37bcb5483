/**
 * The `scripted` LLM interface: answers from a script in the agent file, chosen only by the
 * call's position in the run, so retries, worker restarts and replays get the same answer.
 * It records every request so tests can assert on prompts.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { CallPosition, ChatMessage, RawChatResponse, TaskKind, ToolSpec } from '../../core/llm-types';

export interface ScriptedToolCall {
  name: string;
  input?: Record<string, unknown>;
  id?: string;
}

export interface ScriptedTurn {
  content?: string;
  tool_calls?: ScriptedToolCall[];
}

export type Script = Partial<Record<TaskKind, string[]>> & ScriptLists;

interface ScriptLists {
  /** `planner[k]`: the raw text of the k-th planner call of the run. */
  planner?: string[];
  /** `executor[n]`: the turns of the n-th executed step. */
  executor?: ScriptedTurn[][];
  /** Answers of summary calls (max-steps summary); without one the caller falls back. */
  summary?: string[];
}

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  position: CallPosition;
  /** `llm_response_filter` when the agent sets one other than its interface's default. */
  response_filter?: string;
}

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
  } else {
    const answers = script.summary ?? [];
    if (answers.length === 0) outOfScript('summary answer', 0);
    turn = { content: answers[0] };
  }
  const toolCalls = (turn.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${position.role}_${'step' in position ? position.step : 0}_${'iteration' in position ? position.iteration : 0}_${i}`,
    name: call.name,
    input: call.input ?? {},
  }));
  const content = turn.content ?? '';
  return {
    content,
    tool_calls: toolCalls,
    stop_reason: toolCalls.length > 0 ? 'tool_use' : 'end_turn',
    usage: { input_tokens: promptTokens, output_tokens: estimateTokens(content + JSON.stringify(toolCalls)) },
    raw: { content, tool_calls: toolCalls },
  };
}
