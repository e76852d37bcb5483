/**
 * The `openai/v1/responses` LLM interface: one Responses API call through the official `openai`
 * SDK, with function calling and reasoning kept between the turns of a step. Stateless: nothing
 * is stored at OpenAI (`store: false`); a turn's reasoning comes back encrypted and is handed
 * back with the next turn's input.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ChatMessage, RawChatResponse, ToolCall, ToolSpec, Usage } from '../../core/llm-types';
import { builtinInterface } from '../../core/agent-file/llm-interfaces';
import { perflowModelParameters } from '../../core/agent-file/model-parameters';
import type { ModelAdapter, ModelCall } from './adapter';
import { activitySignal, numberParam, numberParams, otherParameters, timeoutMs } from './call-options';
import { openAiFailure, type ModelCallContext } from './errors';
import { openAiClientFor, openAiClients, openAiKeyVariable, type OpenAiClients, type OpenAiEndpointSettings } from './openai-client';
import { outputText, responseErrorFailure, settledResponse, streamResponse } from './openai-responses-stream';
import { openAiJsonSchema } from './output-format';
import { openAiSdk } from './sdks';

/** Interface name, as in the agent file. */
export const RESPONSES_INTERFACE = 'openai/v1/responses';

/** What every call includes: the reasoning, encrypted, so it can be handed back without OpenAI storing it. */
const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

/** The settings this interface reads (a structural subset of `ModelSettings`). */
export interface ResponsesModelSettings extends OpenAiEndpointSettings {
  /** Model id, e.g. `gpt-5`. Required. */
  model?: string;
  /**
   * `max_output_tokens` (or `max_tokens`), `temperature`, `top_p`, `reasoning` (the API's object,
   * e.g. `{ effort: 'low' }`; or `reasoning_effort`), `include` (added to the encrypted reasoning),
   * `parallel_tool_calls` (@default false) and `timeout_ms` (@default 120000); any other is sent
   * as it is. `store` is always false.
   */
  parameters?: Record<string, unknown>;
}

type InputItem = OpenAI.Responses.ResponseInputItem;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
type Response = OpenAI.Responses.Response;

/** The items a turn carries to the next: its output items as they came, when they are a list. */
function carriedItems(carry: unknown): InputItem[] | undefined {
  return Array.isArray(carry) && carry.every((item) => typeof item === 'object' && item !== null) ? (carry as InputItem[]) : undefined;
}

/**
 * Maps the provider-neutral history to Responses input items. An assistant turn that carries its
 * output items (reasoning with its encrypted content, message, function calls) sends them as they
 * came, in order; one without sends its text and its calls rebuilt. A failed tool's result is
 * sent with an `ERROR: ` prefix (the API has no error flag).
 */
export function toResponsesInput(messages: ChatMessage[]): InputItem[] {
  const out: InputItem[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.content });
    } else if (m.role === 'assistant') {
      const carried = carriedItems(m.carry);
      if (carried) {
        out.push(...carried);
        continue;
      }
      if (m.content.trim() !== '') out.push({ role: 'assistant', content: m.content });
      for (const c of m.tool_calls ?? []) out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.input) });
    } else {
      out.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.is_error ? `ERROR: ${m.content}` : m.content });
    }
  }
  return out;
}

/** Tool specs as function tools; not strict unless the tool says so (the API's default is strict, which most schemas do not meet). */
export function toResponsesTools(tools: ToolSpec[]): OpenAI.Responses.FunctionTool[] {
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.input_schema, strict: t.strict === true }));
}

const NUMERIC_PARAMETERS = ['temperature', 'top_p'];
/** The parameters mapped here; any other is sent as it is (see {@link otherParameters}). */
const MAPPED_PARAMETERS = [...NUMERIC_PARAMETERS, 'max_tokens', 'max_output_tokens', 'reasoning', 'reasoning_effort', 'include', 'store'];

/** The request body of one call, without `stream`. */
export function responsesBody(model: ResponsesModelSettings & { model: string }, request: ModelCall['request']): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const p = model.parameters;
  const tools = request.tools ?? [];
  const body: Record<string, unknown> = { ...otherParameters(p, MAPPED_PARAMETERS), ...numberParams(p, NUMERIC_PARAMETERS) };
  const maxTokens = numberParam(p, 'max_output_tokens') ?? numberParam(p, 'max_tokens');
  if (maxTokens !== undefined) body.max_output_tokens = Math.floor(maxTokens);
  if (typeof p?.reasoning === 'object' && p.reasoning !== null) body.reasoning = p.reasoning;
  else if (typeof p?.reasoning_effort === 'string') body.reasoning = { effort: p.reasoning_effort };
  if (request.system !== '') body.instructions = request.system;
  if (tools.length > 0) {
    body.tools = toResponsesTools(tools);
    // One tool call per turn unless the agent file allows more, as for Chat Completions.
    body.parallel_tool_calls = perflowModelParameters(p).parallel_tool_calls === true;
  }
  // A typed answer as Structured Outputs, merged into an agent file's own `text` (its `format` wins).
  const text: unknown = p?.text ?? {};
  const jsonSchema = request.output && openAiJsonSchema(request.output);
  if (jsonSchema && isRecord(text) && text.format === undefined) body.text = { ...text, format: { type: 'json_schema', ...jsonSchema } };
  const include = Array.isArray(p?.include) ? p.include.filter((v): v is string => typeof v === 'string') : [];
  return {
    ...body,
    model: model.model,
    input: toResponsesInput(request.messages),
    store: false,
    include: [...new Set([ENCRYPTED_REASONING, ...include])],
  } as OpenAI.Responses.ResponseCreateParamsNonStreaming;
}

function parseArguments(raw: string): Record<string, unknown> {
  try {
    const v: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    // The executor sees the tool's own validation error and can try again.
    return {};
  }
}

/**
 * A response's usage in perflow's terms, as Chat Completions': `input_tokens` include those read
 * from the prompt cache (named as well), `output_tokens` the reasoning tokens (which only the raw
 * response tells apart). A compatible server may send no usage: its tokens are unknown, not zero.
 */
export function responsesUsage(usage: Partial<OpenAI.Responses.ResponseUsage> | null | undefined): Usage {
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : undefined);
  const [input, output] = [count(usage?.input_tokens), count(usage?.output_tokens)];
  const cached = count(usage?.input_tokens_details?.cached_tokens) ?? 0;
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    ...(cached > 0 ? { cached_input_tokens: cached } : {}),
    ...(input === undefined || output === undefined ? { tokens_unknown: true as const } : {}),
  };
}

/**
 * Classifies what a call threw: the SDK's errors as for Chat Completions (errors.ts), an error the
 * SDK read from a stream's data (no status) by its code, and a refused key naming its variable.
 */
export function responsesFailure(err: unknown, ctx: ModelCallContext & { keyVariable: string }): ApplicationFailure {
  const { APIError } = openAiSdk();
  // The SDK throws an event whose data has an `error` field as an APIError without a status (connection errors have no `error`).
  if (err instanceof APIError && err.status === undefined && typeof err.error === 'object' && err.error !== null) {
    const said = err.error as { code?: string | null; message?: string | null };
    return responseErrorFailure({ code: said.code ?? err.code, message: said.message ?? err.message }, 'mid-stream', ctx);
  }
  const failure = openAiFailure(err, ctx);
  if (!(err instanceof APIError) || (err.status !== 401 && err.status !== 403)) return failure;
  return ApplicationFailure.create({ type: failure.type ?? undefined, message: `${failure.message}; check the key in ${ctx.keyVariable}`, nonRetryable: true, cause: err });
}

/**
 * Calls the Responses API once; with `onDelta`, streamed, each answer text delta handed to it
 * as it arrives and the same response returned. A turn that calls tools carries its output items
 * (`carry`) for the step's next turn. The SDK's own retries are off (`maxRetries: 0`).
 *
 * @throws ApplicationFailure `OpenAI.Configuration` (non-retryable) when the key variable or the model is missing
 */
async function responsesChat(clients: OpenAiClients, { model, request, onDelta }: ModelCall): Promise<RawChatResponse> {
  const ctx = { interface: RESPONSES_INTERFACE, model: model.model, keyVariable: openAiKeyVariable(model) };
  try {
    const client = openAiClientFor(clients, model);
    if (!model.model) throw ApplicationFailure.nonRetryable(`${RESPONSES_INTERFACE} needs llm.model in the agent file`, 'OpenAI.Configuration');
    const body = responsesBody({ ...model, model: model.model }, request);
    const options = { signal: activitySignal(), timeout: timeoutMs(model.parameters) };
    const response: Response = onDelta ? await streamResponse(client, body, options, onDelta, ctx) : settledResponse(await client.responses.create(body, options), ctx);
    const toolCalls: ToolCall[] = response.output.flatMap((item) => (item.type === 'function_call' ? [{ id: item.call_id, name: item.name, input: parseArguments(item.arguments) }] : []));
    return {
      content: outputText(response.output),
      tool_calls: toolCalls,
      stop_reason: toolCalls.length > 0 ? 'tool_use' : 'end_turn',
      usage: responsesUsage(response.usage),
      raw: response,
      // The step's next turn hands the reasoning back with the calls it led to, in order.
      ...(toolCalls.length > 0 ? { carry: response.output } : {}),
    };
  } catch (err) {
    // Here rather than as the adapter's `failure`: a refused key is named by the variable it came from.
    throw responsesFailure(err, ctx);
  }
}

/** The OpenAI Responses API as a model adapter. */
export const openAiResponsesAdapter: ModelAdapter<OpenAiClients> = {
  spec: builtinInterface(RESPONSES_INTERFACE),
  connect: ({ providers }) => openAiClients(providers),
  chat: responsesChat,
  close: (clients) => clients.cache.close(),
};
