/** Routes a chat request to the model interface named in the agent file. */
import { ApplicationFailure } from '@temporalio/activity';
import type { ModelSettings } from '../../core/contract';
import type { ChatResponse, RawChatResponse } from '../../core/llm-types';
import { applyResponseFilter } from './response-filter';
import { bedrockClaudeChat, BEDROCK_CLAUDE_INTERFACE } from './bedrock-claude';
import { deepSeekR1Chat, DEEPSEEK_R1_INTERFACE } from './deepseek-r1';
import { OPENAI_INTERFACE, openAiChat } from './openai-chat';
import { activitySignal, numberParam, type OnDelta } from './call-options';
import type { LlmClients } from './clients';
import { scriptedChat, type ChatRequest, type RecordedRequest } from './scripted';
import { observeModelCall, type TelemetryDeps } from '../../telemetry/model-and-tool-calls';
import { withCost } from '../../telemetry/model-prices';

const AVAILABLE = [OPENAI_INTERFACE, BEDROCK_CLAUDE_INTERFACE, DEEPSEEK_R1_INTERFACE, 'scripted'];

export type { ModelSettings, OnDelta };

export interface ChatDeps extends TelemetryDeps {
  /** The providers' SDK clients (the worker builds them from its environment); only the scripted model works without. */
  llm?: LlmClients;
  /** Where the scripted model records the requests it receives (tests read it). */
  recorder?: RecordedRequest[];
}

/**
 * Sends one chat request to the interface named in `model.interface`; with `onDelta`, the
 * provider streams and each text delta goes to it as it arrives (the response is the same).
 * Provider errors arrive as `ApplicationFailure`s (see `errors.ts`): Temporal's retry policy
 * decides on another attempt. The response's usage carries the call's cost (`cost_usd`, null
 * when the model has no known price: telemetry/model-prices.ts); `agent` (the agent file's
 * name) labels the cost counter.
 */
export async function chat(model: ModelSettings, request: ChatRequest, deps: ChatDeps, onDelta?: OnDelta, agent?: string): Promise<ChatResponse> {
  // The span and the token counts cover the provider call only (not loading prompts from memory).
  const { raw, ...response } = await observeModelCall(
    deps,
    model,
    async () => {
      const answer = await send(model, request, deps, onDelta);
      return { ...answer, usage: withCost(model, answer.usage) };
    },
    agent,
  );
  // The filter selects the answer text; a turn that calls tools has no answer to select.
  if (request.response_filter && raw !== undefined && response.tool_calls.length === 0) {
    response.content = applyResponseFilter(raw, request.response_filter, model.interface);
  }
  return response;
}

function send(model: ModelSettings, request: ChatRequest, deps: ChatDeps, onDelta: OnDelta | undefined): Promise<RawChatResponse> | RawChatResponse {
  switch (model.interface) {
    case 'scripted':
      return scriptedWithLatency(model, () => scriptedChat(model.script ?? {}, request, deps.recorder), onDelta);
    case OPENAI_INTERFACE:
      return openAiChat(model, request, clientsOf(deps), onDelta);
    case BEDROCK_CLAUDE_INTERFACE:
      return bedrockClaudeChat(model, request, clientsOf(deps), onDelta);
    case DEEPSEEK_R1_INTERFACE:
      return deepSeekR1Chat(model, request, clientsOf(deps), onDelta);
    default:
      throw ApplicationFailure.nonRetryable(
        `LLM interface "${model.interface}" is not available in this worker; use one of: ${AVAILABLE.join(', ')}`,
        'LlmInterface.Unsupported',
      );
  }
}

function clientsOf(deps: ChatDeps): LlmClients {
  if (!deps.llm) throw ApplicationFailure.nonRetryable('this worker was built without model clients (createActivities({ llm }))', 'Llm.Configuration');
  return deps.llm;
}

/** How many characters a scripted answer streams at a time unless `llm.parameters.stream_chunk_chars` says. */
export const SCRIPTED_CHUNK_CHARS = 16;

/**
 * The scripted model answers after `llm.parameters.latency_ms` (for measuring what perflow adds
 * to real model latency); streamed, its answer arrives in pieces of `stream_chunk_chars`
 * spread evenly over that time, the last one at its end. The wait ends early when the activity
 * is cancelled.
 */
async function scriptedWithLatency(model: ModelSettings, answer: () => RawChatResponse, onDelta?: OnDelta): Promise<RawChatResponse> {
  const response = answer();
  const ms = Math.max(0, numberParam(model.parameters, 'latency_ms') ?? 0);
  const size = Math.max(1, Math.floor(numberParam(model.parameters, 'stream_chunk_chars') ?? SCRIPTED_CHUNK_CHARS));
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
