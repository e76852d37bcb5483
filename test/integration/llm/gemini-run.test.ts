/**
 * A plan-execute-reflect run through `perflow run` on `google/generate_content`: the real
 * `@google/genai` SDK in the worker talks to a local server that speaks the Gemini API (its
 * server-sent events), a 429 waits as its RetryInfo asks, the executor's call without an id is
 * answered by name, its thought signature goes back on the step's next turn (kept out of the
 * history), a mid-stream error is retried, and the run's cost counts the cached tokens.
 */
import { randomUUID } from 'node:crypto';
import { useCli } from '../../support/cli';
import { final, payloadText, plan } from '../../support/harness';
import { useWireServer, type WireRequest } from '../../support/wire-server';
import { geminiEvent, googleError, quotaFailure, retryInfo, streamedGeminiResponse, type GeminiAnswer } from '../../support/gemini-wire';

jest.setTimeout(120_000);

const KEY = `gm-perflow-${randomUUID()}`;

const server = useWireServer(() => ({ GEMINI_API_KEY: KEY, GOOGLE_API_KEY: undefined, GEMINI_BASE_URL: undefined }));
const cli = useCli('gemini');

/** Every answer: a prompt of 100 tokens (40 of them cached), 10 answer tokens and 5 thought tokens. */
const answer = (a: GeminiAnswer) => streamedGeminiResponse({ ...a, usage: [100, 10, 40, 5] }, { delayMs: 10 });

type Sent = { contents: { role: string; parts: Record<string, unknown>[] }[]; tools?: { functionDeclarations: { name: string }[] }[] };

it('plans, calls a tool and answers through the Gemini interface: a 429 waits as asked, the thought signature goes back, a mid-stream error is retried', async () => {
  const signature = `c2ln${randomUUID()}`;
  // The turn's parts as they streamed in: each thought piece a part of its own.
  const toolTurn = [
    { text: 'I should use ', thought: true },
    { text: 'the calculator.', thought: true },
    { functionCall: { name: 'CalculatorTool', args: { expression: '6*7' } }, thoughtSignature: signature },
  ];
  // As the API does: a turn after a function call must hand that call's thought signature back.
  const sendsSignature = (q: WireRequest) => {
    const model = (q.body as Sent).contents.find((c) => c.role === 'model');
    return JSON.stringify(model?.parts) === JSON.stringify(toolTurn) ? undefined : googleError(400, 'INVALID_ARGUMENT', 'Function call is missing a thought_signature in functionCall parts.');
  };
  const overloaded = answer({ thoughts: ['Reading ', 'the result.'] });
  server().reply(
    googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.\nPlease retry in 1.5s.', [quotaFailure('GenerateRequestsPerMinutePerProjectPerModel', '10'), retryInfo('1.5s')]),
    answer({ text: [plan('compute 6*7 with the calculator')] }),
    answer({ thoughts: ['I should use ', 'the calculator.'], calls: [{ name: 'CalculatorTool', args: { expression: '6*7' }, thoughtSignature: signature }] }),
    { ...overloaded, parts: [overloaded.parts[0], geminiEvent({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } })], check: sendsSignature },
    { ...answer({ text: ['6*7 ', 'is 42'] }), check: sendsSignature },
    answer({ text: [final('The answer is 42.')] }),
  );
  const agentFile = cli.agentFile('gemini-agent', {
    name: 'gemini-agent',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'google/generate_content', model: 'gemini-2.5-flash', base_url: server().url },
    tools: [{ type: 'CalculatorTool' }],
  });
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'What is 6 times 7?', '--wait', '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { response: string; workflow_id: string; usage: unknown };
  expect(out.response).toBe('The answer is 42.');
  // Four answered calls of gemini-2.5-flash, each 60 × $0.30 + 40 × $0.03 (cached) + 15 × $2.50 (answer and thoughts) per million tokens.
  expect(out.usage).toEqual({ input_tokens: 400, output_tokens: 60, cached_input_tokens: 160, cost_usd: 0.0002268 });

  const requests = server().requests;
  expect(requests).toHaveLength(6);
  for (const q of requests) expect([q.method, q.url, q.headers['x-goog-api-key']]).toEqual(['POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', KEY]);
  // The 429's RetryInfo set the next attempt's delay (the retry policy's own first interval is 1 s).
  expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(1500);
  const [, , firstTurn, , afterTool] = requests.map((q) => q.body as Sent);
  expect(firstTurn.tools).toEqual([{ functionDeclarations: [expect.objectContaining({ name: 'CalculatorTool', parametersJsonSchema: expect.any(Object) })] }]);
  // The call had no id: its result goes back by name, after the turn exactly as the model gave it.
  expect(afterTool.contents.slice(-2)).toEqual([
    { role: 'model', parts: toolTurn },
    { role: 'user', parts: [{ functionResponse: { name: 'CalculatorTool', response: { output: '42' } } }] },
  ]);

  const events = await cli.harness.memory.eventLog().readAll(out.workflow_id);
  expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'CalculatorTool', input: '{"expression":"6*7"}' });
  expect(events.filter((e) => e.type === 'model_delta' && e.role === 'executor').map((e) => e.type === 'model_delta' && e.text)).toEqual(['6*7 ', 'is 42']);

  // The executor child's history holds neither the thought nor its signature.
  const child = (await cli.harness.client.workflow.getHandle(out.workflow_id).fetchHistory()).events?.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []) ?? [];
  expect(child).toHaveLength(1);
  const payloads = (await cli.harness.client.workflow.getHandle(child[0]).fetchHistory()).events?.flatMap((e) => [e.activityTaskScheduledEventAttributes?.input, e.activityTaskCompletedEventAttributes?.result]) ?? [];
  const text = payloads.flatMap((p) => p?.payloads ?? []).map((p) => payloadText(p.data)).join('\n');
  expect(text).toContain('CalculatorTool');
  expect(text).not.toContain(signature);
  expect(text).not.toContain('I should use');
});
