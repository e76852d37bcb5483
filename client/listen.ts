/**
 * Binding a perflow listener (the console, `perflow mcp --http`, the codec server) to host:port:
 * one line naming the port and the option to change when it cannot be had, the URL to print,
 * and a close that also ends open connections. One implementation for every server.
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
  /** Stops listening and ends the open connections (an event stream would hold the server open). */
  close(): Promise<void>;
}

/** Serves `handler` on host:port; resolves once it listens. @throws PerflowError `unavailable` in one line when it cannot */
export async function listen(handler: RequestHandler, o: ListenOptions): Promise<Listening> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((ready, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) => fail(new PerflowError('unavailable', cannotListen(err, o), { cause: err })));
    server.listen(o.port, o.host, ready);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${bracketed(o.host)}:${port}`,
    port,
    close: () =>
      new Promise<void>((done) => {
        // Stop accepting first, then end the connections still open; a second close is a no-op.
        server.close(() => done());
        server.closeAllConnections();
      }),
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
