/**
 * The `anthropic/v1/messages` LLM interface: one Messages API call through the official
 * `@anthropic-ai/sdk`, with native tool use (`tool_use` / `tool_result` blocks) and the prompt
 * cache on the parts every turn repeats (the system prompt and the tools).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, RawChatResponse, ToolCall, ToolSpec, Usage } from '../../core/llm-types';
import { builtinInterface } from '../../core/agent-file/llm-interfaces';
import { perflowModelParameters } from '../../core/agent-file/model-parameters';
import { toBoolean } from '../../core/agent-file/coerce';
import type { ProviderConfig } from '../../core/provider-config';
import type { ModelAdapter, ModelCall } from './adapter';
import { activitySignal, numberParam, numberParams, otherParameters, stopParam, timeoutMs, type OnDelta } from './call-options';
import { clientCache, type ClientCache } from './client-cache';
import { converseUsage, mapStopReason } from './bedrock-converse';
import { anthropicFailure, streamCutFailure, type ModelCallContext } from './errors';
import { claudeOutputSchema } from './output-format';
import { anthropicSdk } from './sdks';

/** Interface name, as in the agent file. */
export const ANTHROPIC_INTERFACE = 'anthropic/v1/messages';

/** The worker variables this interface reads: the key (a model's `api_key_env` names another) and the operator's endpoint (a model's `base_url` wins). */
export const ANTHROPIC_VARIABLES = { apiKey: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL' } as const;

/** Given to the SDK when nothing names an endpoint, so it never takes one from its own profiles. */
const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** `max_tokens` when `llm.parameters.max_tokens` is not set: the API requires one. @default 4096 */
export const DEFAULT_MAX_TOKENS = 4096;

/** The settings this interface reads (a structural subset of `ModelSettings`). */
export interface AnthropicModelSettings {
  /** Model id, e.g. `claude-sonnet-4-6`. Required. */
  model?: string;
  /** API base URL (without `/v1`). @default the worker's ANTHROPIC_BASE_URL, else `https://api.anthropic.com` */
  base_url?: string;
  /**
   * `max_tokens` (@default 4096, plus `thinking.budget_tokens` when extended thinking is on), `temperature`, `top_p`, `top_k`, `stop`/`stop_sequences`,
   * `cache` (@default true: the system prompt and the tools are cached), `parallel_tool_calls`
   * (@default false) and `timeout_ms` (@default 120000); any other is sent as it is.
   */
  parameters?: Record<string, unknown>;
  /** The worker environment variable holding the API key. @default ANTHROPIC_API_KEY */
  api_key_env?: string;
}

/** The parameter that turns the prompt cache off (`false`); the adapter's own, never sent. */
export const CACHE_PARAMETER = 'cache';

const NUMERIC_PARAMETERS = ['temperature', 'top_p', 'top_k'];
/** The parameters mapped here; any other is sent as it is (see {@link otherParameters}). */
const MAPPED_PARAMETERS = [...NUMERIC_PARAMETERS, 'max_tokens', 'stop', 'stop_sequences', CACHE_PARAMETER];

/** A cache breakpoint: the prompt up to and including the block it marks is cached (5 minutes, renewed by each hit). */
const EPHEMERAL = { type: 'ephemeral' } as const;

type Block = Anthropic.ContentBlockParam;

/** Appends blocks to the last message when it has the same role: tool results of one turn go back in one user message. */
function pushBlocks(out: Anthropic.MessageParam[], role: 'user' | 'assistant', blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = out[out.length - 1];
  if (last?.role === role && Array.isArray(last.content)) (last.content as Block[]).push(...blocks);
  else out.push({ role, content: blocks });
}

/**
 * Maps the provider-neutral history to Messages: assistant tool calls become `tool_use` blocks
 * (their ids kept), tool results `tool_result` blocks (`is_error` for failed tools), merged into
 * one user message per turn. Empty text is left out (the API refuses empty text blocks).
 */
export function toAnthropicMessages(messages: ChatMessage[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      pushBlocks(out, 'user', m.content === '' ? [] : [{ type: 'text', text: m.content }]);
    } else if (m.role === 'assistant') {
      // A turn that thought: its blocks as the API gave them, signatures and all (see `carriedBlocks`).
      const carried = carriedBlocks(m.carry);
      const blocks: Block[] = carried ?? (m.content.trim() === '' ? [] : [{ type: 'text', text: m.content }]);
      if (!carried) for (const c of m.tool_calls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input });
      pushBlocks(out, 'assistant', blocks);
    } else {
      pushBlocks(out, 'user', [
        { type: 'tool_result', tool_use_id: m.tool_call_id, ...(m.content !== '' ? { content: m.content } : {}), ...(m.is_error ? { is_error: true } : {}) },
      ]);
    }
  }
  return out;
}

/**
 * The content blocks a tool turn carries to the step's next turn: with extended thinking the API
 * requires the turn's `thinking` / `redacted_thinking` blocks back, unchanged and in order, with
 * the `tool_use` they led to. Only a turn that thought carries (the others are rebuilt as they are).
 */
function carryOf(message: Anthropic.Message): Anthropic.ContentBlock[] | undefined {
  return message.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking') ? message.content : undefined;
}

/** A carried turn's blocks, as {@link carryOf} kept them; `undefined` when the message carries none. */
function carriedBlocks(carry: unknown): Block[] | undefined {
  return Array.isArray(carry) && carry.length > 0 ? (carry as Block[]) : undefined;
}

/** Tool specs as Messages tools (`input_schema`); with `cache`, the last marked so every tool is cached. */
export function toAnthropicTools(tools: ToolSpec[], cache: boolean): Anthropic.Tool[] {
  return tools.map((t, i) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema as Anthropic.Tool.InputSchema,
    ...(t.strict !== undefined ? { strict: t.strict } : {}),
    ...(cache && i === tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
}

/** The tokens `llm.parameters.thinking` lets the model think (`budget_tokens`), which `max_tokens` must exceed; 0 without. */
function thinkingBudget(parameters: Record<string, unknown> | undefined): number {
  const thinking = parameters?.thinking;
  return typeof thinking === 'object' && thinking !== null ? (numberParam(thinking as Record<string, unknown>, 'budget_tokens') ?? 0) : 0;
}

/** Whether the prompt cache is on: unless `llm.parameters.cache` is false (or "false"). */
function cacheOn(parameters: Record<string, unknown> | undefined): boolean {
  return toBoolean(parameters?.[CACHE_PARAMETER]) !== false;
}

/** The request body of one call, without `stream`. */
function requestBody(model: AnthropicModelSettings & { model: string }, request: ModelCall['request']): Anthropic.MessageCreateParamsNonStreaming {
  const p = model.parameters;
  const cache = cacheOn(p);
  const tools = request.tools ?? [];
  const body: Record<string, unknown> = { ...otherParameters(p, MAPPED_PARAMETERS), ...numberParams(p, NUMERIC_PARAMETERS) };
  const stop = stopParam(p);
  if (stop) body.stop_sequences = stop;
  if (request.system !== '') body.system = cache ? [{ type: 'text', text: request.system, cache_control: EPHEMERAL }] : request.system;
  if (tools.length > 0) {
    body.tools = toAnthropicTools(tools, cache);
    // One tool call per turn unless the agent file allows more (as for OpenAI) or chooses itself.
    body.tool_choice ??= { type: 'auto', disable_parallel_tool_use: perflowModelParameters(p).parallel_tool_calls !== true };
  }
  // A typed answer as structured outputs, merged into an agent file's own output_config (its `format` wins).
  const schema = request.output && claudeOutputSchema(request.output);
  const config: unknown = p?.output_config ?? {};
  if (schema && typeof config === 'object' && config !== null && !('format' in config)) body.output_config = { ...config, format: { type: 'json_schema', schema } };
  return {
    ...body,
    model: model.model,
    max_tokens: Math.floor(numberParam(p, 'max_tokens') ?? thinkingBudget(p) + DEFAULT_MAX_TOKENS),
    messages: toAnthropicMessages(request.messages),
  } as Anthropic.MessageCreateParamsNonStreaming;
}

function asInput(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** A tool's input from its streamed JSON; `{}` when it is not JSON (the executor then sees the tool's own validation error). */
function parseInput(raw: string): Record<string, unknown> {
  try {
    return asInput(raw.trim() === '' ? {} : JSON.parse(raw));
  } catch {
    return {};
  }
}

/**
 * Streams one answer, handing every text delta to `onDelta` as it arrives, and assembles the
 * events into the `Message` the plain call returns (so a response filter reads the same raw):
 * text, tool input from its JSON deltas, thinking and its signature, the stop reason, and the
 * usage (`message_delta`'s counts are cumulative: they replace `message_start`'s).
 */
async function streamMessage(
  client: Anthropic,
  body: Anthropic.MessageCreateParamsNonStreaming,
  options: { signal?: AbortSignal; timeout: number },
  onDelta: OnDelta,
  ctx: ModelCallContext,
): Promise<Anthropic.Message> {
  const stream = await client.messages.create({ ...body, stream: true }, options);
  let message: Anthropic.Message | undefined;
  let stopped = false;
  const inputJson = new Map<number, string>();
  for await (const event of stream) {
    if (event.type === 'message_start') {
      message = { ...event.message, content: [] };
    } else if (event.type === 'content_block_start') {
      if (message) message.content[event.index] = { ...event.content_block };
    } else if (event.type === 'content_block_delta') {
      const block = message?.content[event.index];
      const delta = event.delta;
      if (delta.type === 'text_delta' && block?.type === 'text') {
        block.text += delta.text;
        onDelta(delta.text);
      } else if (delta.type === 'input_json_delta') {
        inputJson.set(event.index, (inputJson.get(event.index) ?? '') + delta.partial_json);
      } else if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
        // Kept in the raw answer as the plain call has it, never handed to onDelta.
        block.thinking += delta.thinking;
      } else if (delta.type === 'signature_delta' && block?.type === 'thinking') {
        block.signature = delta.signature;
      }
    } else if (event.type === 'content_block_stop') {
      const block = message?.content[event.index];
      const json = inputJson.get(event.index);
      if (block?.type === 'tool_use' && json !== undefined) block.input = parseInput(json);
    } else if (event.type === 'message_delta') {
      if (message) {
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        const counts = Object.entries(event.usage).filter(([, v]) => v !== null && v !== undefined);
        message.usage = { ...message.usage, ...Object.fromEntries(counts) };
      }
    } else if (event.type === 'message_stop') {
      stopped = true;
    }
  }
  // The SDK ends the iteration quietly when the request is aborted.
  if (options.signal?.aborted) throw new (anthropicSdk().APIUserAbortError)();
  // A stream that ends before message_stop was cut (by a proxy, a restart) without an error.
  if (!message || !stopped) throw streamCutFailure('Anthropic', ctx);
  return message;
}

/**
 * A message's usage in perflow's terms: `input_tokens` counts only the uncached input, as
 * Converse's `inputTokens` (Claude's own counts), so the prompt cache's reads and writes are
 * added and named as well (priced at their own rates).
 */
export function anthropicUsage(usage: Partial<Anthropic.Usage> | undefined): Usage {
  return converseUsage({
    inputTokens: usage?.input_tokens,
    outputTokens: usage?.output_tokens,
    totalTokens: undefined,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? undefined,
    cacheWriteInputTokens: usage?.cache_creation_input_tokens ?? undefined,
  });
}

interface AnthropicClients {
  providers: ProviderConfig;
  cache: ClientCache<{ apiKey: string; baseURL: string }, Anthropic>;
}

/**
 * Calls the Messages API once; with `onDelta`, streamed, each text delta handed to it as it
 * arrives and the same response returned. The SDK's own retries are off (`maxRetries: 0`): its
 * errors become `Anthropic.<Kind>` failures (errors.ts) and Temporal's retry policy decides.
 *
 * @throws ApplicationFailure `Anthropic.Configuration` (non-retryable) when the key variable or the model is missing
 */
async function anthropicChat({ providers, cache }: AnthropicClients, { model, request, onDelta }: ModelCall): Promise<RawChatResponse> {
  const keyVariable = model.api_key_env ?? ANTHROPIC_VARIABLES.apiKey;
  const ctx = { interface: ANTHROPIC_INTERFACE, model: model.model, keyVariable };
  try {
    const apiKey = providers.secret(keyVariable);
    if (!apiKey) throw ApplicationFailure.nonRetryable(`${keyVariable} is not set in the worker's environment`, 'Anthropic.Configuration');
    if (!model.model) throw ApplicationFailure.nonRetryable(`${ANTHROPIC_INTERFACE} needs llm.model in the agent file`, 'Anthropic.Configuration');
    // Keyed by the key's value too: a rotated key gets a new client.
    const client = cache.get({ apiKey, baseURL: model.base_url ?? providers.setting(ANTHROPIC_VARIABLES.baseUrl) ?? DEFAULT_BASE_URL });
    const body = requestBody({ ...model, model: model.model }, request);
    const options = { signal: activitySignal(), timeout: timeoutMs(model.parameters) };
    const message = onDelta ? await streamMessage(client, body, options, onDelta, ctx) : await client.messages.create(body, options);
    const toolCalls: ToolCall[] = message.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: asInput(b.input) }] : []));
    return {
      content: message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
      tool_calls: toolCalls,
      // Converse took Claude's stop reasons as they are.
      stop_reason: toolCalls.length > 0 ? 'tool_use' : mapStopReason(message.stop_reason ?? undefined),
      usage: anthropicUsage(message.usage),
      raw: message,
      ...(toolCalls.length > 0 && carryOf(message) ? { carry: carryOf(message) } : {}),
    };
  } catch (err) {
    // Here rather than as the adapter's `failure`: a refused key is named by the variable it came from.
    throw anthropicFailure(err, ctx);
  }
}

/** The Anthropic Messages API as a model adapter. */
export const anthropicAdapter: ModelAdapter<AnthropicClients> = {
  spec: builtinInterface(ANTHROPIC_INTERFACE),
  connect: ({ providers }) => ({
    providers,
    // perflow's own span covers each call (telemetry/model-and-tool-calls.ts): the SDK's would repeat it.
    cache: clientCache((s) => new (anthropicSdk().Anthropic)({ ...s, maxRetries: 0, openTelemetry: false })),
  }),
  chat: anthropicChat,
  close: (clients) => clients.cache.close(),
};
