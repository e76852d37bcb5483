/**
 * `perflow a2a`: the offered agents as A2A agents over HTTP, under the rules of every perflow
 * listener (client/listener-guard.ts): loopback by default, a bearer token on every request (the
 * generated one, or `--tokens FILE` with a tenant each), `Host` names of its own only, no
 * browser page of another site, a bounded body. Each agent has its card at
 * `/a2a/AGENT/.well-known/agent-card.json`, its JSON-RPC endpoint at `/a2a/AGENT` and its
 * HTTP+JSON routes under it (rest.ts) — A2A v1.0, or v0.3 when the request says so or names no
 * version; the default agent's card is also at `/.well-known/agent-card.json`.
 */
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { PerflowClient } from '../client/connect';
import { PerflowError } from '../client/errors';
import { listen } from '../client/listen';
import { bearerToken, checkedAllowedHost, crossSiteRefusal, hostAllowList, newToken, refusedHostMessage } from '../client/listener-guard';
import { OPERATOR, type TenantScope } from '../client/tenant-scope';
import type { ScopedToken } from '../console/token-scopes';
import type { OfferedAgent } from '../mcp/agent-tools';
import { agentPath, cardJson, legacyCardJson } from './agent-cards';
import { ScopedUser, scopeOfToken } from './callers';
import { agentHandler } from './request-handler';
import { MongoPushConfigStore } from './push-configs';
import { PushNotifier, type PushRetry } from './push-notifier';
import { restRoutes, type RestDispatch } from './rest';

export interface A2aServerOptions {
  perflow: PerflowClient;
  agents: readonly OfferedAgent[];
  agentsDir: string;
  /** The agent also at `/.well-known/agent-card.json` (its `tool` name). */
  defaultAgent?: string;
  /** Default 127.0.0.1. */
  host?: string;
  port: number;
  /** Tokens and their tenants; default: one new token seeing every tenant. */
  tokens?: ScopedToken[];
  allowedHosts?: string[];
  /** How push notification deliveries are retried. @default 24 hours, from 5 s */
  pushRetry?: PushRetry;
}

export interface A2aServer {
  url: string;
  /** The generated token (none when `tokens` were given). */
  token?: string;
  close(): Promise<void>;
}

/** Largest request body read: a message is a question or an answer, far below it. */
export const MAX_A2A_BODY_BYTES = 1024 * 1024;

export async function serveA2a(o: A2aServerOptions): Promise<A2aServer> {
  const host = o.host ?? '127.0.0.1';
  const generated = o.tokens === undefined ? newToken() : undefined;
  const tokens: ScopedToken[] = o.tokens ?? [{ token: generated!, scope: OPERATOR }];
  const hostAllowed = hostAllowList(host, (o.allowedHosts ?? []).map(checkedAllowedHost));
  const byName = new Map(o.agents.map((a) => [a.tool, a]));
  if (o.defaultAgent !== undefined && !byName.has(o.defaultAgent)) throw new PerflowError('invalid', `--default ${o.defaultAgent} is not one of the agents (${[...byName.keys()].join(', ')})`);
  const defaultAgent = byName.get(o.defaultAgent ?? (o.agents.length === 1 ? o.agents[0].tool : ''));

  const app = new Hono();
  app.use('*', async (c, next) => {
    const h = c.req.header('host');
    if (!hostAllowed(h)) return c.json({ error: refusedHostMessage(h) }, 403);
    const refusal = crossSiteRefusal({ secFetchSite: c.req.header('sec-fetch-site'), origin: c.req.header('origin'), host: h }, 'only A2A clients may call this server');
    if (refusal) return c.json({ error: refusal }, 403);
    const scope = scopeOfToken(bearerToken(c.req.header('authorization')), tokens);
    if (!scope) return c.json({ error: 'this A2A server needs a token: send "Authorization: Bearer TOKEN" (the token perflow a2a printed, or one of its --tokens file)' }, 401, { 'www-authenticate': 'Bearer' });
    c.set('scope' as never, scope as never);
    await next();
  });
  const card = (c: Context, agent: OfferedAgent | undefined) => {
    if (!agent) return c.json({ error: `no such agent: the agents are ${[...byName.keys()].join(', ')} (their cards at /a2a/AGENT/.well-known/agent-card.json)` }, 404);
    const base = `http://${c.req.header('host')}`;
    const legacy = isLegacy(c.req.header('a2a-version'));
    return c.json(legacy ? legacyCardJson(agent, base) : cardJson(agent, base), 200, { vary: 'A2A-Version', 'cache-control': 'no-cache' });
  };
  app.get('/.well-known/agent-card.json', (c) => card(c, defaultAgent));
  app.get('/a2a/:agent/.well-known/agent-card.json', (c) => card(c, byName.get(c.req.param('agent'))));
  // HTTP+JSON: Node's request goes to the SDK's router unread (it reads the body under the same limit).
  const rest: { dispatch?: RestDispatch } = {};
  app.all('/a2a/:agent/:route{.+}', (c) => {
    if (!rest.dispatch) return c.json({ error: 'the server is starting: try again in a moment' }, 503);
    const { incoming, outgoing } = c.env as HttpBindings;
    rest.dispatch(incoming, outgoing, c.get('scope' as never) as TenantScope);
    return RESPONSE_ALREADY_SENT;
  });
  app.use('*', bodyLimit({ maxSize: MAX_A2A_BODY_BYTES, onError: (c) => c.json({ error: `the request body is larger than ${MAX_A2A_BODY_BYTES} bytes (1 MiB)` }, 413, { connection: 'close' }) }));

  const server = await listen(getRequestListener(app.fetch, { hostname: host }), { host, port: o.port });
  // Push configs are kept in MongoDB: the tasks a previous server was notifying are followed again.
  const notifier: PushNotifier = new PushNotifier(o.perflow, () => pushConfigs, o.pushRetry);
  const pushConfigs = new MongoPushConfigStore(o.perflow, (r) => notifier.follow(r));
  notifier.resume().catch((err: unknown) => console.error(`perflow a2a: push notifications not resumed (${(err as Error).message}); restart the server to resume them`));
  const handlers = new Map(o.agents.map((a) => [a.tool, transports(agentHandler({ perflow: o.perflow, agent: a, agentsDir: o.agentsDir, baseUrl: server.url, pushConfigs }))]));
  rest.dispatch = restRoutes(new Map([...handlers].map(([name, t]) => [name, t.handler])), (name) => agentPath(byName.get(name)!), MAX_A2A_BODY_BYTES);

  app.post('/a2a/:agent', async (c) => {
    const t = handlers.get(c.req.param('agent'));
    if (!t) return c.json({ jsonrpc: '2.0', id: null, error: { code: -32601, message: `no agent "${c.req.param('agent')}" here: ${[...byName.keys()].map((n) => agentPath(byName.get(n)!)).join(', ')}` } }, 404);
    return jsonRpc(c, t);
  });

  return {
    url: server.url,
    ...(generated ? { token: generated } : {}),
    close: async () => {
      await notifier.close();
      await server.close();
    },
  };
}

interface Transports {
  handler: A2ARequestHandler;
  v1: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
}

const transports = (handler: A2ARequestHandler): Transports => ({ handler, v1: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler) });

/** A request for v0.3: it says so, or names no version (v0.3 clients send none). */
const isLegacy = (version: string | undefined): boolean => version === undefined || version.trim() === '' || version.trim().startsWith('0.');

type RpcResponse = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };

async function jsonRpc(c: Context, t: Transports): Promise<Response> {
  const body: unknown = await c.req.json().catch(() => undefined);
  if (typeof body !== 'object' || body === null) return c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the body is not a JSON-RPC request (JSON object)' } });
  const id = (body as { id?: string | number }).id ?? null;
  const version = c.req.header('a2a-version');
  const legacy = isLegacy(version);
  const mapError = (err: unknown) => (legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err));
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, key) => (headers[key] = value));
  const context = new ServerCallContext({
    user: new ScopedUser(c.get('scope' as never)),
    requestedVersion: legacy ? '0.3' : version!.trim(),
    state: new Map<string, unknown>([['headers', headers]]),
  });
  let answer: RpcResponse | AsyncGenerator<RpcResponse, void, undefined>;
  try {
    validateVersion(context.requestedVersion, await t.handler.getAgentCard(), 'JSONRPC');
    answer = await (legacy ? t.legacy : t.v1).handle(body as Record<string, unknown>, context);
  } catch (err) {
    return c.json({ jsonrpc: '2.0', id, error: mapError(err) });
  }
  if (!(Symbol.asyncIterator in answer)) return c.json(answer);
  const events = answer;
  let first: IteratorResult<RpcResponse, void>;
  try {
    first = await events.next();
  } catch (err) {
    return c.json({ jsonrpc: '2.0', id, error: mapError(err) });
  }
  const encoder = new TextEncoder();
  let pending: IteratorResult<RpcResponse, void> | undefined = first;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await events.next());
        pending = undefined;
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(sseEvent(next.value)));
      } catch (err) {
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: mapError(err) })}\n\n`));
        controller.close();
      }
    },
    // The client went away: stop following the run (the run goes on).
    async cancel() {
      await events.return(undefined);
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' } });
}

/** One SSE event; an update from the run's stream has its offset as the event's `id` (a re-attaching client sends it back as `Last-Event-ID`). */
function sseEvent(message: RpcResponse): string {
  const offset = offsetIn(message.result);
  return `${offset !== undefined ? `id: ${offset}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
}

function offsetIn(result: unknown): number | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as Record<string, { metadata?: { perflow?: { offset?: unknown } } } | undefined> & { metadata?: { perflow?: { offset?: unknown } } };
  const offset = (r.statusUpdate ?? r.artifactUpdate ?? r).metadata?.perflow?.offset;
  return typeof offset === 'number' ? offset : undefined;
}
