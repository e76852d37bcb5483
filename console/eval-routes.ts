/** The console API's eval routes: list, show, compare and start evals (docs/console.md). */
import type { Context, Hono } from 'hono';
import { checkEvalScope, paramsInScope } from '../client/tenant-scope';
import { compareEvalResults, evalSnapshot, listEvals, PerflowError, startEval, suiteFromJson, workflowUrl } from '../client';
import { readJsonFile } from '../client/json-file';
import { checkWorkerPolicy } from '../client/worker-policy';
import type { ApiEnv, ApiOptions } from './api-options';
import { agentFiles, offeredFile, refuseInline, suiteFiles } from './offered-files';
import { evalBody, jsonOf, parseBody } from './requests';

export function evalRoutes(api: Hono<ApiEnv>, o: ApiOptions): void {
  const { perflow } = o;
  const { config } = perflow;
  // An eval of the request's scope, or 404 as for an unknown one.
  const inScope = (c: Context<ApiEnv>, id: string) => checkEvalScope(perflow, id, c.get('scope'));

  api.get('/suites', async (c) => c.json(await suiteFiles(o.agentsDir)));

  api.get('/evals', async (c) => {
    const evals = await listEvals(perflow, 100, c.get('scope').tenant);
    return c.json(evals.map(({ eval_id, suite, agent, status, passed, failed, pass_rate, started_at, ended_at }) => ({ eval_id, suite, agent, status, passed, failed, pass_rate, started_at, ended_at: ended_at ?? null })));
  });

  api.post('/evals', async (c) => {
    const body = parseBody(evalBody, await jsonOf(c));
    if (typeof body.suite !== 'string') refuseInline(o, 'suite');
    const json = typeof body.suite === 'string' ? await readJsonFile(await offeredFile(o.agentsDir, body.suite, 'suite', suiteFiles), 'suite file') : body.suite;
    const where = typeof body.suite === 'string' ? body.suite : 'suite';
    // The agent: the body's, else the suite's; either way one of the console's agent files.
    const named = body.agent ?? (json as { agent?: unknown }).agent;
    const agent = typeof named === 'string' ? await offeredFile(o.agentsDir, named, 'agent', agentFiles) : undefined;
    // Its cases run in the token's tenant, whatever tenant_id the suite or the body names.
    const suite = await suiteFromJson(json, where, o.agentsDir, { ...(agent ? { agent } : {}), params: paramsInScope(body.params ?? {}, c.get('scope')), extraToolTypes: config.extraToolTypes, subAgentsWithin: o.agentsDir });
    checkWorkerPolicy(suite.agent, config);
    const { evalId } = await startEval(perflow, { suite, ...(body.concurrency ? { concurrency: body.concurrency } : {}) });
    return c.json({ eval_id: evalId, cases: suite.cases.length, warnings: suite.warnings, ui_url: workflowUrl(config, evalId) }, 201);
  });

  // Before /evals/:id, which would take "compare" for an ID.
  api.get('/evals/compare', async (c) => {
    const [a, b] = [c.req.query('a'), c.req.query('b')];
    if (!a || !b) throw new PerflowError('invalid', 'compare needs two evals: /api/evals/compare?a=ID&b=ID');
    for (const id of [a, b]) {
      if (!(await evalSnapshot(perflow, id))) throw new PerflowError('not_found', `no eval ${id}`);
      await inScope(c, id);
    }
    return c.json(await compareEvalResults(perflow, a, b));
  });

  api.get('/evals/:id', async (c) => {
    const id = c.req.param('id');
    const snapshot = await evalSnapshot(perflow, id);
    if (!snapshot) throw new PerflowError('not_found', `no eval ${id}`);
    await inScope(c, id);
    return c.json(snapshot);
  });
}
