/**
 * The HTTP+JSON (REST) binding of each offered agent, under `/a2a/AGENT/…` (`message:send`,
 * `tasks/ID`, …; v0.3's `/v1/…` paths too). The routes, their JSON mapping and their error
 * statuses are the A2A SDK's own Express router: a request reaches it only after the listener's
 * guard (http.ts) has checked its host, origin and token, and is handed over as Node's
 * request and response. The body is read here, under the same limit as JSON-RPC's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type Request } from 'express';
import { restHandler } from '@a2a-js/sdk/server/express';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { TenantScope } from '../client/tenant-scope';
import { NO_SCOPE, ScopedUser } from './callers';

/** A REST request as the listener hands it over: the scope its token grants. */
export type RestDispatch = (req: IncomingMessage, res: ServerResponse, scope: TenantScope) => void;

/**
 * One Express app for every agent's routes, mounted at each agent's path.
 * @param maxBodyBytes the largest body read (a larger one is answered 413, unread)
 */
export function restRoutes(handlers: ReadonlyMap<string, A2ARequestHandler>, agentPath: (name: string) => string, maxBodyBytes: number): RestDispatch {
  const callers = new WeakMap<IncomingMessage, ScopedUser>();
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Read before the SDK's router, whose own parser then sees the body as read.
  app.use(express.json({ type: ['application/json', 'application/a2a+json'], strict: false, limit: maxBodyBytes }));
  const userBuilder = async (req: Request) => callers.get(req) ?? new ScopedUser(NO_SCOPE);
  for (const [name, requestHandler] of handlers) app.use(agentPath(name), restHandler({ requestHandler, userBuilder, legacyCompat: { enabled: true } }));
  app.use((req, res) => {
    res.status(404).json({ error: { code: 404, status: 'NOT_FOUND', message: `no A2A route ${req.method} ${req.path}: an agent's HTTP+JSON routes are under /a2a/AGENT (message:send, message:stream, tasks, tasks/ID, …)` } });
  });
  const failed: ErrorRequestHandler = (err: { status?: number; type?: string; message?: string }, _req, res, _next) => {
    const status = err.type === 'entity.too.large' ? 413 : (err.status ?? 500);
    const message = status === 413 ? `the request body is larger than ${maxBodyBytes} bytes` : status < 500 ? (err.message ?? 'bad request') : 'internal error';
    const label = status === 413 ? 'PAYLOAD_TOO_LARGE' : status < 500 ? 'INVALID_ARGUMENT' : 'INTERNAL';
    res.status(status).set(status === 413 ? { connection: 'close' } : {}).json({ error: { code: status, status: label, message } });
  };
  app.use(failed);
  return (req, res, scope) => {
    // The SDK's router never stops a stream whose client went away: its subscription ends on this signal.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    callers.set(req, new ScopedUser(scope, gone.signal));
    app(req, res);
  };
}
