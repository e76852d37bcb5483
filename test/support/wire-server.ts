/**
 * A local server on 127.0.0.1 that speaks a provider's wire protocol to the real SDK clients:
 * it records every request and answers from a queue of canned replies. HTTP/1.1 (`node:http`)
 * by default; cleartext HTTP/2 (`node:http2`) for the Bedrock runtime client, whose default
 * request handler speaks only HTTP/2. A reply may be streamed: its parts written one by one (server-sent
 * events for OpenAI, `application/vnd.amazon.eventstream` frames for Bedrock), optionally apart in
 * time or with the connection cut partway.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { constants as http2Constants, createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Server } from 'node:net';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { withEnv } from './env';

/** Checks the request a reply answers: what it returns is sent instead (a 400, as the API would refuse it), `undefined` to answer as queued. */
export type WireCheck = (request: WireRequest) => WireReply | undefined;

/** One canned reply. */
export interface WireReply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  check?: WireCheck;
}

/** One streamed reply: its parts are written as they are, in order. */
export interface WireStream {
  status?: number;
  headers?: Record<string, string>;
  /** Already framed: SSE text or event-stream frames. */
  parts: (string | Uint8Array)[];
  /** Wait before each part after the first. */
  delayMs?: number;
  /** Cut the connection (socket destroyed; HTTP/2 stream reset) after this many parts. */
  cutAfter?: number;
  check?: WireCheck;
}

/** One request the server received. */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** A running wire server. */
export interface WireServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: WireRequest[];
  /** Queues replies, answered in order. */
  reply(...replies: (WireReply | WireStream)[]): void;
  close(): Promise<void>;
}

/** Starts a server on an ephemeral port; `http2` for cleartext HTTP/2 with prior knowledge. */
export async function startWireServer(options: { http2?: boolean } = {}): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const queue: (WireReply | WireStream)[] = [];
  const handle = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        // keep the raw text
      }
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() };
      requests.push(request);
      const queued = queue.shift() ?? { status: 500, body: { message: 'no reply queued' } };
      const reply = queued.check?.(request) ?? queued;
      if ('parts' in reply) {
        void writeStream(res, reply);
        return;
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  };
  const sessions = new Set<{ destroy(): void }>();
  const server: Server & { closeAllConnections?: () => void } = options.http2 ? createHttp2Server(handle) : createServer(handle);
  server.on('session', (session: { destroy(): void; on(e: 'close', f: () => void): void }) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        for (const session of sessions) session.destroy();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

async function writeStream(res: ServerResponse | Http2ServerResponse, reply: WireStream): Promise<void> {
  res.writeHead(reply.status ?? 200, reply.headers);
  for (const [i, part] of reply.parts.entries()) {
    if (i > 0 && reply.delayMs) await sleep(reply.delayMs);
    // The test may have closed the server meanwhile.
    if (res.destroyed) return;
    if (i === reply.cutAfter) {
      if ('stream' in res) res.stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR);
      else res.socket?.destroy();
      return;
    }
    (res as { write(chunk: string | Uint8Array): boolean }).write(part);
  }
  res.end();
}

/** A wire server for the test file, started before its tests with `env` (given the server's URL) set, and closed after them. */
export function useWireServer(env: (url: string) => Record<string, string | undefined> = () => ({})): () => WireServer {
  let server: WireServer | undefined;
  let restoreEnv: (() => void) | undefined;
  beforeAll(async () => {
    server = await startWireServer();
    restoreEnv = withEnv(env(server.url));
  });
  afterAll(async () => {
    await server?.close();
    restoreEnv?.();
  });
  return () => {
    if (!server) throw new Error('the wire server is not ready: use it inside a test');
    return server;
  };
}

/** [prompt tokens, completion tokens, of the prompt's those read from the prompt cache]. */
type ChatUsage = [number, number, number?];

function chatUsage([prompt, completion, cached]: ChatUsage = [10, 5]) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}) };
}

/**
 * A Chat Completions reply: `message` as the assistant's, its finish reason `tool_calls` when it
 * calls tools and `stop` otherwise; `usage` as [prompt tokens, completion tokens, of the prompt's
 * those read from the prompt cache]; `extra` adds
 * top-level fields (for a custom response filter).
 */
export function chatCompletion(
  message: Record<string, unknown>,
  o: { model?: string; usage?: ChatUsage; finishReason?: string; extra?: Record<string, unknown> } = {},
): WireReply {
  return {
    body: {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: 1,
      model: o.model ?? 'local',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: o.finishReason ?? (message.tool_calls ? 'tool_calls' : 'stop') }],
      usage: chatUsage(o.usage),
      ...o.extra,
    },
  };
}

/** What one streamed Chat Completions reply holds. */
export interface StreamedCompletion {
  /** The answer text, one content delta a piece. */
  content?: string[];
  /** Tool calls, each sent as a first delta with its id and name and then its arguments in `argumentParts`. */
  toolCalls?: { id: string; name: string; argumentParts: string[] }[];
  finishReason?: string;
  /** As in {@link chatCompletion}, sent in a last chunk without choices (`stream_options.include_usage`). */
  usage?: ChatUsage;
  /** Top-level fields of every chunk (for a custom response filter). */
  extra?: Record<string, unknown>;
}

/**
 * A streamed Chat Completions reply: server-sent `chat.completion.chunk`s, the role first, then the
 * content and tool call deltas, the finish reason, the usage, and `data: [DONE]`.
 */
export function streamedChatCompletion(c: StreamedCompletion, o: { delayMs?: number; cutAfter?: number } = {}): WireStream {
  const id = `chatcmpl-${randomUUID()}`;
  const chunk = (choices: unknown[], more: Record<string, unknown> = {}) => ({ id, object: 'chat.completion.chunk', created: 1, model: 'local', choices, ...c.extra, ...more });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);
  const chunks: unknown[] = [delta({ role: 'assistant', content: '' })];
  for (const text of c.content ?? []) chunks.push(delta({ content: text }));
  for (const [index, call] of (c.toolCalls ?? []).entries()) {
    chunks.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const part of call.argumentParts) chunks.push(delta({ tool_calls: [{ index, function: { arguments: part } }] }));
  }
  chunks.push(delta({}, c.finishReason ?? (c.toolCalls?.length ? 'tool_calls' : 'stop')));
  chunks.push(chunk([], { usage: chatUsage(c.usage) }));
  return chunkStream(chunks, o);
}

/** Chat Completions chunks as they are, as server-sent events ending `data: [DONE]` (a compatible server's own shapes). */
export function chunkStream(chunks: unknown[], o: { delayMs?: number; cutAfter?: number } = {}): WireStream {
  return {
    headers: { 'content-type': 'text/event-stream' },
    parts: [...chunks.map((x) => `data: ${JSON.stringify(x)}\n\n`), 'data: [DONE]\n\n'],
    ...o,
  };
}

/** [uncached input tokens, output tokens, cache reads, cache writes] of a Messages answer. */
type MessagesUsage = [number, number, number?, number?];

/** What one Anthropic Messages answer holds: text pieces, then tool uses (input JSON in pieces). */
export interface MessagesAnswer {
  /** Extended thinking before the answer: a thinking block (its text in pieces, then its signature) or a redacted one. */
  thinking?: { parts: string[]; signature: string } | { redacted: string };
  text?: string[];
  toolUses?: { id: string; name: string; inputParts: string[] }[];
  stopReason?: string;
  usage?: MessagesUsage;
  model?: string;
}

function messagesUsage([input, output, read, written]: MessagesUsage = [10, 5]) {
  return { input_tokens: input, output_tokens: output, cache_read_input_tokens: read ?? 0, cache_creation_input_tokens: written ?? 0 };
}

function messageHead(a: MessagesAnswer) {
  return { id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', model: a.model ?? 'claude-sonnet-4-6', stop_sequence: null };
}

const stopReasonOf = (a: MessagesAnswer) => a.stopReason ?? (a.toolUses?.length ? 'tool_use' : 'end_turn');

/** A Messages API reply (`POST /v1/messages` without `stream`). */
export function anthropicMessage(a: MessagesAnswer): WireReply {
  const t = a.thinking;
  const content = [
    ...(t ? ['redacted' in t ? { type: 'redacted_thinking', data: t.redacted } : { type: 'thinking', thinking: t.parts.join(''), signature: t.signature }] : []),
    ...(a.text?.length ? [{ type: 'text', text: a.text.join('') }] : []),
    ...(a.toolUses ?? []).map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: JSON.parse(t.inputParts.join('')) as unknown })),
  ];
  return { body: { ...messageHead(a), content, stop_reason: stopReasonOf(a), usage: messagesUsage(a.usage) } };
}

/** One server-sent event as the Messages API frames it: the SDK skips events without an `event:` line. */
export const sseEvent = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A streamed Messages reply: `message_start` (with the input counts), a `ping`, each content
 * block's start, deltas and stop, `message_delta` (stop reason, cumulative output tokens) and
 * `message_stop`.
 */
export function streamedAnthropicMessage(a: MessagesAnswer, o: { delayMs?: number; cutAfter?: number } = {}): WireStream {
  const usage = messagesUsage(a.usage);
  const events: string[] = [
    sseEvent('message_start', { type: 'message_start', message: { ...messageHead(a), content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }),
    sseEvent('ping', { type: 'ping' }),
  ];
  const block = (index: number, start: unknown, deltas: unknown[]) => {
    events.push(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: start }));
    for (const delta of deltas) events.push(sseEvent('content_block_delta', { type: 'content_block_delta', index, delta }));
    events.push(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
  };
  let index = 0;
  const t = a.thinking;
  if (t && 'redacted' in t) block(index++, { type: 'redacted_thinking', data: t.redacted }, []);
  else if (t) block(index++, { type: 'thinking', thinking: '', signature: '' }, [...t.parts.map((thinking) => ({ type: 'thinking_delta', thinking })), { type: 'signature_delta', signature: t.signature }]);
  if (a.text?.length) block(index++, { type: 'text', text: '' }, a.text.map((text) => ({ type: 'text_delta', text })));
  for (const t of a.toolUses ?? []) {
    block(index++, { type: 'tool_use', id: t.id, name: t.name, input: {} }, t.inputParts.map((partial_json) => ({ type: 'input_json_delta', partial_json })));
  }
  events.push(sseEvent('message_delta', { type: 'message_delta', delta: { stop_reason: stopReasonOf(a), stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  events.push(sseEvent('message_stop', { type: 'message_stop' }));
  return { headers: { 'content-type': 'text/event-stream' }, parts: events, ...o };
}

/** One Bedrock event-stream message: an event (`messageStart`, `contentBlockDelta`, ...) or an exception (`throttlingException`, ...). */
export type BedrockStreamEvent = { event: string; body: unknown } | { exception: string; body: unknown };

const eventCodec = new EventStreamCodec((b) => new TextDecoder().decode(b), (s) => new TextEncoder().encode(s));

/** A streamed Converse reply (`ConverseStream`): each event one `application/vnd.amazon.eventstream` frame. */
export function converseStream(events: BedrockStreamEvent[], o: { delayMs?: number; cutAfter?: number } = {}): WireStream {
  const frame = (e: BedrockStreamEvent): Uint8Array => {
    const kind = 'event' in e
      ? { ':message-type': 'event', ':event-type': e.event }
      : { ':message-type': 'exception', ':exception-type': e.exception };
    const headers = Object.fromEntries(
      Object.entries({ ...kind, ':content-type': 'application/json' }).map(([k, v]) => [k, { type: 'string' as const, value: v }]),
    );
    return eventCodec.encode({ headers, body: new TextEncoder().encode(JSON.stringify(e.body)) });
  };
  return { headers: { 'content-type': 'application/vnd.amazon.eventstream' }, parts: events.map(frame), ...o };
}

/**
 * The events of a streamed Converse answer: any reasoning (a `reasoningContent` block), its text
 * in `text` pieces, then any tool uses (input JSON in pieces), `messageStop` and the `metadata`
 * with the usage [uncached input, output tokens, cache reads, cache writes].
 */
export function converseEvents(a: {
  reasoning?: string[];
  text?: string[];
  toolUses?: { id: string; name: string; inputParts: string[] }[];
  stopReason?: string;
  usage?: [number, number, number?, number?];
}): BedrockStreamEvent[] {
  const events: BedrockStreamEvent[] = [{ event: 'messageStart', body: { role: 'assistant' } }];
  let index = 0;
  for (const [pieces, delta] of [
    [a.reasoning, (text: string) => ({ reasoningContent: { text } })],
    [a.text, (text: string) => ({ text })],
  ] as const) {
    if (!pieces?.length) continue;
    for (const text of pieces) events.push({ event: 'contentBlockDelta', body: { contentBlockIndex: index, delta: delta(text) } });
    events.push({ event: 'contentBlockStop', body: { contentBlockIndex: index++ } });
  }
  for (const t of a.toolUses ?? []) {
    events.push({ event: 'contentBlockStart', body: { contentBlockIndex: index, start: { toolUse: { toolUseId: t.id, name: t.name } } } });
    for (const input of t.inputParts) events.push({ event: 'contentBlockDelta', body: { contentBlockIndex: index, delta: { toolUse: { input } } } });
    events.push({ event: 'contentBlockStop', body: { contentBlockIndex: index++ } });
  }
  events.push({ event: 'messageStop', body: { stopReason: a.stopReason ?? (a.toolUses?.length ? 'tool_use' : 'end_turn') } });
  const [input, output, read, written] = a.usage ?? [10, 5];
  const cache = { ...(read !== undefined ? { cacheReadInputTokens: read } : {}), ...(written !== undefined ? { cacheWriteInputTokens: written } : {}) };
  events.push({ event: 'metadata', body: { usage: { inputTokens: input, outputTokens: output, totalTokens: input + output + (read ?? 0) + (written ?? 0), ...cache }, metrics: { latencyMs: 10 } } });
  return events;
}

/**
 * Runs a streamed call with an `onDelta` that records the text deltas; `leadMs` is how long
 * before the call returned the first delta arrived (a stream, not one answer at the end).
 */
export async function streamedCall<T>(call: (onDelta: (text: string) => void) => Promise<T>): Promise<{ result: T; deltas: string[]; leadMs: number }> {
  const deltas: string[] = [];
  let firstAt: number | undefined;
  const result = await call((text) => {
    firstAt ??= Date.now();
    deltas.push(text);
  });
  return { result, deltas, leadMs: Date.now() - (firstAt ?? Date.now()) };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}
