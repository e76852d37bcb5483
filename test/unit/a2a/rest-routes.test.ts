/**
 * The HTTP+JSON routes (a2a/rest.ts) over a real listener, with a request handler that records
 * what it is given: the caller's scope reaches the handler, and a subscriber that goes away ends
 * its subscription (the SDK's router would follow the run on after its client left).
 */
import { AgentCard, type StreamResponse, Task } from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { listen, type Listening } from '../../../client/listen';
import { cardJson } from '../../../a2a/agent-cards';
import { callerGone, scopeOf } from '../../../a2a/callers';
import { restRoutes } from '../../../a2a/rest';
import type { OfferedAgent } from '../../../mcp/agent-tools';

const AGENT: OfferedAgent = { tool: 'desk', file: 'desk.json', agent: 'desk', description: 'The desk.' };

let server: Listening;
const subscribed: Array<{ tenant: string | undefined; ended: Promise<void> }> = [];

beforeAll(async () => {
  const task = Task.fromJSON({ id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } });
  const handler = {
    getAgentCard: async () => AgentCard.fromJSON(cardJson(AGENT, 'http://127.0.0.1')),
    async *resubscribe(_params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
      const gone = callerGone(context);
      subscribed.push({ tenant: scopeOf(context).tenant, ended: new Promise((done) => gone?.addEventListener('abort', () => done(), { once: true })) });
      yield { payload: { $case: 'task', value: task } };
      // A run that waits for a person: nothing more until the subscriber goes away.
      await new Promise((done) => gone?.addEventListener('abort', done, { once: true }));
    },
  } as unknown as A2ARequestHandler;
  const dispatch = restRoutes(new Map([['desk', handler]]), (name) => `/a2a/${name}`, 1024);
  server = await listen((req, res) => dispatch(req, res, { tenant: 'acme' }), { host: '127.0.0.1', port: 0 });
});
afterAll(() => server.close());

it('ends a subscription once its client goes away, and gives the handler the caller\'s scope', async () => {
  const client = new AbortController();
  const res = await fetch(`${server.url}/a2a/desk/tasks/t1:subscribe`, { headers: { 'a2a-version': '1.0' }, signal: client.signal });
  expect(res.status).toBe(200);
  const first = await res.body!.getReader().read();
  expect(Buffer.from(first.value!).toString()).toContain('"t1"');
  expect(subscribed.map((s) => s.tenant)).toEqual(['acme']);
  client.abort();
  await expect(Promise.race([subscribed[0].ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still following'), 5_000))])).resolves.toBe('ended');
});

it('answers a body over the limit 413 and an unknown route 404, in JSON', async () => {
  const big = await fetch(`${server.url}/a2a/desk/message:send`, { method: 'POST', headers: { 'a2a-version': '1.0', 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x'.repeat(2048) }) });
  expect(big.status).toBe(413);
  expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(/larger than 1024 bytes/);
  const unknown = await fetch(`${server.url}/a2a/desk/nothing-here`, { headers: { 'a2a-version': '1.0' } });
  expect(unknown.status).toBe(404);
  expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/no A2A route GET/);
});
