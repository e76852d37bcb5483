/**
 * The `google/generate_content` LLM interface: one Gemini API `generateContent` call through the
 * official `@google/genai` SDK, with native function calling (`functionCall` /
 * `functionResponse` parts) and the turn's thought signatures handed back on the next turn.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Content, FunctionDeclaration, GenerateContentConfig, GoogleGenAI, Part, Tool } from '@google/genai';
import type { ChatMessage, RawChatResponse, ToolCall, ToolSpec } from '../../core/llm-types';
import { builtinInterface } from '../../core/agent-file/llm-interfaces';
import type { ProviderConfig } from '../../core/provider-config';
import type { ModelAdapter, ModelCall } from './adapter';
import { activitySignal, numberParam, otherParameters, stopParam, timeoutMs } from './call-options';
import { clientCache, type ClientCache } from './client-cache';
import { geminiFailure } from './gemini-errors';
import { checkAnswer, geminiUsage, isSynthesizedId, readStream, toChatResponse, type GeminiCarry, type GeminiResponse } from './gemini-response';
import { googleGenAiSdk } from './sdks';

/** Interface name, as in the agent file. */
export const GEMINI_INTERFACE = 'google/generate_content';

/** The worker variables this interface reads: the key (else `fallbackApiKey`; a model's `api_key_env` names another) and the operator's endpoint (a model's `base_url` wins). */
export const GEMINI_VARIABLES = { apiKey: 'GEMINI_API_KEY', fallbackApiKey: 'GOOGLE_API_KEY', baseUrl: 'GEMINI_BASE_URL' } as const;

/** Given to the SDK when nothing names an endpoint, so it never takes one from its own variables. */
const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

/** The settings this interface reads (a structural subset of `ModelSettings`). */
export interface GeminiModelSettings {
  /** Model id, e.g. `gemini-2.5-flash`. Required. */
  model?: string;
  /** API base URL (without `/v1beta`). @default the worker's GEMINI_BASE_URL, else `https://generativelanguage.googleapis.com` */
  base_url?: string;
  /**
   * `temperature`, `top_p`, `top_k`, `max_tokens`, `stop`/`stop_sequences`,
   * `thinking_config`/`thinkingConfig` and `timeout_ms` (@default 120000); `tool_config`,
   * `safety_settings`, `cached_content`, `service_tier` and `store` go in the request, any other
   * in `generationConfig`, as they are.
   */
  parameters?: Record<string, unknown>;
  /** The worker environment variable holding the API key. @default GEMINI_API_KEY, else GOOGLE_API_KEY */
  api_key_env?: string;
}

const NUMERIC_PARAMETERS = { temperature: 'temperature', top_p: 'topP', top_k: 'topK' } as const;
const THINKING_PARAMETERS = ['thinking_config', 'thinkingConfig'];
/** The parameters mapped here; any other is sent as it is (see {@link otherParameters}). */
const MAPPED_PARAMETERS = [...Object.keys(NUMERIC_PARAMETERS), 'max_tokens', 'stop', 'stop_sequences', ...THINKING_PARAMETERS];
/** The request's own fields besides `generationConfig` (proto names and JSON names: the API takes both). */
const REQUEST_FIELDS = new Set(['tool_config', 'toolConfig', 'safety_settings', 'safetySettings', 'cached_content', 'cachedContent', 'service_tier', 'serviceTier', 'store']);

/** Appends parts to the last content when it has the same role: a turn's tool results go back in one user content. */
function pushParts(out: Content[], role: 'user' | 'model', parts: Part[]): void {
  if (parts.length === 0) return;
  const last = out[out.length - 1];
  if (last?.role === role) last.parts = [...(last.parts ?? []), ...parts];
  else out.push({ role, parts });
}

/** The carried parts of an assistant message, when they are what this adapter carries. */
function carriedParts(carry: unknown): Part[] | undefined {
  const parts = (carry as Partial<GeminiCarry> | undefined)?.parts;
  return Array.isArray(parts) && parts.length > 0 ? parts : undefined;
}

/** A call's part as Gemini gave it: its id only when Gemini gave one. */
const callPart = (c: ToolCall): Part => ({ functionCall: { ...(isSynthesizedId(c.id) ? {} : { id: c.id }), name: c.name, args: c.input } });

/**
 * Google's documented stand-in for a thought signature the history no longer has (a turn from
 * before carrying, or from another provider): Gemini 3 and later refuse a replayed call without one.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Models that check thought signatures on replayed calls: every Gemini but the 1.x and 2.x ones. */
export const checksSignatures = (model: string): boolean => !/^(models\/)?gemini-[12][.-]/.test(model);

/** A rebuilt turn's parts with the stand-in signature on its first call, where the model wants one. */
function signedFirstCall(parts: Part[]): Part[] {
  const first = parts.findIndex((p) => p.functionCall !== undefined);
  return first < 0 ? parts : parts.map((p, i) => (i === first ? { ...p, thoughtSignature: SKIP_SIGNATURE } : p));
}

/**
 * Maps the provider-neutral history to Gemini contents (`user` / `model`). An assistant turn that
 * carries its parts sends them as received (thought signatures included); otherwise its text and
 * `functionCall` parts. Tool results become `functionResponse` parts (`{output}`, `{error}` for a
 * failed tool) in one user content per turn, in the order of the calls they answer, each with its
 * call's id, or without one and by name and order when Gemini gave the call none. With
 * `signMissing`, a rebuilt turn's first call carries {@link SKIP_SIGNATURE}.
 */
export function toGeminiContents(messages: ChatMessage[], options: { signMissing?: boolean } = {}): Content[] {
  const out: Content[] = [];
  let calls: ToolCall[] = [];
  let results: { at: number; part: Part }[] = [];
  const flushResults = () => {
    pushParts(out, 'user', results.sort((a, b) => a.at - b.at).map((r) => r.part));
    results = [];
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      const at = calls.findIndex((c) => c.id === m.tool_call_id);
      const id = isSynthesizedId(m.tool_call_id) ? {} : { id: m.tool_call_id };
      const response = m.is_error ? { error: m.content } : { output: m.content };
      results.push({ at: at >= 0 ? at : calls.length + results.length, part: { functionResponse: { ...id, name: m.name, response } } });
      continue;
    }
    flushResults();
    if (m.role === 'user') {
      pushParts(out, 'user', m.content === '' ? [] : [{ text: m.content }]);
    } else {
      calls = m.tool_calls ?? [];
      const rebuilt: Part[] = [...(m.content.trim() === '' ? [] : [{ text: m.content }]), ...calls.map(callPart)];
      pushParts(out, 'model', carriedParts(m.carry) ?? (options.signMissing ? signedFirstCall(rebuilt) : rebuilt));
    }
  }
  flushResults();
  return out;
}

/** Tool specs as function declarations whose parameters are the tools' input JSON Schemas. */
export function toGeminiTools(tools: ToolSpec[]): Tool[] {
  const declarations: FunctionDeclaration[] = tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.input_schema }));
  return [{ functionDeclarations: declarations }];
}

/**
 * The call's config: sampling, tools, the SDK's own loops off, and in the request body as they
 * are (`extraBody`, merged into the body the SDK builds) the parameters it does not know and the
 * contents: the SDK's converter would reorder a carried part's fields and drop those it does not
 * know, where the API wants the parts back exactly as it gave them.
 */
function callConfig(model: GeminiModelSettings, request: ModelCall['request'], contents: Content[], abortSignal: AbortSignal): GenerateContentConfig {
  const p = model.parameters;
  const config: GenerateContentConfig = {
    abortSignal,
    // The SDK's own loops (calling tools, resuming a stream) stay off: the agent calls the tools, Temporal retries.
    automaticFunctionCalling: { disable: true },
    automaticContinuation: false,
  };
  for (const [key, name] of Object.entries(NUMERIC_PARAMETERS)) {
    const n = numberParam(p, key);
    if (n !== undefined) config[name] = n;
  }
  const maxTokens = numberParam(p, 'max_tokens');
  if (maxTokens !== undefined) config.maxOutputTokens = Math.floor(maxTokens);
  const stop = stopParam(p);
  if (stop) config.stopSequences = stop;
  const thinking = THINKING_PARAMETERS.map((k) => p?.[k]).find((v) => typeof v === 'object' && v !== null);
  if (thinking) config.thinkingConfig = thinking;
  if (request.system !== '') config.systemInstruction = { parts: [{ text: request.system }] };
  if (request.tools?.length) config.tools = toGeminiTools(request.tools);
  // A typed answer: Gemini's own JSON mode with the schema, unless the agent file asks for a response format itself.
  if (request.output && !['response_mime_type', 'responseMimeType', 'response_json_schema', 'responseJsonSchema', 'response_schema', 'responseSchema'].some((k) => p?.[k] !== undefined)) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = request.output.schema;
  }
  const rest = Object.entries(otherParameters(p, MAPPED_PARAMETERS) ?? {});
  const top = rest.filter(([k]) => REQUEST_FIELDS.has(k));
  const generation = rest.filter(([k]) => !REQUEST_FIELDS.has(k));
  config.httpOptions = { extraBody: { ...Object.fromEntries(top), ...(generation.length > 0 ? { generationConfig: Object.fromEntries(generation) } : {}), contents } };
  return config;
}

/** The call's signal: the activity's cancellation, and the request timeout until the answer begins. */
function callSignal(ms: number) {
  const activity = activitySignal();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ms);
  const onCancel = () => controller.abort();
  if (activity?.aborted) controller.abort();
  activity?.addEventListener('abort', onCancel);
  return {
    signal: controller.signal,
    aborted: () => activity?.aborted === true,
    timedOut: () => timedOut && activity?.aborted !== true,
    /** The answer began: the timeout no longer applies (a streamed answer may take longer). */
    begun: () => clearTimeout(timer),
    done: () => {
      clearTimeout(timer);
      activity?.removeEventListener('abort', onCancel);
    },
  };
}

interface GeminiClients {
  providers: ProviderConfig;
  cache: ClientCache<{ apiKey: string; baseUrl: string }, GoogleGenAI>;
}

/** The key of the model's variable, else GEMINI_API_KEY, else GOOGLE_API_KEY, with the variable it came from. */
function keyOf(providers: ProviderConfig, model: GeminiModelSettings): { apiKey?: string; keyVariable: string } {
  if (model.api_key_env) return { apiKey: providers.secret(model.api_key_env), keyVariable: model.api_key_env };
  const keyVariable = providers.secret(GEMINI_VARIABLES.apiKey) ? GEMINI_VARIABLES.apiKey : providers.secret(GEMINI_VARIABLES.fallbackApiKey) ? GEMINI_VARIABLES.fallbackApiKey : GEMINI_VARIABLES.apiKey;
  return { apiKey: providers.secret(keyVariable), keyVariable };
}

/**
 * Calls `generateContent` once; with `onDelta`, streamed (`streamGenerateContent?alt=sse`), each
 * answer text piece handed to it as it arrives and the same response returned. The SDK's own
 * retries, tool calling and stream continuation are off: its errors become `Gemini.<Kind>`
 * failures (gemini-errors.ts) and Temporal's retry policy decides.
 *
 * @throws ApplicationFailure `Gemini.Configuration` (non-retryable) when the key or the model is missing
 */
async function geminiChat({ providers, cache }: GeminiClients, { model, request, onDelta }: ModelCall): Promise<RawChatResponse> {
  const { apiKey, keyVariable } = keyOf(providers, model);
  const call = callSignal(timeoutMs(model.parameters));
  const ctx = { interface: GEMINI_INTERFACE, model: model.model, keyVariable, aborted: call.aborted, timedOut: call.timedOut };
  try {
    if (!apiKey) {
      const named = model.api_key_env ? keyVariable : `${GEMINI_VARIABLES.apiKey} (or ${GEMINI_VARIABLES.fallbackApiKey})`;
      throw ApplicationFailure.nonRetryable(`${named} is not set in the worker's environment`, 'Gemini.Configuration');
    }
    if (!model.model) throw ApplicationFailure.nonRetryable(`${GEMINI_INTERFACE} needs llm.model in the agent file`, 'Gemini.Configuration');
    // Keyed by the key's value too: a rotated key gets a new client.
    const client = cache.get({ apiKey, baseUrl: model.base_url ?? providers.setting(GEMINI_VARIABLES.baseUrl) ?? DEFAULT_BASE_URL });
    const contents = toGeminiContents(request.messages, { signMissing: checksSignatures(model.model) });
    const params = { model: model.model, contents, config: callConfig(model, request, contents, call.signal) };
    let response: GeminiResponse;
    let received: Part[] | undefined;
    if (onDelta) {
      const stream = await client.models.generateContentStream(params);
      call.begun();
      ({ response, received } = await readStream(stream, onDelta, ctx));
    } else {
      const { candidates, promptFeedback, usageMetadata, modelVersion, responseId } = await client.models.generateContent(params);
      response = Object.fromEntries(Object.entries({ candidates, promptFeedback, usageMetadata, modelVersion, responseId }).filter(([, v]) => v !== undefined));
    }
    checkAnswer(response, ctx);
    return { ...toChatResponse(response, received), usage: geminiUsage(response.usageMetadata), raw: response };
  } catch (err) {
    // Here rather than as the adapter's `failure`: a refused key is named by the variable it came from.
    throw geminiFailure(err, ctx);
  } finally {
    call.done();
  }
}

/** The Gemini API as a model adapter. */
export const geminiAdapter: ModelAdapter<GeminiClients> = {
  spec: builtinInterface(GEMINI_INTERFACE),
  connect: ({ providers }) => ({
    providers,
    cache: clientCache(
      ({ apiKey, baseUrl }) =>
        // Everything explicit: the SDK reads GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL and keys of its own otherwise.
        // No `retryOptions`: without them the SDK makes one attempt (with them, even `attempts: 1` goes through p-retry, which rewraps errors).
        // `fetch` given: the process's own, as the other SDKs use it (the SDK's default reaches for undici's global dispatcher, absent in other realms).
        new (googleGenAiSdk().GoogleGenAI)({ apiKey, vertexai: false, apiVersion: 'v1beta', httpOptions: { baseUrl, fetch: (input, init) => fetch(input, init) } }),
    ),
  }),
  chat: geminiChat,
  close: (clients) => clients.cache.close(),
};
