/**
 * `perflow mcp --http PORT`: the MCP server over streamable HTTP at `/mcp`, under the rules of
 * every perflow listener: loopback by default, a bearer token (generated when none is given, off
 * loopback always), `Host` names of its own only (DNS rebinding), no browser page of another
 * site. Each MCP session has its own server; the run tasks are shared (found by their session).
 */
import { randomUUID } from 'node:crypto';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { PerflowError } from '../client/errors';
import { listen } from '../client/listen';
import { bearerToken, checkedAllowedHost, crossSiteRefusal, hostAllowList, isLoopbackHost, newToken, refusedHostMessage, tokenMatches } from '../client/listener-guard';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export interface McpHttpOptions {
  /** A new server for each session. */
  session: () => Server;
  /** Default 127.0.0.1; any other address needs a token. */
  host?: string;
  port: number;
  /** Default: a new random one. */
  token?: string;
  /** No token (`--unsafe-no-token`): refused off loopback. */
  unsafeNoToken?: boolean;
  allowedHosts?: string[];
  /** Sessions open at once; beyond it a new one is refused (503). @default 64 */
  maxSessions?: number;
}

export interface McpHttpServer {
  /** `http://host:port/mcp` */
  url: string;
  token: string | undefined;
  tokenGenerated: boolean;
  close(): Promise<void>;
}

/** Largest request body read (an MCP request is a small JSON-RPC message). */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

export async function serveMcpHttp(o: McpHttpOptions): Promise<McpHttpServer> {
  const host = o.host ?? '127.0.0.1';
  if (o.unsafeNoToken && o.token !== undefined) throw new PerflowError('invalid', '--unsafe-no-token and a token (--token or PERFLOW_MCP_TOKEN) contradict each other: give one');
  if (o.unsafeNoToken && !isLoopbackHost(host)) throw new PerflowError('refused', `--unsafe-no-token is refused with --host ${host}: off loopback the MCP server needs a token`);
  const token = o.unsafeNoToken ? undefined : (o.token ?? newToken());
  const hostAllowed = hostAllowList(host, (o.allowedHosts ?? []).map(checkedAllowedHost));
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const maxSessions = o.maxSessions ?? 64;

  const app = new Hono();
  app.use('*', async (c, next) => {
    const h = c.req.header('host');
    if (!hostAllowed(h)) return c.json({ error: refusedHostMessage(h) }, 403);
    const refusal = crossSiteRefusal({ secFetchSite: c.req.header('sec-fetch-site'), origin: c.req.header('origin'), host: h }, 'only MCP clients may call this server');
    if (refusal) return c.json({ error: refusal }, 403);
    if (token !== undefined && !tokenMatches(bearerToken(c.req.header('authorization')), token)) {
      return c.json({ error: 'this MCP server needs its token: send "Authorization: Bearer TOKEN" (the token perflow mcp printed, or PERFLOW_MCP_TOKEN)' }, 401, { 'www-authenticate': 'Bearer' });
    }
    await next();
  });
  app.use('/mcp', bodyLimit({ maxSize: MAX_MCP_BODY_BYTES, onError: (c) => c.json({ error: `the request body is larger than ${MAX_MCP_BODY_BYTES} bytes (1 MiB)` }, 413, { connection: 'close' }) }));
  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    const known = id !== undefined ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(c.req.raw);
    if (id !== undefined) return c.json({ jsonrpc: '2.0', error: { code: -32001, message: `no session ${id}: start a new one` }, id: null }, 404);
    const body: unknown = c.req.method === 'POST' ? await c.req.json().catch(() => undefined) : undefined;
    if (!isInitializeRequest(body)) return c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'no session: the first request is initialize' }, id: null }, 400);
    if (sessions.size >= maxSessions) return c.json({ jsonrpc: '2.0', error: { code: -32000, message: `${maxSessions} sessions are open: close one (DELETE /mcp) first` }, id: null }, 503);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
      onsessionclosed: (sid) => void sessions.delete(sid),
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await o.session().connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody: body });
  });

  const server = await listen(getRequestListener(app.fetch, { hostname: host }), { host, port: o.port, portFlag: '--http' });
  return {
    url: `${server.url}/mcp`,
    token,
    tokenGenerated: token !== undefined && o.token === undefined,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      await server.close();
    },
  };
}
