/**
 * The OpenAI Responses API on a wire server (wire-server.ts): whole responses and their
 * server-sent events, in the order the API sends them and framed as the `openai` SDK parses them
 * (`event: <type>` and a `data:` JSON with the same `type` and a `sequence_number`).
 */
import { randomUUID } from 'node:crypto';
import { sseEvent, type WireReply, type WireStream } from './wire-server';

/** [input tokens (cached included), output tokens (reasoning included), of the input those read from the cache, of the output the reasoning tokens]. */
export type ResponsesUsage = [number, number, number?, number?];

/** What one answer holds, in output order: reasoning items, the message's text pieces, function calls (arguments in pieces). */
export interface ResponsesAnswer {
  reasoning?: { id: string; encrypted: string; summary?: string }[];
  text?: string[];
  functionCalls?: { callId: string; name: string; argumentParts: string[] }[];
  usage?: ResponsesUsage;
  model?: string;
}

export function responsesUsage([input, output, cached, reasoning]: ResponsesUsage = [10, 5]) {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning ?? 0 },
    total_tokens: input + output,
  };
}

type Item = Record<string, unknown> & { type: string; id: string };

/** The answer's output items, complete. */
function outputItems(a: ResponsesAnswer, messageId: string): Item[] {
  return [
    ...(a.reasoning ?? []).map((r) => ({
      id: r.id,
      type: 'reasoning',
      summary: r.summary ? [{ type: 'summary_text', text: r.summary }] : [],
      encrypted_content: r.encrypted,
    })),
    ...(a.text?.length
      ? [{ id: messageId, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: a.text.join(''), annotations: [], logprobs: [] }] }]
      : []),
    ...(a.functionCalls ?? []).map((f) => ({ id: `fc_${f.callId}`, type: 'function_call', status: 'completed', call_id: f.callId, name: f.name, arguments: f.argumentParts.join('') })),
  ];
}

/** A `Response` object of the answer with its status. */
export function responseObject(a: ResponsesAnswer, status = 'completed', more: Record<string, unknown> = {}): Record<string, unknown> {
  const id = `resp_${randomUUID().replace(/-/g, '')}`;
  return {
    id,
    object: 'response',
    created_at: 1,
    status,
    model: a.model ?? 'gpt-5',
    output: status === 'completed' ? outputItems(a, `msg_${id}`) : [],
    usage: status === 'completed' ? responsesUsage(a.usage) : null,
    error: null,
    incomplete_details: null,
    parallel_tool_calls: false,
    store: false,
    ...more,
  };
}

/** A Responses API reply (`POST /v1/responses` without `stream`). */
export function openAiResponse(a: ResponsesAnswer): WireReply {
  return { body: responseObject(a) };
}

/** Server-sent events of the Responses API, numbered in order. */
export function responsesEvents(events: Record<string, unknown>[]): string[] {
  return events.map((e, i) => sseEvent(String(e.type), { ...e, sequence_number: i }));
}

/**
 * The events of a streamed answer: `response.created`, `response.in_progress`, each item's
 * `output_item.added`, its deltas (text parts, function-call arguments) and `output_item.done`,
 * then `response.completed` with the whole response.
 */
export function responsesAnswerEvents(a: ResponsesAnswer): Record<string, unknown>[] {
  const whole = responseObject(a);
  const pending = { ...whole, status: 'in_progress', output: [], usage: null };
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: pending },
    { type: 'response.in_progress', response: pending },
  ];
  for (const [output_index, item] of (whole.output as Item[]).entries()) {
    const item_id = item.id;
    if (item.type === 'message') {
      events.push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } });
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      events.push({ type: 'response.content_part.added', item_id, output_index, content_index: 0, part });
      for (const delta of a.text ?? []) events.push({ type: 'response.output_text.delta', item_id, output_index, content_index: 0, delta, logprobs: [] });
      const text = (a.text ?? []).join('');
      events.push({ type: 'response.output_text.done', item_id, output_index, content_index: 0, text, logprobs: [] });
      events.push({ type: 'response.content_part.done', item_id, output_index, content_index: 0, part: { ...part, text } });
    } else if (item.type === 'function_call') {
      events.push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      const call = a.functionCalls?.find((f) => f.callId === item.call_id);
      for (const delta of call?.argumentParts ?? []) events.push({ type: 'response.function_call_arguments.delta', item_id, output_index, delta });
      events.push({ type: 'response.function_call_arguments.done', item_id, output_index, name: item.name, arguments: item.arguments });
    } else {
      events.push({ type: 'response.output_item.added', output_index, item: { ...item, encrypted_content: null } });
    }
    events.push({ type: 'response.output_item.done', output_index, item });
  }
  events.push({ type: 'response.completed', response: whole });
  return events;
}

/** A streamed answer as a wire reply. */
export function streamedResponse(a: ResponsesAnswer, o: { delayMs?: number; cutAfter?: number } = {}): WireStream {
  return eventStream(responsesAnswerEvents(a), o);
}

/** Events as they are (a failure's own, a cut stream's), as a wire reply. */
export function eventStream(events: Record<string, unknown>[], o: { delayMs?: number; cutAfter?: number } = {}): WireStream {
  return { headers: { 'content-type': 'text/event-stream' }, parts: responsesEvents(events), ...o };
}

/** The events of an answer up to (not including) the first of `type`, e.g. to fail it after its first text delta. */
export function eventsBefore(a: ResponsesAnswer, type: string, nth = 1): Record<string, unknown>[] {
  const events = responsesAnswerEvents(a);
  let seen = 0;
  const at = events.findIndex((e) => e.type === type && ++seen === nth);
  return at < 0 ? events : events.slice(0, at);
}

/** When each request the server receives from now on arrived (ms since the epoch), in order: a wait between attempts shows in them. */
export function arrivalTimes(server: { requests: unknown[] }): number[] {
  const times: number[] = [];
  const push = server.requests.push.bind(server.requests);
  server.requests.push = (...items: unknown[]) => {
    for (const _ of items) times.push(Date.now());
    return push(...items);
  };
  return times;
}
