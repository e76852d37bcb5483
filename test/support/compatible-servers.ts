/**
 * Chat Completions answers as OpenAI-compatible local servers give them, with what they do
 * differently from OpenAI: Ollama (tool calls whole in one delta, reasoning in `reasoning`,
 * completion ids `chatcmpl-N` that repeat, usage only when `stream_options.include_usage` asks for
 * it, `system_fingerprint: "fp_ollama"`) and vLLM (tool-call arguments in fragments, reasoning in
 * `reasoning` or the older `reasoning_content`, an extra `stop_reason` in each choice, error
 * `code`s that are numbers). Served by test/support/wire-server.ts.
 */
import { chunkStream, type WireReply, type WireStream } from './wire-server';

/** One answer of a local model. */
export interface LocalAnswer {
  content?: string[];
  reasoning?: string[];
  /** @default 'reasoning' */
  reasoningField?: 'reasoning' | 'reasoning_content';
  /** `arguments` as one string: sent whole in one delta; as a list: one fragment a delta. An `id` of '' or left out: the server sent none. */
  toolCalls?: { id?: string; name: string; arguments: string | string[] }[];
  /** [prompt tokens, completion tokens]; null: the server reports none. @default [20, 4] */
  usage?: [number, number] | null;
}

type Server = 'ollama' | 'vllm';

const usageOf = (a: LocalAnswer) => {
  if (a.usage === null) return undefined;
  const [prompt, completion] = a.usage ?? [20, 4];
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
};

const finishOf = (a: LocalAnswer) => (a.toolCalls?.length ? 'tool_calls' : 'stop');

/** The streamed answer as the server writes it. */
export function localStream(server: Server, a: LocalAnswer, o: { delayMs?: number } = {}): WireStream {
  const head = server === 'ollama' ? { id: 'chatcmpl-7', system_fingerprint: 'fp_ollama' } : { id: 'chatcmpl-9f2c' };
  const chunk = (choices: unknown[], more: Record<string, unknown> = {}) => ({ ...head, object: 'chat.completion.chunk', created: 1, model: 'qwen3:8b', choices, ...more });
  const extra = server === 'vllm' ? { logprobs: null, stop_reason: null } : {};
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: { role: 'assistant', ...d }, finish_reason: finish, ...extra }]);
  const chunks: unknown[] = [];
  for (const text of a.reasoning ?? []) chunks.push(delta({ content: '', [a.reasoningField ?? 'reasoning']: text }));
  for (const text of a.content ?? []) chunks.push(delta({ content: text }));
  const calls = (a.toolCalls ?? []).map((c, index) => ({ index, ...(c.id !== undefined ? { id: c.id } : {}), type: 'function', name: c.name, parts: typeof c.arguments === 'string' ? [c.arguments] : c.arguments }));
  if (server === 'ollama') {
    // All calls whole, in one delta.
    if (calls.length > 0) chunks.push(delta({ content: '', tool_calls: calls.map(({ parts, name, ...c }) => ({ ...c, function: { name, arguments: parts.join('') } })) }));
  } else {
    for (const { parts, name, ...c } of calls) {
      chunks.push(delta({ tool_calls: [{ ...c, function: { name, arguments: '' } }] }));
      for (const part of parts) chunks.push(delta({ tool_calls: [{ index: c.index, function: { arguments: part } }] }));
    }
  }
  chunks.push(delta({ content: '' }, finishOf(a)));
  const usage = usageOf(a);
  if (usage) chunks.push(chunk([], { usage }));
  return chunkStream(chunks, o);
}

/** The answer unstreamed (`stream: false`). */
export function localCompletion(server: Server, a: LocalAnswer): WireReply {
  const calls = (a.toolCalls ?? []).map((c, index) => ({ index, id: c.id ?? '', type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : c.arguments.join('') } }));
  const message = {
    role: 'assistant',
    content: (a.content ?? []).join(''),
    ...(a.reasoning ? { [a.reasoningField ?? 'reasoning']: a.reasoning.join('') } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
  const usage = usageOf(a);
  return {
    body: {
      id: server === 'ollama' ? 'chatcmpl-7' : 'chatcmpl-9f2c',
      object: 'chat.completion',
      created: 1,
      model: 'qwen3:8b',
      choices: [{ index: 0, message, finish_reason: finishOf(a), ...(server === 'vllm' ? { stop_reason: null, logprobs: null } : {}) }],
      ...(usage ? { usage } : {}),
    },
  };
}

/** An error as the server sends it: vLLM's `code` is the HTTP status as a number; Ollama's native routes send `{"error": "…"}`. */
export function localError(server: Server | 'ollama-native', status: number, message: string): WireReply {
  if (server === 'ollama-native') return { status, body: { error: message } };
  return { status, body: { error: { message, type: server === 'vllm' ? 'BadRequestError' : 'invalid_request_error', param: null, code: server === 'vllm' ? status : null } } };
}
