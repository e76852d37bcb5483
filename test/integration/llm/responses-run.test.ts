/**
 * A plan-execute-reflect run through `perflow run` on `openai/v1/responses`: the real `openai`
 * SDK in the worker talks to a local server that speaks the Responses API (its server-sent
 * events). The first call is refused with a 429 that says how long to wait, and the activity
 * waits that long; a stream that fails midway is tried again; the executor's reasoning goes back
 * with its next turn; the run's cost counts the cached input at its own rate.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { useCli } from '../../support/cli';
import { final, plan } from '../../support/harness';
import { useWireServer } from '../../support/wire-server';
import { arrivalTimes, eventStream, eventsBefore, streamedResponse, type ResponsesAnswer } from '../../support/responses-wire';

jest.setTimeout(120_000);

const KEY = `sk-perflow-${randomUUID()}`;

const server = useWireServer(() => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: undefined }));
const cli = useCli('responses');

/** Every answer: 100 input tokens of which 50 were read from the prompt cache, 10 output tokens of which 4 reasoning. */
const answer = (a: ResponsesAnswer) => streamedResponse({ ...a, usage: [100, 10, 50, 4] }, { delayMs: 10 });

const reasoning = { id: 'rs_exec_1', encrypted: `gAAAAB-${randomUUID()}`, summary: 'Use the calculator for 6*7.' };

type Sent = { stream?: boolean; store?: boolean; include?: string[]; instructions?: string; tools?: { name: string; strict: boolean }[]; input: Record<string, unknown>[] };

it('plans, calls a tool and answers through the Responses API, after a 429 and a failed stream, with the reasoning carried and cached tokens in the cost', async () => {
  const times = arrivalTimes(server());
  server().reply(
    { status: 429, headers: { 'retry-after-ms': '1500' }, body: { error: { message: 'Rate limit reached for gpt-5', type: 'requests', code: 'rate_limit_exceeded' } } },
    answer({ text: [plan('compute 6*7 with the calculator')] }),
    answer({ reasoning: [reasoning], functionCalls: [{ callId: 'call_calc_1', name: 'CalculatorTool', argumentParts: ['{"expression"', ':"6*7"}'] }] }),
    answer({ text: ['6*7 ', 'is 42'] }),
    // The final answer's first attempt fails after its first text delta.
    eventStream([
      ...eventsBefore({ text: ['The answer', ' is 42.'] }, 'response.output_text.delta', 2),
      { type: 'error', code: 'server_error', message: 'The server had an error while processing your request.', param: null },
    ]),
    answer({ text: [final('The answer is 42.')] }),
  );
  const agentFile = cli.agentFile('responses-agent', {
    name: 'responses-agent',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'openai/v1/responses', model: 'gpt-5', base_url: `${server().url}/v1` },
    tools: [{ type: 'CalculatorTool' }],
  });
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'What is 6 times 7?', '--wait', '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { response: string; workflow_id: string; usage: unknown };
  expect(out.response).toBe('The answer is 42.');
  // Four answered calls of gpt-5, each 50 × $1.25 (uncached input) + 50 × $0.125 (cached) + 10 × $10 per million tokens; the failed attempts had no usage.
  expect(out.usage).toEqual({ input_tokens: 400, output_tokens: 40, cached_input_tokens: 200, cost_usd: 0.000675 });

  const requests = server().requests;
  expect(requests).toHaveLength(6);
  // The planner's second attempt came after the 1.5 s the 429 asked for (the retry policy alone waits 1 s).
  expect(times[1] - times[0]).toBeGreaterThanOrEqual(1_450);
  for (const q of requests) {
    expect([q.method, q.url, q.headers.authorization]).toEqual(['POST', '/v1/responses', `Bearer ${KEY}`]);
    expect(q.body).toMatchObject({ model: 'gpt-5', stream: true, store: false, include: ['reasoning.encrypted_content'] });
  }
  const [, , toolTurn, afterTool, failedFinal, retriedFinal] = requests.map((q) => q.body as Sent);
  expect(toolTurn.tools?.map((t) => [t.name, t.strict])).toEqual([['CalculatorTool', false]]);
  // The executor's second turn of the step hands back the first turn's reasoning, then its call, then the call's output.
  expect(afterTool.input.slice(-3)).toEqual([
    { id: 'rs_exec_1', type: 'reasoning', summary: [{ type: 'summary_text', text: reasoning.summary }], encrypted_content: reasoning.encrypted },
    { id: 'fc_call_calc_1', type: 'function_call', status: 'completed', call_id: 'call_calc_1', name: 'CalculatorTool', arguments: '{"expression":"6*7"}' },
    { type: 'function_call_output', call_id: 'call_calc_1', output: '42' },
  ]);
  expect(retriedFinal).toEqual(failedFinal);

  const events = await cli.harness.memory.eventLog().readAll(out.workflow_id);
  expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'CalculatorTool', input: '{"expression":"6*7"}' });
  expect(events.filter((e) => e.type === 'model_delta' && e.role === 'executor').map((e) => e.type === 'model_delta' && e.text)).toEqual(['6*7 ', 'is 42']);
  // The reasoning stays between the worker, its memory and the provider: neither the run's events nor the workflows' histories hold it.
  expect(JSON.stringify(events)).not.toContain(reasoning.encrypted);
  for (const id of [out.workflow_id, `${out.workflow_id}/step-1`]) {
    const history = await cli.harness.client.workflow.getHandle(id).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect([id, bytes.length > 1_000, bytes.includes(Buffer.from(reasoning.encrypted))]).toEqual([id, true, false]);
  }
});
