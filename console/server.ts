/**
 * `perflow console`: one process serving the console's page and its JSON/SSE API against the
 * configured Temporal and MongoDB (the environment of the other commands, encryption keys
 * included). The page's modules and the libraries it imports (Preact, htm) are served from the
 * package: the console works offline and needs no build step.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { MongoClient } from 'mongodb';
import { CliError, connectClient, type PerflowClient } from '../client';
import { mongoUriFromEnv, redact, type ClientConfig } from '../config/env';
import { firstLine } from '../core/text';
import { consoleApi } from './api';

export const CONSOLE_PORT = 7300;

export interface ConsoleOptions {
  config: ClientConfig;
  env: NodeJS.ProcessEnv;
  /** Default 127.0.0.1; any other address needs a token. */
  host?: string;
  /** Default 7300; 0 picks a free port. */
  port?: number;
  token?: string;
  /** The agent files the console offers (default ./agents when it exists, else the package's examples). */
  agentsDir?: string;
  /** A Temporal connection to use (default: one of the config's, closed with the console). */
  perflow?: PerflowClient;
}

export interface ConsoleServer {
  /** `http://host:port` */
  url: string;
  agentsDir: string;
  close(): Promise<void>;
}

/** The ES modules of the libraries the page imports, by the names of its import map. */
const VENDOR: Record<string, () => string> = {
  'preact.js': () => require.resolve('preact'),
  'preact-hooks.js': () => require.resolve('preact/hooks'),
  // htm's `main` is CommonJS; its ES module sits beside it.
  'htm.js': () => join(dirname(require.resolve('htm')), 'htm.module.js'),
};

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml' };

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host);

/**
 * Starts the console; resolves once it listens.
 *
 * @throws CliError (exit 2) for a non-loopback host without a token; (exit 1) when Temporal or
 *   MongoDB cannot be reached or the port is taken
 */
export async function startConsole(o: ConsoleOptions): Promise<ConsoleServer> {
  const host = o.host ?? '127.0.0.1';
  if (!isLoopback(host) && !o.token) throw new CliError(`--host ${host} would open the console to the network: set --token T (or PERFLOW_CONSOLE_TOKEN)`, 2);
  const agentsDir = resolve(o.agentsDir ?? (existsSync('agents') ? 'agents' : join(packageRoot(), 'examples')));
  const uri = mongoUriFromEnv(o.env);
  const mongo = await new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 }).connect().catch((err: unknown) => {
    throw new CliError(`cannot reach MongoDB at ${redact(uri)} (${firstLine(err)}): start it or set MONGODB_URI`, 1, { cause: err });
  });
  let perflow: PerflowClient | undefined;
  try {
    perflow = o.perflow ?? (await connectClient(o.config));
    const app = new Hono();
    app.route('/api', consoleApi({ perflow, env: o.env, ...(o.token ? { token: o.token } : {}), agentsDir, mongo }));
    app.get('/', () => file(join(pageDir(), 'index.html')));
    app.get('/page/*', (c) => {
      const path = normalize(c.req.path.slice('/page/'.length));
      return path.startsWith('..') ? c.json({ error: 'not found' }, 404) : file(join(pageDir(), path));
    });
    app.get('/vendor/:name', (c) => {
      const vendored = VENDOR[c.req.param('name')];
      return vendored ? file(vendored()) : c.json({ error: 'not found' }, 404);
    });
    const server = serve({ fetch: app.fetch, hostname: host, port: o.port ?? CONSOLE_PORT });
    await new Promise<void>((ready, fail) => {
      server.once('listening', ready);
      server.once('error', (err: NodeJS.ErrnoException) => fail(new CliError(err.code === 'EADDRINUSE' ? `port ${o.port ?? CONSOLE_PORT} is taken: choose another with --port` : firstLine(err), 1, { cause: err })));
    });
    const { port } = server.address() as AddressInfo;
    const owned = o.perflow ? undefined : perflow;
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      agentsDir,
      async close() {
        // Open event streams would hold the server: end them with it.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        await new Promise<void>((done) => server.close(() => done()));
        await owned?.close();
        await mongo.close();
      },
    };
  } catch (err) {
    if (!o.perflow) await perflow?.close();
    await mongo.close();
    throw err;
  }
}

/** A file as the response, typed by its extension; 404 when it is not there. */
async function file(path: string): Promise<Response> {
  try {
    const body = await readFile(path);
    return new Response(body, { headers: { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-cache' } });
  } catch {
    return Response.json({ error: 'not found' }, { status: 404 });
  }
}

/** The package's root: two levels above this module compiled (dist/console/), one in a checkout. */
function packageRoot(): string {
  const here = __dirname;
  return existsSync(join(here, '..', 'package.json')) ? resolve(here, '..') : resolve(here, '..', '..');
}

/** The page's files (console/page/, shipped as they are). */
function pageDir(): string {
  return join(packageRoot(), 'console', 'page');
}
