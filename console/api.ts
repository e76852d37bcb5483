/**
 * The console's JSON and Server-Sent Events API: what the CLI does, over HTTP, for the page
 * (and scripts). Each route answers what the matching command prints with `--json`; errors are
 * `{"error": "one line"}`, the status of the error's kind (ERROR_KINDS in client/errors.ts), or
 * one only HTTP has: 401 no token, 413 a body over 1 MiB, 429 too many event streams.
 */
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import {
  agentFromJson,
  approvePlan,
  approveTool,
  cancelRun,
  denyTool,
  diffRuns,
  forkRun,
  guideRun,
  listRuns,
  loadAgentFile,
  parseListStatus,
  pauseRun,
  PerflowError,
  raiseBudget,
  readMemory,
  rejectPlan,
  resumeRun,
  runSummary,
  startRun,
  watchRun,
  workflowUrl,
  type DecisionRecord,
  type LoadedAgent,
  type PerflowClient,
  type RunOutput,
} from '../client';
import { readSubAgentFiles } from '../client/sub-agents';
import { runStatus } from '../client/run-status';
import { webhookLine } from '../client/webhooks';
import { eventSummary } from '../client/text-views';
import { checkWorkerPolicy } from '../client/worker-policy';
import { join } from 'node:path';
import { isNotFound } from '../client/errors';
import { HttpError, httpAnswerOf, type ErrorStatus } from '../client/http-error';
import { bearerToken, crossSiteRefusal, tokenMatches } from '../client/listener-guard';
import { checkRunScope, OPERATOR, paramsInScope, type TenantScope } from '../client/tenant-scope';
import type { ScopedToken } from './token-scopes';
import type { RunEvent } from '../core/run-events';
import { SearchAttributes } from '../workflows/definitions';
import type { ApiEnv, ApiOptions } from './api-options';
import { evalRoutes } from './eval-routes';
import { scoreRoutes } from './score-routes';
import { scheduleRoutes } from './schedule-routes';
import { agentFiles, offeredFile, refuseInline } from './offered-files';
import { agUiRoutes, type StreamCount } from './ag-ui-routes';
import { decisionBody, forkBody, jsonOf, offsetOf, parseBody, startBody, type DecisionBody } from './requests';

export type { ApiOptions };

export function consoleApi(o: ApiOptions): Hono<ApiEnv> {
  const { perflow } = o;
  const { client, config } = perflow;
  const api = new Hono<ApiEnv>();

  api.use('*', async (c, next) => {
    checkOrigin(c);
    c.set('scope', o.tokens !== undefined ? scopeOfToken(c, o.tokens) : OPERATOR);
    await next();
  });
  // A run of the request's scope, or 404 as for an unknown one (routes with :id).
  const inScope = (c: Context<ApiEnv>, id = c.req.param('id')) => checkRunScope(client, id ?? '', c.get('scope'));
  const streams: StreamCount = { open: 0 };

  api.get('/info', (c) => c.json({ namespace: config.namespace, temporal_ui_url: config.uiUrl, token_required: o.tokens !== undefined, tenant: c.get('scope').tenant ?? null }));

  api.get('/runs', async (c) => {
    const status = parseListStatus(c.req.query('status') || undefined, 'status');
    // A tenant's token lists its tenant's runs whatever `tenant` it asks for.
    const asked = c.req.query('tenant') || undefined;
    const tenant = c.get('scope').tenant ?? asked;
    if (asked !== undefined && asked !== tenant) return c.json([]);
    const runs = await listRuns(client, status, 100, c.req.query('agent') || undefined, tenant);
    return c.json(
      runs.map((wf) => {
        const { workflow_id, status: state, start_time, close_time } = runSummary(wf);
        const pending = wf.typedSearchAttributes.get(SearchAttributes.pending);
        return {
          workflow_id,
          agent: wf.memo?.agent ?? null,
          agent_type: wf.memo?.agent_type ?? null,
          fingerprint: wf.memo?.fingerprint ?? null,
          status: state.toLowerCase(),
          question: wf.memo?.question ?? null,
          start_time,
          close_time: close_time ?? null,
          waiting_for: state === 'RUNNING' && pending !== undefined && pending !== 'none' ? pending : null,
        };
      }),
    );
  });

  api.get('/agents', async (c) => c.json(await agentFiles(o.agentsDir)));

  api.post('/runs', async (c) => {
    const body = parseBody(startBody, await jsonOf(c));
    const { agent, parameters } = await loadAgent(o, body.agent, paramsInScope(body.params ?? {}, c.get('scope')), config.extraToolTypes);
    const run = await startRun(perflow, { agent, parameters, question: body.question, ...(body.on_busy ? { onBusy: body.on_busy } : {}), ...(body.webhook ? { webhook: body.webhook } : {}) });
    return c.json(startedJson(config, run), 201);
  });

  api.get('/runs/:id', async (c) => {
    const id = c.req.param('id');
    await inScope(c);
    const { status } = await runStatus(client, id);
    // The delivery as `perflow status` words it, so the page does not word it a second way.
    return c.json({ ...status, ui_url: workflowUrl(config, id), ...(status.webhook ? { webhook_line: webhookLine(status.webhook) } : {}) });
  });

  api.get('/runs/:id/result', async (c) => {
    const id = c.req.param('id');
    await inScope(c);
    const handle = client.workflow.getHandle(id);
    const { status } = await handle.describe();
    if (status.name === 'RUNNING') throw new PerflowError('conflict', `run ${id} has not ended yet (GET /api/runs/${id}/events follows it)`);
    const output = (await handle.result()) as RunOutput;
    return c.json({ workflow_id: id, run_id: (await handle.describe()).runId, ...output });
  });

  api.get('/runs/:id/events', async (c) => {
    const id = c.req.param('id');
    await client.workflow.getHandle(id).describe(); // an unknown run is a 404, before the stream starts
    await inScope(c);
    // EventSource sends the last offset it saw when it reconnects.
    const lastSeen = offsetOf(c.req.header('last-event-id'), 'Last-Event-ID');
    const from = lastSeen !== undefined ? lastSeen + 1 : offsetOf(c.req.query('from'), 'from');
    // Each stream polls MongoDB: a bound keeps one client from exhausting the console.
    if (streams.open >= o.maxEventStreams) throw new HttpError(429, `this console serves at most ${o.maxEventStreams} event streams at once: close one and retry`);
    streams.open++;
    return streamSSE(c, async (stream) => {
      const stop = new AbortController();
      stream.onAbort(() => stop.abort());
      try {
        // The page draws one run's events: a tree's descendants stream on their own IDs.
        for await (const event of watchRun(perflow, id, { ...(from !== undefined ? { from } : {}), signal: stop.signal, descendants: false })) {
          await stream.writeSSE({ id: String(event.offset), event: event.type, data: eventData(event) });
        }
      } finally {
        streams.open--;
      }
    });
  });

  api.post('/runs/:id/decisions', async (c) => {
    const id = c.req.param('id');
    const body = parseBody(decisionBody, await jsonOf(c));
    await inScope(c);
    return c.json({ workflow_id: id, ...(await decide(perflow, id, body)) });
  });

  api.post('/runs/:id/fork', async (c) => {
    const id = c.req.param('id');
    const body = parseBody(forkBody, await jsonOf(c));
    await inScope(c);
    const agent = body.agent !== undefined ? (await loadAgent(o, body.agent, body.params ?? {}, config.extraToolTypes)).agent : undefined;
    const run = await forkRun(perflow, id, {
      fromStep: body.from_step,
      ...(agent ? { agent } : {}),
      params: body.params ?? {},
      ...(body.question !== undefined ? { question: body.question } : {}),
    });
    return c.json(startedJson(config, run), 201);
  });

  api.get('/diff', async (c) => {
    const [a, b] = [c.req.query('a'), c.req.query('b')];
    if (!a || !b) throw new PerflowError('invalid', 'diff needs two runs: /api/diff?a=ID&b=ID');
    for (const id of [a, b]) {
      await client.workflow.getHandle(id).describe().catch((err: unknown) => Promise.reject(isNotFound(err) ? new PerflowError('not_found', `no run ${id}`) : err));
      await inScope(c, id);
    }
    return c.json(await diffRuns(client, a, b));
  });

  api.get('/memory/:memoryId', async (c) => {
    const id = c.req.param('memoryId');
    // A tenant's token reads its tenant's memories only; an operator's any, or one tenant's with ?tenant.
    const tenant = c.get('scope').tenant ?? (c.req.query('tenant') || undefined);
    const view = await readMemory(perflow, id, tenant);
    if (!view) throw new PerflowError('not_found', `memory_id ${id} not found${tenant !== undefined ? ` for tenant ${tenant}` : ''}`);
    return c.json(view);
  });

  evalRoutes(api, o);
  scoreRoutes(api, o);
  scheduleRoutes(api, o);
  agUiRoutes(api, o, streams, inScope);

  api.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
  api.onError((err, c) => {
    const { status, message } = httpErrorOf(err, config.namespace, c.req.param('id'));
    return c.json({ error: message }, status);
  });
  return api;
}

/** The status and one line an error answers with; Temporal's "not found" names the run. */
/**
 * An event as the stream sends it: its JSON with `summary`, its line as `perflow watch` and MCP
 * progress word it (a finished step's without the step's text, which only an earlier event has:
 * a resumed stream sends each event as the first did).
 */
export function eventData(event: RunEvent): string {
  const summary = eventSummary(event);
  return JSON.stringify(summary === undefined ? event : { ...event, summary });
}

function httpErrorOf(err: Error, namespace: string, workflowId: string | undefined): { status: ErrorStatus; message: string } {
  // A PerflowError says what happened itself, even with a "not found" cause (a decision on a run that ended).
  if (!(err instanceof PerflowError) && isNotFound(err)) return { status: 404, message: `no run ${workflowId ?? ''} in namespace ${namespace}`.replace('  ', ' ') };
  return httpAnswerOf(err, { namespace, ...(workflowId ? { workflowId } : {}) });
}

/**
 * Requests from other pages are refused (CSRF): a browser's cross-site fetch says so in
 * `Sec-Fetch-Site`, and a state-changing request must come from the console's own origin. A
 * request without `Origin` is not a browser's (curl, scripts): the token in its Authorization
 * header guards it.
 */
function checkOrigin(c: Context): void {
  const refusal =
    crossSiteRefusal({ secFetchSite: c.req.header('sec-fetch-site') }, "only the console's own page may call its API") ??
    (c.req.method === 'GET' || c.req.method === 'HEAD' ? undefined : crossSiteRefusal({ origin: c.req.header('origin'), host: c.req.header('host') }, "only the console's own page may change runs"));
  if (refusal) throw new PerflowError('refused', refusal);
}

/** The event stream is the one route a browser cannot send a header to (EventSource): it alone takes `?token=`. */
const isEventStream = (c: Context) => c.req.method === 'GET' && /^\/api\/runs\/[^/]+\/events$/.test(c.req.path);

/** The scope of the request's token (every token is compared, in constant time each); 401 without one that matches. */
function scopeOfToken(c: Context, tokens: readonly ScopedToken[]): TenantScope {
  const given = bearerToken(c.req.header('authorization')) ?? (isEventStream(c) ? c.req.query('token') : undefined);
  const matched = tokens.filter((t) => tokenMatches(given, t.token));
  if (matched[0] === undefined) throw new HttpError(401, 'this console needs its token: Authorization: Bearer TOKEN (the event stream: ?token=TOKEN); perflow console prints it in its URL');
  return matched[0].scope;
}

/** Sends a decision (or cancels) as the CLI's decision commands do. */
async function decide({ client }: PerflowClient, id: string, d: DecisionBody): Promise<DecisionRecord | { kind: 'cancel'; action: 'cancel' }> {
  const by = d.by !== undefined ? { by: d.by } : {};
  switch (d.kind) {
    case 'approve':
      return approvePlan(client, id, { ...by, ...(d.steps ? { steps: d.steps } : {}) });
    case 'reject':
      return rejectPlan(client, id, { ...by, reason: d.reason, stop: d.stop ?? false });
    case 'approve_tool':
      return approveTool(client, id, { ...by, ...(d.input ? { input: d.input } : {}) });
    case 'deny_tool':
      return denyTool(client, id, { ...by, reason: d.reason });
    case 'guide':
      return guideRun(client, id, d.text, by);
    case 'pause':
      return pauseRun(client, id, { ...by, ...(d.reason ? { reason: d.reason } : {}) });
    case 'resume':
      return resumeRun(client, id, by);
    case 'raise_budget':
      return raiseBudget(client, id, { ...by, usd: d.usd });
    case 'cancel': {
      const { status } = await client.workflow.getHandle(id).describe();
      if (status.name !== 'RUNNING') throw new PerflowError('conflict', `${id} cannot be cancelled: the run has ended (${status.name.toLowerCase()})`);
      await cancelRun(client, id);
      return { kind: 'cancel', action: 'cancel' };
    }
  }
}

/** What POST /api/runs and /fork answer: `run --json`'s document. */
function startedJson(config: PerflowClient['config'], run: Awaited<ReturnType<typeof startRun>>) {
  return { workflow_id: run.workflowId, run_id: run.runId, ...run.ids, ui_url: workflowUrl(config, run.workflowId, run.runId) };
}

/** An agent given as a file of the console's folder (by name only), or as an agent file's JSON when inline agents are allowed. */
async function loadAgent(o: ApiOptions, agent: string | Record<string, unknown>, params: Record<string, unknown>, extraToolTypes: string[]): Promise<LoadedAgent> {
  const loaded = await (async () => {
    if (typeof agent !== 'string') {
      refuseInline(o, 'agent');
      // An inline agent's sub-agents are files of the console's folder.
      const subAgentFiles = await readSubAgentFiles(agent, join(o.agentsDir, 'agent.json'), { within: o.agentsDir });
      return agentFromJson(agent, 'agent', params, { extraToolTypes, subAgentFiles });
    }
    return loadAgentFile(await offeredFile(o.agentsDir, agent, 'agent', agentFiles), params, { extraToolTypes, subAgentsWithin: o.agentsDir });
  })();
  // What the workers' declared policy refuses is refused here, in one line, before a run starts (as `perflow run` does).
  checkWorkerPolicy(loaded.agent, o.perflow.config);
  return loaded;
}
