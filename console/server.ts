/**
 * `perflow console`: one process serving the console's page and its JSON/SSE API against the
 * configured Temporal and MongoDB (the environment of the other commands, encryption keys
 * included). The page's modules and the libraries it imports (Preact, htm) are served from the
 * package: the console works offline and needs no build step.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { connectClient, PerflowError, type PerflowClient } from '../client';
import { packageRoot } from '../client/package-root';
import { checkedAllowedHost, hostAllowList, isLoopbackHost, newToken, refusedHostMessage, securityHeaders } from '../client/listener-guard';
import { listen } from '../client/listen';
import type { ClientConfig } from '../config/env';
import { consoleApi } from './api';
import type { ScopedToken } from './token-scopes';
import { OPERATOR } from '../client/tenant-scope';

export const CONSOLE_PORT = 7300;

export interface ConsoleOptions {
  config: ClientConfig;
  /** Default 127.0.0.1; any other address needs a token. */
  host?: string;
  /** Default 7300; 0 picks a free port. */
  port?: number;
  /** The token every API request must carry; default: a new random one, printed in the console's URL. */
  token?: string;
  /** Tokens each scoped to a tenant (`--tokens FILE`, see token-scopes.ts), instead of one token for every tenant. */
  tokens?: readonly ScopedToken[];
  /** No token at all (`--unsafe-no-token`): refused off loopback. */
  unsafeNoToken?: boolean;
  /** `Host` names served besides loopback names, IP addresses and `host` (`--allowed-host`). */
  allowedHosts?: string[];
  /** Agent files and suites given inline in request bodies (`--allow-inline-agents`); default: only the folder's. */
  allowInlineAgents?: boolean;
  /** Event streams served at once; beyond it 429. @default 64 */
  maxEventStreams?: number;
  /** The agent files the console offers (default ./agents when it exists, else the package's examples). */
  agentsDir?: string;
  /** The client to use, with its one MongoDB client (default: one of the config's, closed with the console). */
  perflow?: PerflowClient;
}

export interface ConsoleServer {
  /** `http://host:port` */
  url: string;
  /** The URL to open: with `/?token=T` when there is a token. */
  openUrl: string;
  /** The token the API requires (generated when none was given), undefined with `unsafeNoToken` or `tokens`. */
  token: string | undefined;
  /** How many scoped tokens it accepts (`tokens`), else 0. */
  scopedTokens: number;
  /** Whether the token was generated at start (and so must be shown to the user). */
  tokenGenerated: boolean;
  agentsDir: string;
  close(): Promise<void>;
}

/** Largest request body the console reads. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_EVENT_STREAMS = 64;

/** The ES modules of the libraries the page imports, by the names of its import map. */
const VENDOR: Record<string, () => string> = {
  'preact.js': () => require.resolve('preact'),
  'preact-hooks.js': () => require.resolve('preact/hooks'),
  // htm's `main` is CommonJS; its ES module sits beside it.
  'htm.js': () => join(dirname(require.resolve('htm')), 'htm.module.js'),
};

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml' };

/**
 * Starts the console; resolves once it listens.
 *
 * @throws PerflowError: `invalid` or `refused` for contradicting options or a non-loopback host
 *   without a token; `unavailable` when Temporal or MongoDB cannot be reached or the port is taken
 */
export async function startConsole(o: ConsoleOptions): Promise<ConsoleServer> {
  const host = o.host ?? '127.0.0.1';
  if (o.unsafeNoToken && o.token !== undefined) throw new PerflowError('invalid', '--unsafe-no-token and a token (--token or PERFLOW_CONSOLE_TOKEN) contradict each other: give one');
  if (o.tokens && (o.token !== undefined || o.unsafeNoToken)) throw new PerflowError('invalid', `--tokens and ${o.unsafeNoToken ? '--unsafe-no-token' : 'a token (--token or PERFLOW_CONSOLE_TOKEN)'} contradict each other: give one`);
  if (o.unsafeNoToken && !isLoopbackHost(host)) throw new PerflowError('refused', `--unsafe-no-token is refused with --host ${host}: off loopback the console needs a token (--token T, or none given: a generated one)`);
  const token = o.unsafeNoToken || o.tokens ? undefined : (o.token ?? newToken());
  // One token sees every tenant (an operator's); a tokens file scopes each.
  const tokens = o.tokens ?? (token !== undefined ? [{ token, scope: OPERATOR }] : undefined);
  const allowedHosts = (o.allowedHosts ?? []).map(checkedAllowedHost);
  const agentsDir = resolve(o.agentsDir ?? (existsSync('agents') ? 'agents' : join(packageRoot(), 'examples')));
  let perflow: PerflowClient | undefined;
  try {
    perflow = o.perflow ?? (await connectClient(o.config));
    // Every memory, event and eval read of the console goes through its client's one MongoDB client, connected now to fail fast.
    await perflow.mongo();
    const app = new Hono();
    const hostAllowed = hostAllowList(host, allowedHosts);
    const headers = securityHeaders(await inlineScriptHashes(join(pageDir(), 'index.html')));
    app.use('*', async (c, next) => {
      // A name that is not this console's (DNS rebinding) is refused before anything else.
      if (!hostAllowed(c.req.header('host'))) return c.json({ error: refusedHostMessage(c.req.header('host')) }, 403, headers);
      await next();
      for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
    });
    app.use('/api/*', bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ error: `the request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)` }, 413, { connection: 'close' }) }));
    // (The connection closes: the rest of the body is not read, so the socket cannot serve another request.)
    app.route(
      '/api',
      consoleApi({ perflow, ...(tokens ? { tokens } : {}), agentsDir, allowInlineAgents: o.allowInlineAgents ?? false, maxEventStreams: o.maxEventStreams ?? MAX_EVENT_STREAMS }),
    );
    app.get('/', () => file(join(pageDir(), 'index.html')));
    app.get('/page/*', (c) => {
      const path = normalize(c.req.path.slice('/page/'.length));
      return path.startsWith('..') ? c.json({ error: 'not found' }, 404) : file(join(pageDir(), path));
    });
    app.get('/vendor/:name', (c) => {
      const vendored = VENDOR[c.req.param('name')];
      return vendored ? file(vendored()) : c.json({ error: 'not found' }, 404);
    });
    const server = await listen(getRequestListener(app.fetch, { hostname: host }), { host, port: o.port ?? CONSOLE_PORT });
    const owned = o.perflow ? undefined : perflow;
    const { url } = server;
    return {
      url,
      openUrl: token ? `${url}/?token=${encodeURIComponent(token)}` : `${url}/`,
      token,
      scopedTokens: o.tokens?.length ?? 0,
      tokenGenerated: token !== undefined && o.token === undefined,
      agentsDir,
      async close() {
        await server.close();
        await owned?.close();
      },
    };
  } catch (err) {
    if (!o.perflow) await perflow?.close();
    throw err;
  }
}

/** The CSP hashes of a page's inline scripts (the import map), so the policy allows them and nothing else inline. */
async function inlineScriptHashes(path: string): Promise<string[]> {
  const html = await readFile(path, 'utf8');
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => `sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}`);
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

/** The page's files (console/page/, shipped as they are). */
function pageDir(): string {
  return join(packageRoot(), 'console', 'page');
}
