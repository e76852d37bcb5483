/**
 * A plan-execute-reflect run through `perflow run` on an Ollama-like local server
 * (test/support/compatible-servers.ts) as the docs' recipe sets it up: `base_url` …/v1, a model
 * name, no API key. Its tool calls come whole and share one id, one answer reports no usage.
 */
import { useCli } from '../../support/cli';
import { final, plan } from '../../support/harness';
import { localStream } from '../../support/compatible-servers';
import { useWireServer } from '../../support/wire-server';

jest.setTimeout(120_000);

// No key in the worker's environment (the worker runs in this process).
const server = useWireServer(() => ({ OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }));
const cli = useCli('ollama');

it('plans, calls a tool twice under one repeated id and answers, with no key; usage the server left out is unknown in the totals and status', async () => {
  server().reply(
    localStream('ollama', { reasoning: ['The user wants ', 'a product.'], content: [plan('compute 6*7 and add 1 with the calculator')], usage: [100, 10] }),
    localStream('ollama', { toolCalls: [{ id: 'call_0', name: 'CalculatorTool', arguments: '{"expression":"6*7"}' }], usage: [100, 10] }),
    localStream('ollama', { toolCalls: [{ id: 'call_0', name: 'CalculatorTool', arguments: '{"expression":"42+1"}' }], usage: [100, 10] }),
    // This answer comes without usage: the run's tokens are then a lower bound, its cost unknown.
    localStream('ollama', { content: ['6*7+1 ', 'is 43'], usage: null }),
    localStream('ollama', { content: [final('The answer is 43.')], usage: [100, 10] }),
  );
  const agentFile = cli.agentFile('ollama-agent', {
    name: 'ollama-agent',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'openai/v1/chat/completions', model: 'qwen3:8b', base_url: `${server().url}/v1` },
    tools: [{ type: 'CalculatorTool' }],
  });
  const r = await cli.perflow(['run', '--agent', agentFile, '--question', 'What is 6 times 7, plus 1?', '--wait', '--json'], { OPENAI_API_KEY: undefined });
  // A local model has no price: said once, and its cost is null.
  expect(r.stderr.trim()).toBe('perflow: note: no price known for model "qwen3:8b": cost is null (give its llm block "price": {"input_per_million": N, "output_per_million": N})');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { response: string; workflow_id: string; usage: unknown };
  expect(out.response).toBe('The answer is 43.');
  expect(out.usage).toEqual({ input_tokens: 400, output_tokens: 40, tokens_unknown: true, cost_usd: null });

  // Each result went back under its own turn's call: paired, though the ids repeat.
  const requests = server().requests.map((q) => ({ auth: q.headers.authorization, body: q.body as { stream_options?: unknown; messages: { role: string; content: unknown; tool_call_id?: string }[] } }));
  expect(requests).toHaveLength(5);
  for (const q of requests) expect(q).toMatchObject({ auth: 'Bearer no-key', body: { stream_options: { include_usage: true } } });
  expect(requests[2].body.messages.slice(-2)).toMatchObject([{ role: 'assistant' }, { role: 'tool', tool_call_id: 'call_0', content: '42' }]);
  expect(requests[3].body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content])).toEqual([['call_0', '42'], ['call_0', '43']]);
  // The reasoning is never sent back.
  for (const q of requests) expect(JSON.stringify(q.body)).not.toContain('a product.');

  const events = await cli.harness.memory.eventLog().readAll(out.workflow_id);
  expect(events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.input)).toEqual(['{"expression":"6*7"}', '{"expression":"42+1"}']);

  const status = await cli.perflow(['status', out.workflow_id]);
  expect(status.code).toBe(0);
  expect(status.stdout).toContain('tokens in ≥400 / out ≥40 (not all reported), cost unknown');
});
