/**
 * A local server on 127.0.0.1 that speaks a provider's wire protocol to the real SDK clients:
 * it records every request and answers from a queue of canned replies. HTTP/1.1 (`node:http`)
 * by default; cleartext HTTP/2 (`node:http2`) for the Bedrock runtime client, whose default
 * request handler speaks only HTTP/2.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Server } from 'node:net';

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

/** Sets environment variables and returns a function that restores them. */
export function withEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>): void => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  };
  apply(vars);
  return () => apply(saved);
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
