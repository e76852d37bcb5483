/**
 * Binding a perflow listener (the console, `perflow mcp --http`, the codec server) to host:port:
 * one line naming the port and the option to change when it cannot be had, the URL to print,
 * and a close that also ends open connections and lets the requests being answered finish.
 * One implementation for every server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstLine } from '../core/text';
import { PerflowError } from './errors';

/** Answers a request; a promise it returns settles on its own (Hono's listener, the codec server's handler catch their errors). */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface ListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The option that chooses the port, named when it is taken. @default '--port' */
  portFlag?: string;
}

export interface Listening {
  /** `http://host:port`, an IPv6 host bracketed: the URL to print. */
  url: string;
  /** The port bound (for port 0, the free one picked). */
  port: number;
  /**
   * Stops listening, ends the open connections (an event stream would hold the server open) and
   * waits (up to 5 s) for the handlers still at work: the caller may then close the clients they use.
   */
  close(): Promise<void>;
}

/** How long close waits for the handlers still at work (a Temporal query, a MongoDB read). */
const CLOSE_WAIT_MS = 5_000;

/** Serves `handler` on host:port; resolves once it listens. @throws PerflowError `unavailable` in one line when it cannot */
export async function listen(handler: RequestHandler, o: ListenOptions): Promise<Listening> {
  const working = new Set<Promise<unknown>>();
  const server = createServer((req, res) => {
    const answering = Promise.resolve(handler(req, res)).catch(() => undefined);
    working.add(answering);
    void answering.finally(() => working.delete(answering));
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) => fail(new PerflowError('unavailable', cannotListen(err, o), { cause: err })));
    server.listen(o.port, o.host, ready);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${bracketed(o.host)}:${port}`,
    port,
    close: async () => {
      await new Promise<void>((done) => {
        // Stop accepting first, then end the connections still open; a second close is a no-op.
        server.close(() => done());
        server.closeAllConnections();
      });
      // A handler whose client went away may still be waiting on a query: closing the client
      // under it would fail it far from here (a gRPC call on a closed channel).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...working]), new Promise((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
    },
  };
}

/** Why host:port cannot be had, and what to do about it. */
function cannotListen(err: NodeJS.ErrnoException, { host, port, portFlag = '--port' }: ListenOptions): string {
  const on = bracketed(host);
  switch (err.code) {
    case 'EADDRINUSE':
      return `port ${port} on ${on} is taken: choose another with ${portFlag} PORT (0 picks a free one)`;
    case 'EACCES':
      return `port ${port} on ${on} needs privileges this user lacks (ports below 1024 do): choose another with ${portFlag} PORT`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `cannot listen on ${on}: it is not an address of this machine: choose another with --host`;
    default:
      return `cannot listen on ${on}:${port}: ${firstLine(err)}`;
  }
}

/** An IPv6 address as a URL's host: `[::1]`. */
const bracketed = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
