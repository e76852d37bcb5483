/**
 * A worker SIGKILLed while the executor's answer streams, on each provider interface with its
 * real SDK in a worker process of its own: the activity times out on its heartbeat, the call is
 * made again on a fresh worker, and the run completes. The interrupted attempt never returned
 * its usage, so the run's cost counts the call once; its streamed text stays in the run's events
 * before the `retry` that tells a consumer to drop it.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { planExecuteReflect } from '../../../workflows';
import { answersOf, type RunEvent } from '../../../client';
import { useWorkerProcess } from '../../support/spawn-worker';
import { final, plan, runInput } from '../../support/harness';
import { streamedAnthropicMessage, useWireServer, type WireStream } from '../../support/wire-server';
import { streamedGeminiResponse } from '../../support/gemini-wire';
import { streamedResponse } from '../../support/responses-wire';

jest.setTimeout(180_000);

// The worker process inherits these (spawnWorker passes on process.env), set before it starts;
// its worker policy comes from the environment too, and must let agent files reach the wire servers.
const keys = {
  PERFLOW_ALLOW_HOSTS: '127.0.0.1',
  ANTHROPIC_API_KEY: `sk-ant-perflow-${randomUUID()}`,
  ANTHROPIC_BASE_URL: undefined,
  GEMINI_API_KEY: `gm-perflow-${randomUUID()}`,
  GOOGLE_API_KEY: undefined,
  GEMINI_BASE_URL: undefined,
  OPENAI_API_KEY: `sk-perflow-${randomUUID()}`,
  OPENAI_BASE_URL: undefined,
};
/** A wire server per interface (started before the worker, which reads the keys): their runs go at once, one kill interrupts all three. */
const servers = [0, 1, 2].map((i) => useWireServer(() => (i === 0 ? keys : {})));
const fixture = useWorkerProcess('streamed-call-crash');
beforeAll(() => fixture.restart());

type Streamed = (text: string[], o: { delayMs: number }) => WireStream;


/**
 * Each interface: its agent's `llm`, a streamed answer of its wire protocol, and the usage of
 * three answered calls (planner, executor, planner) at the usage every answer reports.
 */
const interfaces: { name: string; llm: (url: string) => Record<string, unknown>; answer: Streamed; usage: Record<string, number> }[] = [
  {
    name: 'anthropic/v1/messages',
    llm: (url) => ({ interface: 'anthropic/v1/messages', model: 'claude-sonnet-4-6', base_url: url }),
    answer: (text, o) => streamedAnthropicMessage({ text, usage: [100, 10, 50, 20] }, o),
    // Each call 100 × $3 + 50 × $0.30 (cache read) + 20 × $3.75 (cache write) + 10 × $15 per million tokens.
    usage: { input_tokens: 510, output_tokens: 30, cached_input_tokens: 150, cache_write_input_tokens: 60, cost_usd: 0.00162 },
  },
  {
    name: 'google/generate_content',
    llm: (url) => ({ interface: 'google/generate_content', model: 'gemini-2.5-flash', base_url: url }),
    answer: (text, o) => streamedGeminiResponse({ text, usage: [100, 10, 40, 5] }, o),
    // Each call 60 × $0.30 + 40 × $0.03 (cached) + 15 × $2.50 (answer and thoughts) per million tokens.
    usage: { input_tokens: 300, output_tokens: 45, cached_input_tokens: 120, cost_usd: 0.0001701 },
  },
  {
    name: 'openai/v1/responses',
    llm: (url) => ({ interface: 'openai/v1/responses', model: 'gpt-5', base_url: `${url}/v1` }),
    answer: (text, o) => streamedResponse({ text, usage: [100, 10, 50, 4] }, o),
    // Each call 50 × $1.25 (uncached input) + 50 × $0.125 (cached) + 10 × $10 per million tokens.
    usage: { input_tokens: 300, output_tokens: 30, cached_input_tokens: 150, cost_usd: 0.00050625 },
  },
];

/** The executor's answer: ten pieces, streamed 500 ms apart the first time (5 s or more), so the kill lands inside each run's. */
const PIECES = Array.from({ length: 10 }, (_, i) => `piece ${i + 1}. `);
const executorText = (es: RunEvent[]) => es.flatMap((e) => (e.type === 'model_delta' && e.role === 'executor' ? [e.text] : []));

it('a worker SIGKILL in the middle of streamed calls (Anthropic, Gemini, Responses) completes each run with the call made again and billed once in its cost', async () => {
  const log = fixture.memory.eventLog();
  const runs = await Promise.all(
    interfaces.map(async ({ name, llm, answer }, i) => {
      const server = servers[i]();
      server.reply(
        answer([plan('stream the pieces')], { delayMs: 10 }),
        answer(PIECES, { delayMs: 500 }),
        answer(PIECES, { delayMs: 10 }),
        answer([final('All ten pieces streamed.')], { delayMs: 10 }),
      );
      const agent = { name: 'streamed-crash', type: 'plan_execute_and_reflect', llm: llm(server.url) };
      const handle = await fixture.client.workflow.start(planExecuteReflect, {
        taskQueue: fixture.taskQueue,
        workflowId: `streamed-call-crash-${name.replace(/\W/g, '-')}-${randomUUID().slice(0, 8)}`,
        args: [runInput(agent, 'Stream ten pieces.')],
        workflowExecutionTimeout: '2 minutes',
      });
      return { handle, server, events: () => log.readAll(handle.workflowId) };
    }),
  );

  // Killed once two of each executor's pieces reached its run's events (its server still has more to send).
  const streamed = async () => Promise.all(runs.map(async (r) => executorText(await r.events()).length));
  for (let i = 0; i < 150 && (await streamed()).some((n) => n < 2); i++) await sleep(100);
  const beforeKill = await Promise.all(runs.map(async (r) => executorText(await r.events())));
  for (const [i, r] of runs.entries()) {
    // A run that ended instead (a refused agent file, a failed call) shows its error here.
    expect([interfaces[i].name, (await r.events()).find((e) => e.type === 'run_finished')]).toEqual([interfaces[i].name, undefined]);
    expect(beforeKill[i].length).toBeGreaterThanOrEqual(2);
    expect(r.server.requests).toHaveLength(2);
  }
  await fixture.restart();

  for (const [i, { handle, server, events }] of runs.entries()) {
    const out = await handle.result();
    expect(out.response).toBe('All ten pieces streamed.');
    // planner, executor (killed), the executor's same request again, planner.
    const requests = server.requests;
    expect(requests).toHaveLength(4);
    expect(requests[2].body).toEqual(requests[1].body);
    expect(requests[2].url).toBe(requests[1].url);
    // The killed attempt returned no usage: three calls counted, the executor's once.
    expect([interfaces[i].name, out.usage]).toEqual([interfaces[i].name, interfaces[i].usage]);

    // The events keep the killed attempt's pieces, then `retry` (attempt 2 of the same call), then
    // every piece of the attempt that completed; what counted (answersOf) is that attempt's text once.
    const all = await events();
    const retry = all.findIndex((e) => e.type === 'retry');
    expect(all[retry]).toMatchObject({ type: 'retry', call: 'executor:0:0', role: 'executor', attempt: 2 });
    expect(all.filter((e) => e.type === 'retry')).toHaveLength(1);
    const killed = executorText(all.slice(0, retry));
    expect(killed.slice(0, beforeKill[i].length)).toEqual(beforeKill[i]);
    expect(PIECES.slice(0, killed.length)).toEqual(killed);
    expect(killed.length).toBeLessThan(PIECES.length);
    expect(executorText(all.slice(retry)).join('')).toBe(PIECES.join(''));
    expect(answersOf(all).filter((a) => a.role === 'executor').map((a) => a.text)).toEqual([PIECES.join('')]);
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed' });
  }
});
