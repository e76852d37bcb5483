/**
 * Webhooks on run ends: a receiver on loopback verifies every request with the `standardwebhooks`
 * library (not perflow's signing code). A run's end is delivered once; a receiver answering 503
 * gets the same `webhook-id` again until it answers 200; a 410 stops delivery after one attempt;
 * a failed run's end is delivered too; no key is ever in a body or its headers (not even one a provider
 * quoted back into a run's error); a URL on a host the policy does not allow is refused
 * before the run starts; `perflow status` shows how delivery went.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { RunEndedPayload } from '../../core/webhooks';
import { agentFromJson, startRun } from '../../client/run';
import { nonEmptyLines, useCli } from '../support/cli';
import { scriptedAgent, until, untilProgress } from '../support/harness';
import { useWorkerProcess } from '../support/spawn-worker';
import { ONE_STEP_SCRIPT } from '../support/script';
import type { WebhookDelivery } from '../../workflows/webhooks';
import { webhookDeliveryOf } from '../../client/webhooks';

jest.setTimeout(120_000);

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
// The in-process worker reads its signing secret when it delivers.
process.env.PERFLOW_WEBHOOK_SECRET = SECRET;
afterAll(() => {
  delete process.env.PERFLOW_WEBHOOK_SECRET;
});

const cli = useCli('webhooks');
/** The client's view of the worker policy: the CLI checks webhook hosts against it before starting. */
const POLICY_ENV = { PERFLOW_ALLOW_HOSTS: '127.0.0.1,localhost' };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What `Webhook.verify` made of it; undefined when the signature did not verify. */
  payload?: RunEndedPayload;
}

/** A receiver: each request verified and recorded, answered with the next status of its path's script (then 200). */
const received: Received[] = [];
const scripts = new Map<string, number[]>();
let server: Server;
let base: string;
beforeAll(async () => {
  const verifier = new Webhook(SECRET);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: RunEndedPayload | undefined;
      try {
        payload = verifier.verify(body, req.headers as Record<string, string>) as RunEndedPayload;
      } catch {
        payload = undefined;
      }
      // A model provider that refuses the key it was sent, echoing it back in its error (as providers quote keys).
      if (req.url?.startsWith('/provider/')) {
        res.statusCode = 401;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization ?? ''}`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
        return;
      }
      received.push({ path: req.url ?? '', headers: req.headers, body, ...(payload ? { payload } : {}) });
      res.statusCode = scripts.get(req.url ?? '')?.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const at = (path: string) => received.filter((r) => r.path === path);
const delivery = (runWorkflowId: string) => cli.harness.client.workflow.getHandle(`${runWorkflowId}/webhook`).result() as Promise<WebhookDelivery>;

async function startWithWebhook(agentFile: unknown, path: string, extra: { initial_interval_ms?: number; url?: string } = {}, perflow = cli.harness.perflow) {
  const { agent, parameters } = agentFromJson(agentFile, 'agent');
  const { url = `${base}${path}`, ...rest } = extra;
  return startRun(perflow, { agent, parameters, question: `webhook ${path}`, webhook: { url, ...rest } });
}

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

it('perflow run --webhook delivers the run end once, signed, and perflow status shows it delivered', async () => {
  const agentFile = cli.agentFile('one-step', scriptedAgent(ONE_STEP_SCRIPT));
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'one step', '--webhook', `${base}/a`, '--wait', '--json'], POLICY_ENV);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { workflow_id: string; run_id?: string; memory_id: string; response: string };
  expect(out.response).toBe('the answer');
  expect(await delivery(out.workflow_id)).toEqual({ delivered: true, attempts: 1, status: 200 });
  const [hit, ...more] = at('/a');
  expect(more).toEqual([]);
  expect(hit.payload).toMatchObject({ type: 'run.ended', workflow_id: out.workflow_id, memory_id: out.memory_id, agent: 'test-agent', status: 'completed', response: 'the answer', steps_executed: 1 });
  expect(hit.payload!.usage).toHaveProperty('cost_usd');
  expect(Date.parse(hit.payload!.ended_at)).toBeGreaterThanOrEqual(Date.parse(hit.payload!.started_at));
  expect(hit.headers['webhook-id']).toBe(`run-ended_${out.workflow_id}_${hit.payload!.run_id}`);
  expect(hit.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
  // The secret is nowhere in what is sent.
  expect(hit.body).not.toContain(SECRET.slice(6));
  const status = await cli.perflow(['status', out.workflow_id, '--json'], POLICY_ENV);
  expect(JSON.parse(status.stdout).webhook).toEqual({ state: 'delivered', attempts: 1, last_status: 200 });
  const text = await cli.perflow(['status', out.workflow_id], POLICY_ENV);
  expect(nonEmptyLines(text.stdout)).toContain('  webhook: delivered (1 attempt, HTTP 200)');
});

it('never carries a key in a webhook body or its headers, not even one a provider echoed into the run error', async () => {
  // Sentinels in every variable a key is read from: the client's, the worker's (this process) and an agent's api_key_env.
  const sentinels = { OPENAI_API_KEY: `sk-sentinel-openai-${randomBytes(8).toString('hex')}`, PERFLOW_TEST_AGENT_KEY: `sk-sentinel-agent-${randomBytes(8).toString('hex')}` };
  const saved = Object.fromEntries(Object.keys(sentinels).map((k) => [k, process.env[k]]));
  Object.assign(process.env, sentinels);
  try {
    const agentFile = cli.agentFile('keyed', scriptedAgent(ONE_STEP_SCRIPT));
    const ok = await cli.perflow(['run', '--agent', agentFile, '--question', 'one step', '--webhook', `${base}/keyed`, '--wait', '--json'], { ...POLICY_ENV, ...sentinels });
    expect(ok.code).toBe(0);
    const keyed = JSON.parse(ok.stdout) as { workflow_id: string };
    // An agent whose provider refuses its key and quotes it back: the run fails with the provider's error.
    const provider = { name: 'refused-key', type: 'plan_execute_and_reflect', llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini', base_url: `${base}/provider/v1`, api_key_env: 'PERFLOW_TEST_AGENT_KEY' } };
    const refused = await startWithWebhook(provider, '/refused');
    await expect(refused.handle.result()).rejects.toThrow();
    const refusedId = refused.workflowId;
    await delivery(keyed.workflow_id);
    await delivery(refusedId);
    const hits = [...at('/keyed'), ...at('/refused')];
    expect(hits.map((h) => h.payload?.status)).toEqual(['completed', 'failed']);
    for (const hit of hits) {
      const sent = `${hit.body}\n${JSON.stringify(hit.headers)}`;
      for (const secret of [...Object.values(sentinels), SECRET, SECRET.slice(6)]) expect(sent).not.toContain(secret);
    }
    // The failed run's end still says why, with the key left out.
    expect(at('/refused')[0].payload!.error).toContain('Incorrect API key provided: Bearer [redacted]');
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

it('retries a receiver answering 503 with the same webhook-id and a valid signature each time, until it answers 200', async () => {
  scripts.set('/b', [503, 503]);
  const run = await startWithWebhook(scriptedAgent(ONE_STEP_SCRIPT), '/b', { initial_interval_ms: 200 });
  await run.handle.result();
  expect(await delivery(run.workflowId)).toEqual({ delivered: true, attempts: 3, status: 200 });
  const hits = at('/b');
  expect(hits).toHaveLength(3);
  // Every attempt verified (payload present), under one id, with the same body.
  expect(hits.every((h) => h.payload !== undefined)).toBe(true);
  expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
  expect(new Set(hits.map((h) => h.body)).size).toBe(1);
  expect(hits[0].payload).toMatchObject({ workflow_id: run.workflowId, run_id: run.runId, status: 'completed' });
});

it('stops at a 410 after one attempt, and perflow status says it gave up', async () => {
  scripts.set('/gone', [410, 410, 410]);
  const run = await startWithWebhook(scriptedAgent(ONE_STEP_SCRIPT), '/gone', { initial_interval_ms: 100 });
  await run.handle.result();
  const d = await delivery(run.workflowId);
  expect(d).toMatchObject({ delivered: false, attempts: 1, status: 410 });
  expect(d.error).toMatch(/410 Gone/);
  expect(at('/gone')).toHaveLength(1);
  const status = await cli.perflow(['status', run.workflowId, '--json']);
  expect(JSON.parse(status.stdout).webhook).toMatchObject({ state: 'given_up', attempts: 1, last_status: 410 });
});

it('delivers a failed run end with its error', async () => {
  // A planner whose answers never parse: the run fails.
  const run = await startWithWebhook(scriptedAgent({ planner: ['not a plan', 'still not', 'nope', 'no'] }), '/failed');
  await expect(run.handle.result()).rejects.toThrow();
  expect(await delivery(run.workflowId)).toMatchObject({ delivered: true, attempts: 1 });
  const [hit] = at('/failed');
  expect(hit.payload).toMatchObject({ workflow_id: run.workflowId, status: 'failed' });
  expect(hit.payload!.error).toEqual(expect.any(String));
});

it("a schedule's runs deliver their ends to the schedule's webhook, each under its own run's id", async () => {
  const id = `hooked-${process.pid}`;
  const agentFile = cli.agentFile('scheduled', scriptedAgent(ONE_STEP_SCRIPT));
  const created = await cli.perflow(['schedule', 'create', id, '--agent', agentFile, '--question', 'scheduled, hooked', '--every', '1h', '--webhook', `${base}/scheduled`, '--json'], POLICY_ENV);
  expect(created.stderr).toBe('');
  try {
    expect((await cli.perflow(['schedule', 'trigger', id], POLICY_ENV)).code).toBe(0);
    const [hit] = await until(() => Promise.resolve(at('/scheduled')), (hits) => hits.length > 0 && hits[0].payload !== undefined, 'the scheduled run delivered');
    expect(hit.payload).toMatchObject({ type: 'run.ended', status: 'completed', response: 'the answer' });
    expect(hit.payload!.workflow_id.startsWith(`${id}-`)).toBe(true);
    expect(hit.headers['webhook-id']).toBe(`run-ended_${hit.payload!.workflow_id}_${hit.payload!.run_id}`);
    // A host the policy does not allow is refused at create, in one line.
    const refused = await cli.perflow(['schedule', 'create', `${id}-x`, '--agent', agentFile, '--question', 'q', '--every', '1h', '--webhook', 'http://example.com/hook'], POLICY_ENV);
    expect([refused.code, refused.stderr.trim()]).toEqual([2, 'perflow: webhook: host "example.com" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=example.com)']);
  } finally {
    await cli.perflow(['schedule', 'delete', id], POLICY_ENV);
  }
});

it('refuses a webhook on a host the policy does not allow before the run starts, in one line naming PERFLOW_ALLOW_HOSTS', async () => {
  const agentFile = cli.agentFile('refused', scriptedAgent(ONE_STEP_SCRIPT));
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'q', '--webhook', 'http://example.com/hook'], POLICY_ENV);
  expect(r.code).not.toBe(0);
  expect(nonEmptyLines(r.stderr)).toEqual([expect.stringContaining('PERFLOW_ALLOW_HOSTS=example.com')]);
  const scheme = await cli.perflow(['run', '--agent', agentFile, '--question', 'q', '--webhook', 'ftp://127.0.0.1/hook']);
  expect(scheme.code).not.toBe(0);
  expect(nonEmptyLines(scheme.stderr)).toEqual([expect.stringContaining('not an http(s) URL')]);
});

it('a run without a webhook starts no delivery', async () => {
  const { agent, parameters } = agentFromJson(scriptedAgent(ONE_STEP_SCRIPT), 'agent');
  const run = await startRun(cli.harness.perflow, { agent, parameters, question: 'no webhook' });
  await run.handle.result();
  await expect(cli.harness.client.workflow.getHandle(`${run.workflowId}/webhook`).describe()).rejects.toThrow(/not found/i);
  const status = await cli.perflow(['status', run.workflowId, '--json']);
  expect(JSON.parse(status.stdout)).not.toHaveProperty('webhook');
});

it('delivers a cancelled run end, started outside the cancelled scope', async () => {
  const run = await startWithWebhook(scriptedAgent(ONE_STEP_SCRIPT, { parameters: { plan_approval: 'first' } }), '/cancelled');
  await untilProgress(cli.harness, run.workflowId, (p) => p.status === 'awaiting_approval', 'the plan approval');
  await run.handle.cancel();
  await expect(run.handle.result()).rejects.toThrow();
  expect(await delivery(run.workflowId)).toMatchObject({ delivered: true, attempts: 1 });
  expect(at('/cancelled')[0].payload).toMatchObject({ workflow_id: run.workflowId, status: 'cancelled' });
});

it('keeps trying a receiver that is down, perflow status shows it retrying, and delivers once it is up', async () => {
  const port = await freePort();
  const run = await startWithWebhook(scriptedAgent(ONE_STEP_SCRIPT), '/late', { url: `http://127.0.0.1:${port}/late`, initial_interval_ms: 500 });
  await run.handle.result();
  const retrying = await until(
    async () => JSON.parse((await cli.perflow(['status', run.workflowId, '--json'])).stdout) as { webhook?: { state: string; attempts: number; last_error?: string } },
    (s) => s.webhook?.state === 'retrying' && s.webhook.attempts >= 2,
    'two failed attempts',
  );
  expect(retrying.webhook!.last_error).toMatch(/ECONNREFUSED/);
  const line = nonEmptyLines((await cli.perflow(['status', run.workflowId])).stdout).find((l) => l.includes('webhook:'));
  expect(line).toMatch(/^ {2}webhook: retrying \(\d+ attempts; last: webhook POST failed: ECONNREFUSED\)$/);
  const late: Received[] = [];
  const verifier = new Webhook(SECRET);
  const up = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      late.push({ path: req.url ?? '', headers: req.headers, body, payload: verifier.verify(body, req.headers as Record<string, string>) as RunEndedPayload });
      res.end();
    });
  });
  await new Promise<void>((resolve) => up.listen(port, '127.0.0.1', resolve));
  try {
    const d = await delivery(run.workflowId);
    expect(d.delivered).toBe(true);
    expect(d.attempts).toBeGreaterThanOrEqual(3);
    expect(late).toHaveLength(1);
    expect(late[0].payload).toMatchObject({ workflow_id: run.workflowId, status: 'completed' });
    expect(late[0].headers['webhook-id']).toBe(`run-ended_${run.workflowId}_${run.runId}`);
  } finally {
    await new Promise((resolve) => up.close(resolve));
  }
});

describe('a worker SIGKILLed during delivery', () => {
  const workers = useWorkerProcess('webhooks-kill');
  beforeAll(() => {
    // The worker process's policy (it reads PERFLOW_ALLOW_HOSTS, and PERFLOW_WEBHOOK_SECRET, from its environment).
    process.env.PERFLOW_ALLOW_HOSTS = POLICY_ENV.PERFLOW_ALLOW_HOSTS;
  });
  afterAll(() => {
    delete process.env.PERFLOW_ALLOW_HOSTS;
  });

  it('still delivers once a fresh worker is up, under the same webhook-id', async () => {
    await workers.restart();
    scripts.set('/kill', [503]);
    const run = await startWithWebhook(scriptedAgent(ONE_STEP_SCRIPT), '/kill', { initial_interval_ms: 3_000 }, workers.perflow);
    await run.handle.result();
    // Killed once the first attempt failed, while the delivery waits for its retry; a fresh worker takes it over.
    await until(() => webhookDeliveryOf(workers.client, run.workflowId), (w) => w?.state === 'retrying', 'the first attempt to fail');
    await workers.restart();
    const d = (await workers.client.workflow.getHandle(`${run.workflowId}/webhook`).result()) as WebhookDelivery;
    expect(d).toEqual({ delivered: true, attempts: 2, status: 200 });
    const hits = at('/kill');
    expect(hits).toHaveLength(2);
    expect(hits.every((h) => h.payload !== undefined)).toBe(true);
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
  });
});
