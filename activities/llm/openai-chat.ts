/**
 * The `openai/v1/chat/completions` LLM interface: one Chat Completions call through the official
 * `openai` SDK, with native function calling. Works with any compatible server via `base_url`
 * (or the worker's OPENAI_BASE_URL). Just over 300 lines: the mapping, the streamed assembly and
 * the compatible servers' quirks are one protocol, each used by the others.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { CallPosition, ChatMessage, ChatResponse, ToolCall, ToolSpec, Usage } from '../../core/llm-types';
import { builtinInterface, OPENAI_INTERFACE } from '../../core/agent-file/llm-interfaces';
import { perflowModelParameters } from '../../core/agent-file/model-parameters';
import type { ModelAdapter, ModelCall } from './adapter';
import { activitySignal, numberParam, stopParam, timeoutMs, otherParameters, type OnDelta } from './call-options';
import { openAiFailure, streamCutFailure } from './errors';
import { openAiClientFor, openAiClients, type OpenAiClients } from './openai-client';
import { openAiJsonSchema } from './output-format';
import { openAiSdk, openAiStreaming } from './sdks';

export { OPENAI_INTERFACE };

export { isLocalEndpoint, NO_KEY, OPENAI_BASE_URL } from './openai-client';

/** The settings this interface reads (a structural subset of `ModelSettings`). */
export interface OpenAiModelSettings {
  /** Model id, e.g. `gpt-4o`. Required. */
  model?: string;
  /** API base URL. @default the worker's OPENAI_BASE_URL, else the SDK's `https://api.openai.com/v1` */
  base_url?: string;
  /**
   * `temperature`, `top_p`, `max_tokens`, `max_completion_tokens`, `stop`, `seed`,
   * `presence_penalty`, `frequency_penalty`, `reasoning_effort`, `parallel_tool_calls`
   * (@default false) and `timeout_ms` (@default 120000).
   */
  parameters?: Record<string, unknown>;
  /** The worker environment variable holding the API key. @default OPENAI_API_KEY */
  api_key_env?: string;
}

type MessageParam = OpenAI.Chat.ChatCompletionMessageParam;

/**
 * Maps the provider-neutral history to Chat Completions messages, system prompt first. A failed
 * tool's result is sent with an `ERROR: ` prefix (the API has no error flag).
 */
export function toOpenAiMessages(system: string, messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.content });
    } else if (m.role === 'assistant') {
      const calls = m.tool_calls ?? [];
      out.push({
        role: 'assistant',
        content: m.content,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: JSON.stringify(c.input) },
              })),
            }
          : {}),
      });
    } else {
      out.push({ role: 'tool', tool_call_id: m.tool_call_id, content: m.is_error ? `ERROR: ${m.content}` : m.content });
    }
  }
  return out;
}

/** Tool specs as function tools whose parameters are the tools' input JSON Schemas. */
export function toOpenAiTools(tools: ToolSpec[]): OpenAI.Chat.ChatCompletionFunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.input_schema, ...(t.strict !== undefined ? { strict: t.strict } : {}) },
  }));
}

function parseArguments(raw: unknown): Record<string, unknown> {
  // Some compatible servers send the arguments as an object rather than its JSON text.
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    // The executor sees the tool's own validation error and can try again.
    return {};
  }
}

function mapFinishReason(reason: string | null | undefined, hasToolCalls: boolean): ChatResponse['stop_reason'] {
  if (hasToolCalls) return 'tool_use';
  if (reason === 'stop') return 'end_turn';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

const NUMERIC_PARAMETERS = ['temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'seed', 'presence_penalty', 'frequency_penalty'];
/** The parameters mapped (typed) here; any other is sent as it is (see {@link otherParameters}). */
const MAPPED_PARAMETERS = [...NUMERIC_PARAMETERS, 'stop', 'stop_sequences', 'reasoning_effort'];

function samplingParameters(p: Record<string, unknown> | undefined): Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> {
  const out: Record<string, unknown> = { ...otherParameters(p, MAPPED_PARAMETERS) };
  for (const key of NUMERIC_PARAMETERS) {
    const n = numberParam(p, key);
    if (n !== undefined) out[key] = n;
  }
  const stop = stopParam(p);
  if (stop) out.stop = stop;
  if (typeof p?.reasoning_effort === 'string') out.reasoning_effort = p.reasoning_effort;
  return out as Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming>;
}

type Completion = OpenAI.Chat.ChatCompletion;
type Choice = Completion['choices'][number];
type FunctionCall = OpenAI.Chat.ChatCompletionMessageFunctionToolCall;

/**
 * The names compatible servers give the reasoning text (`reasoning_content`; Ollama's and current
 * vLLM's `reasoning`): assembled under the name the server used, as its plain answer has it, and
 * neither the answer nor ever sent back.
 */
const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;

type ToolCallDelta = OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall;

/**
 * Where a tool call's delta belongs: its `index`, whether the call comes whole in one delta
 * (Ollama) or in fragments. Without an index, a new id starts a call and any other delta
 * continues the last one.
 */
function toolCallSlot(calls: FunctionCall[], d: ToolCallDelta): number {
  if (typeof d.index === 'number') return d.index;
  const last = calls.length - 1;
  return last < 0 || (d.id && d.id !== calls[last]?.id) ? calls.length : last;
}

/** Adds one chunk's deltas of one choice to what is assembled so far. */
function addDelta(choice: Choice, chunk: OpenAI.Chat.ChatCompletionChunk.Choice): void {
  const { delta } = chunk;
  const message = choice.message;
  if (delta.content) message.content = (message.content ?? '') + delta.content;
  if (delta.refusal) message.refusal = (message.refusal ?? '') + delta.refusal;
  for (const field of REASONING_FIELDS) {
    const piece = (delta as Record<string, unknown>)[field];
    if (typeof piece === 'string' && piece !== '') {
      const m = message as unknown as Record<string, unknown>;
      m[field] = (typeof m[field] === 'string' ? m[field] : '') + piece;
    }
  }
  for (const d of delta.tool_calls ?? []) {
    const calls = (message.tool_calls ??= []) as FunctionCall[];
    const call = (calls[toolCallSlot(calls, d)] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
    if (d.id) call.id = d.id;
    if (d.function?.name) call.function.name = d.function.name;
    const args: unknown = d.function?.arguments;
    if (args) call.function.arguments += typeof args === 'string' ? args : JSON.stringify(args);
  }
  if (chunk.finish_reason) choice.finish_reason = chunk.finish_reason;
}

/**
 * Streams one completion, handing every content delta to `onDelta` as it arrives, and assembles
 * the chunks into the `ChatCompletion` the plain call returns (so a response filter reads the same
 * raw). Not the SDK's `stream()` helper: with a strict tool it parses the arguments and fails on
 * `finish_reason: "length"`, where the plain call answers.
 */
async function streamCompletion(
  client: OpenAI,
  body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
  options: { signal?: AbortSignal; timeout: number },
  onDelta: OnDelta,
  ctx: { interface: string; model?: string },
): Promise<Completion> {
  const response = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options).asResponse();
  // A compatible server that does not stream answers the whole completion: take it as it is.
  if (response.headers.get('content-type')?.includes('application/json')) {
    const whole = (await response.json()) as Completion;
    const text = whole.choices?.[0]?.message?.content;
    if (text) onDelta(text);
    return whole;
  }
  const stream = openAiStreaming().Stream.fromSSEResponse<OpenAI.Chat.ChatCompletionChunk>(response, new AbortController());
  const completion: Completion = { id: '', object: 'chat.completion', created: 0, model: body.model, choices: [] };
  for await (const chunk of stream) {
    // The top-level fields (id, model, usage in the last chunk, a server's own) as the plain call has them.
    const { choices, object: _object, obfuscation: _obfuscation, ...head } = chunk as OpenAI.Chat.ChatCompletionChunk & { obfuscation?: unknown };
    Object.assign(completion, Object.fromEntries(Object.entries(head).filter(([, v]) => v !== null && v !== undefined)));
    for (const c of choices) {
      const choice = (completion.choices[c.index] ??= {
        index: c.index,
        message: { role: 'assistant', content: null, refusal: null },
        // null until a chunk names it: a stream without one was cut.
        finish_reason: null as unknown as Choice['finish_reason'],
        logprobs: null,
      });
      addDelta(choice, c);
      // The answer is the first choice's (as without streaming); other choices (`n`) are only assembled.
      if (c.delta.content && c.index === 0) onDelta(c.delta.content);
    }
  }
  // Indexes that skipped a number leave holes: the calls in their order.
  for (const c of completion.choices) if (c?.message.tool_calls) c.message.tool_calls = c.message.tool_calls.filter(Boolean);
  // The SDK ends the iteration quietly when the request is aborted.
  if (options.signal?.aborted) throw new (openAiSdk().APIUserAbortError)();
  // A stream that stops before a finish reason was cut (by a proxy, a restart) without an error.
  if (completion.choices.length === 0 || completion.choices.some((c) => !c.finish_reason)) throw streamCutFailure('OpenAI', ctx);
  return completion;
}

/**
 * A completion's usage in perflow's terms: `prompt_tokens` include those read from the prompt
 * cache, named as well. A compatible server may send no usage (vLLM without `stream_options`, a
 * server that does not count): its tokens are unknown, not zero.
 */
function openAiUsage(usage: OpenAI.CompletionUsage | null | undefined): Usage {
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : undefined);
  const [input, output] = [count(usage?.prompt_tokens), count(usage?.completion_tokens)];
  const cached = count(usage?.prompt_tokens_details?.cached_tokens) ?? 0;
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    ...(cached > 0 ? { cached_input_tokens: cached } : {}),
    ...(input === undefined || output === undefined ? { tokens_unknown: true as const } : {}),
  };
}

/** What tells a turn's synthesized tool-call ids from another turn's: where the call sits in the run. */
function turnTag(position: CallPosition): string {
  if (position.role === 'executor') return `s${position.step + 1}_t${position.iteration + 1}`;
  if (position.role === 'planner' || position.role === 'task') return `${position.role === 'task' ? position.kind : 'planner'}${position.call + 1}`;
  return position.role;
}

/**
 * The turn's tool calls with ids their results can be paired by. A compatible server may send
 * none, or the same one for every call (`call_0`): a call whose id is empty or already taken in
 * the turn gets one made of the call's place in the run and its index, so the same answer at the
 * same place (a retried activity) gets the same ids.
 */
function pairableCallIds(calls: ToolCall[], position: CallPosition): ToolCall[] {
  const taken = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id;
    if (id === '' || taken.has(id)) {
      id = `call_${turnTag(position)}_${i + 1}`;
      while (taken.has(id)) id += '_';
    }
    taken.add(id);
    return id === c.id ? c : { ...c, id };
  });
}

/**
 * Calls Chat Completions once; with `onDelta`, streamed (`stream: true`), each text delta handed
 * to it as it arrives and the same response returned. The SDK's own retries are off
 * (`maxRetries: 0`): errors become `ApplicationFailure`s (see `errors.ts`) and Temporal's retry
 * policy decides.
 *
 * @throws ApplicationFailure `OpenAI.Configuration` (non-retryable) when the API key variable (`OPENAI_API_KEY` unless `api_key_env` names another) or the model is missing
 */
async function openAiChat(clients: OpenAiClients, { model, request, onDelta }: ModelCall) {
  const ctx = { interface: OPENAI_INTERFACE, model: model.model };
  const client = openAiClientFor(clients, model);
  if (!model.model) {
    throw ApplicationFailure.nonRetryable(`${OPENAI_INTERFACE} needs llm.model in the agent file`, 'OpenAI.Configuration');
  }
  const tools = request.tools ?? [];
  const jsonSchema = request.output && openAiJsonSchema(request.output);
  const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
    model: model.model,
    messages: toOpenAiMessages(request.system, request.messages),
    ...samplingParameters(model.parameters),
    ...(tools.length > 0 ? { tools: toOpenAiTools(tools), parallel_tool_calls: perflowModelParameters(model.parameters).parallel_tool_calls === true } : {}),
    // A typed answer as Structured Outputs; an agent file's own response_format (sent as it is) wins.
    ...(jsonSchema && model.parameters?.response_format === undefined ? { response_format: { type: 'json_schema' as const, json_schema: jsonSchema } } : {}),
  };
  const options = { signal: activitySignal(), timeout: timeoutMs(model.parameters) };
  const completion = onDelta ? await streamCompletion(client, body, options, onDelta, ctx) : await client.chat.completions.create(body, options);
  const choice = completion.choices[0];
  const message = choice?.message;
  const toolCalls = pairableCallIds(
    (message?.tool_calls ?? []).flatMap((c): ToolCall[] =>
      // A server may leave out `type`; a custom tool call (`type: "custom"`) is not a function's.
      c.type !== 'custom' ? [{ id: c.id ?? '', name: c.function.name, input: parseArguments(c.function.arguments) }] : [],
    ),
    request.position,
  );
  return {
    content: message?.content ?? '',
    tool_calls: toolCalls,
    stop_reason: mapFinishReason(choice?.finish_reason, toolCalls.length > 0),
    usage: openAiUsage(completion.usage),
    raw: completion,
  };
}

/** OpenAI Chat Completions (or a compatible server) as a model adapter. */
export const openAiAdapter: ModelAdapter<OpenAiClients> = {
  spec: builtinInterface(OPENAI_INTERFACE),
  connect: ({ providers }) => openAiClients(providers),
  chat: openAiChat,
  failure: openAiFailure,
  close: (clients) => clients.cache.close(),
};
