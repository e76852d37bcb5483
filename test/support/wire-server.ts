/**
 * A local server on 127.0.0.1 that speaks a provider's wire protocol to the real SDK clients:
 * it records every request and answers from a queue of canned replies. HTTP/1.1 (`node:http`)
 * by default; cleartext HTTP/2 (`node:http2`) for the Bedrock runtime client, whose default
 * request handler speaks only HTTP/2.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Server } from 'node:net';
import { randomUUID } from 'node:crypto';
import { withEnv } from './env';

/** One canned reply. */
export interface WireReply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** One request the server received. */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A running wire server. */
export interface WireServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: WireRequest[];
  /** Queues replies, answered in order. */
  reply(...replies: WireReply[]): void;
  close(): Promise<void>;
}

/** Starts a server on an ephemeral port; `http2` for cleartext HTTP/2 with prior knowledge. */
export async function startWireServer(options: { http2?: boolean } = {}): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const queue: WireReply[] = [];
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
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = queue.shift() ?? { status: 500, body: { message: 'no reply queued' } };
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

/**
 * A Chat Completions reply: `message` as the assistant's, its finish reason `tool_calls` when it
 * calls tools and `stop` otherwise; `usage` as [prompt tokens, completion tokens]; `extra` adds
 * top-level fields (for a custom response filter).
 */
export function chatCompletion(
  message: Record<string, unknown>,
  o: { model?: string; usage?: [number, number]; finishReason?: string; extra?: Record<string, unknown> } = {},
): WireReply {
  const [prompt, completion] = o.usage ?? [10, 5];
  return {
    body: {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: 1,
      model: o.model ?? 'local',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: o.finishReason ?? (message.tool_calls ? 'tool_calls' : 'stop') }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      ...o.extra,
    },
  };
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
