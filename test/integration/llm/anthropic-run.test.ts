/**
 * A plan-execute-reflect run through `perflow run` on `anthropic/v1/messages`: the real
 * `@anthropic-ai/sdk` in the worker talks to a local server that speaks the Messages API (its
 * server-sent events), the executor calls a tool and gets its result back under the call's id,
 * the system prompt and the tools go cached, and the run's cost counts the cache's tokens.
 */
import { randomUUID } from 'node:crypto';
import { useCli } from '../../support/cli';
import { final, payloadText, plan } from '../../support/harness';
import { anthropicMessage, sseEvent, streamedAnthropicMessage, useWireServer, type MessagesAnswer } from '../../support/wire-server';

jest.setTimeout(120_000);

const KEY = `sk-ant-perflow-${randomUUID()}`;

const server = useWireServer(() => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: undefined }));
const cli = useCli('anthropic');

/** Every answer: 100 uncached input tokens, 10 output, 50 read from the prompt cache and 20 written to it. */
const answer = (a: MessagesAnswer) => streamedAnthropicMessage({ ...a, usage: [100, 10, 50, 20] }, { delayMs: 10 });

type Sent = { stream?: boolean; system?: unknown; tools?: { name: string; cache_control?: unknown }[]; messages: { role: string; content: { type: string; tool_use_id?: string; content?: string }[] }[] };

it('plans, calls a tool and answers through the Anthropic interface (a 529 first, waited out), with the prompt cache and its tokens in the cost', async () => {
  server().reply(
    // Overloaded first: retried after the retry-after it says.
    { status: 529, headers: { 'retry-after': '1' }, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
    answer({ text: [plan('compute 6*7 with the calculator')] }),
    answer({ toolUses: [{ id: 'toolu_01A', name: 'CalculatorTool', inputParts: ['{"expression"', ':"6*7"}'] }] }),
    answer({ text: ['6*7 ', 'is 42'] }),
    answer({ text: [final('The answer is 42.')] }),
  );
  const agentFile = cli.agentFile('anthropic-agent', {
    name: 'anthropic-agent',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'anthropic/v1/messages', model: 'claude-sonnet-4-6', base_url: server().url },
    tools: [{ type: 'CalculatorTool' }],
  });
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'What is 6 times 7?', '--wait', '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { response: string; workflow_id: string; usage: unknown };
  expect(out.response).toBe('The answer is 42.');
  // Four calls of claude-sonnet-4-6, each 100 × $3 + 50 × $0.30 (cache read) + 20 × $3.75 (cache write) + 10 × $15 per million tokens.
  expect(out.usage).toEqual({ input_tokens: 680, output_tokens: 40, cached_input_tokens: 200, cache_write_input_tokens: 80, cost_usd: 0.00216 });

  const [overloaded, ...requests] = server().requests;
  expect(requests).toHaveLength(4);
  expect(requests[0].at - overloaded.at).toBeGreaterThanOrEqual(1000);
  for (const q of requests) {
    expect([q.method, q.url, q.headers.authorization]).toEqual(['POST', '/v1/messages', `Bearer ${KEY}`]);
    expect(q.body).toMatchObject({ model: 'claude-sonnet-4-6', max_tokens: 4096, stream: true, system: [{ type: 'text', cache_control: { type: 'ephemeral' } }] });
  }
  const [, toolTurn, afterTool] = requests.map((q) => q.body as Sent);
  expect(toolTurn.tools?.map((t) => [t.name, t.cache_control])).toEqual([['CalculatorTool', { type: 'ephemeral' }]]);
  expect(afterTool.messages.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A', name: 'CalculatorTool', input: { expression: '6*7' } }] });
  expect(afterTool.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: '42' }] });

  const events = await cli.harness.memory.eventLog().readAll(out.workflow_id);
  expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'CalculatorTool', input: '{"expression":"6*7"}' });
  expect(events.filter((e) => e.type === 'model_delta' && e.role === 'executor').map((e) => e.type === 'model_delta' && e.text)).toEqual(['6*7 ', 'is 42']);
});

it('thinks with tools: the step\'s next turn sends the thinking block back byte for byte, kept out of the history; a 429 waits as asked and a mid-stream error is retried', async () => {
  const signature = `EqQBCkYIBxgCKkD${randomUUID()}`;
  const thought = { type: 'thinking', thinking: 'I should multiply with the calculator.', signature };
  const refused = (message: string) => ({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } });
  // As the API does: with thinking on, the turn after a tool_use must start with that turn's thinking block, unchanged.
  const sendsThought = (q: { body: unknown }) => {
    const assistant = (q.body as Sent).messages.find((m) => m.role === 'assistant') as { content: unknown[] } | undefined;
    return JSON.stringify(assistant?.content[0]) === JSON.stringify(thought) ? undefined : refused('messages.1.content.0: expected a thinking block with its signature');
  };
  server().reply(
    { status: 429, headers: { 'retry-after': '1' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } } },
    answer({ thinking: { parts: ['Plan it.'], signature: 'c2ln' }, text: [plan('compute 6*7 with the calculator')] }),
    { headers: { 'content-type': 'text/event-stream' }, parts: [sseEvent('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })] },
    answer({ thinking: { parts: ['I should multiply ', 'with the calculator.'], signature }, toolUses: [{ id: 'toolu_02A', name: 'CalculatorTool', inputParts: ['{"expression":"6*7"}'] }] }),
    { ...answer({ text: ['It is 42.'] }), check: sendsThought },
    answer({ text: [final('The answer is 42.')] }),
  );
  const agentFile = cli.agentFile('anthropic-thinking', {
    name: 'anthropic-thinking',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'anthropic/v1/messages', model: 'claude-sonnet-4-6', base_url: server().url, parameters: { thinking: { type: 'enabled', budget_tokens: 2048 } } },
    tools: [{ type: 'CalculatorTool' }],
  });
  const before = server().requests.length;
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'What is 6 times 7, thinking?', '--wait', '--json']);
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toMatchObject({ response: 'The answer is 42.' });
  const requests = server().requests.slice(before);
  expect(requests).toHaveLength(6);
  // The 429's retry-after set the next attempt's delay.
  expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(1000);
  expect((requests[4].body as Sent).messages.find((m) => m.role === 'assistant')?.content).toEqual([thought, { type: 'tool_use', id: 'toolu_02A', name: 'CalculatorTool', input: { expression: '6*7' } }]);

  // The executor child's history says the turn carried, and holds no thought.
  const out = JSON.parse(r.stdout) as { workflow_id: string };
  const child = (await cli.harness.client.workflow.getHandle(out.workflow_id).fetchHistory()).events?.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []) ?? [];
  expect(child).toHaveLength(1);
  const payloads = (await cli.harness.client.workflow.getHandle(child[0]).fetchHistory()).events?.flatMap((e) => [e.activityTaskScheduledEventAttributes?.input, e.activityTaskCompletedEventAttributes?.result]) ?? [];
  const text = payloads.flatMap((p) => p?.payloads ?? []).map((p) => payloadText(p.data)).join('\n');
  expect(text).toContain('"carried":true');
  expect(text).not.toContain('multiply');
  expect(text).not.toContain(signature);
});

it('stops a question its input guardrail refuses before any model call: the provider sees nothing, status says tripped', async () => {
  const before = server().requests.length;
  const agentFile = cli.agentFile('anthropic-guarded', {
    name: 'anthropic-guarded',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'anthropic/v1/messages', model: 'claude-sonnet-4-6', base_url: server().url },
    tools: [{ type: 'CalculatorTool' }],
    guardrails: { input: [{ not_regex: '\\b(password|secret)s?\\b', flags: 'i', on_fail: 'stop' }] },
  });
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'What is the admin Password?', '--wait', '--json']);
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout) as { workflow_id: string; response: string; tripped: unknown };
  expect(out.response).toBe('Stopped by the input guardrail not_regex /\\b(password|secret)s?\\b/i: response matches at "Password"');
  expect(out.tripped).toMatchObject({ place: 'input', on_fail: 'stop' });
  expect(server().requests.length).toBe(before);
  const status = await cli.perflow(['status', out.workflow_id]);
  expect(status.stdout).toMatch(new RegExp(`^${out.workflow_id}: tripped \\(`));
});

it('answers as its output_schema says: the typed-output call sends the schema in output_config.format, the run has the value', async () => {
  const schema = { type: 'object', properties: { product: { type: 'integer' } }, required: ['product'], additionalProperties: false };
  server().reply(
    answer({ text: [plan('compute 6*7 with the calculator')] }),
    answer({ toolUses: [{ id: 'toolu_03A', name: 'CalculatorTool', inputParts: ['{"expression":"6*7"}'] }] }),
    answer({ text: ['42'] }),
    answer({ text: [final('6 times 7 is 42.')] }),
    // The typed-output call is not streamed (its text is not the run's to show).
    anthropicMessage({ text: ['{"product": 42}'] }),
  );
  const agentFile = cli.agentFile('anthropic-typed', {
    name: 'anthropic-typed',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'anthropic/v1/messages', model: 'claude-sonnet-4-6', base_url: server().url },
    tools: [{ type: 'CalculatorTool' }],
    output_schema: schema,
  });
  const before = server().requests.length;
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'What is 6 times 7, typed?', '--wait', '--json']);
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toMatchObject({ output: { product: 42 }, response: '{"product":42}' });
  const typed = server().requests.slice(before).at(-1)!.body as { output_config?: unknown; messages: { content: { text?: string }[] }[] };
  expect(typed.output_config).toEqual({ format: { type: 'json_schema', schema } });
  expect(typed.messages[0].content[0].text).toContain('Answer:\n6 times 7 is 42.');
});
