/**
 * `openai/v1/chat/completions` against OpenAI-compatible local servers (Ollama, vLLM), through
 * the real `openai` SDK: what they do differently from OpenAI is tolerated.
 */
import type { ApplicationFailure } from '@temporalio/activity';
import { chat } from '../../../activities/llm/chat';
import { isLocalEndpoint, NO_KEY, toOpenAiMessages } from '../../../activities/llm/openai-chat';
import { modelAdapters } from '../../../activities/llm/adapters';
import { providerConfigFromEnv } from '../../../config/env';
import { addUsage } from '../../../core/llm-types';
import { formatTokens } from '../../../core/text';
import { statusLines } from '../../../cli/format';
import { localCompletion, localError, localStream } from '../../support/compatible-servers';
import { executorRequest } from '../../support/chat-requests';
import { rejectionOf, streamedCall, useWireServer } from '../../support/wire-server';
import { withEnv } from '../../support/env';
import type { Progress } from '../../../client';

const deps = { llm: modelAdapters({ providers: providerConfigFromEnv() }) };
// No key in the worker's environment: a local server needs none.
const server = useWireServer(() => ({ OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }));
const model = (more: Record<string, unknown> = {}) => ({ interface: 'openai/v1/chat/completions' as const, model: 'qwen3:8b', base_url: `${server().url}/v1`, ...more });
const request = executorRequest([{ role: 'user', content: 'How many flights?' }]);
const answerOnly = { ...request, tools: undefined };
const stream = () => undefined;
const call = (name: string, args: string | string[], id?: string) => ({ name, arguments: args, ...(id !== undefined ? { id } : {}) });

beforeEach(() => server().requests.splice(0));

describe.each(['ollama', 'vllm'] as const)('a %s-like server', (kind) => {
  it('needs no API key: the SDK sends a placeholder, never a key', async () => {
    server().reply(localStream(kind, { content: ['3 flights.'] }));
    expect((await chat(model(), answerOnly, deps, stream)).content).toBe('3 flights.');
    expect(server().requests[0].headers.authorization).toBe(`Bearer ${NO_KEY}`);
  });

  it('asks for the usage when streaming and counts it; usage the server does not give is unknown, not 0, and so is the cost', async () => {
    server().reply(localStream(kind, { content: ['ok'], usage: [120, 30] }), localStream(kind, { content: ['ok'], usage: null }), localCompletion(kind, { content: ['ok'], usage: null }));
    const priced = model({ price: { input_per_million: 1, output_per_million: 2 } });
    expect((await chat(priced, answerOnly, deps, stream)).usage).toEqual({ input_tokens: 120, output_tokens: 30, cost_usd: 0.00018 });
    expect(server().requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const unknown = { input_tokens: 0, output_tokens: 0, tokens_unknown: true, cost_usd: null };
    expect((await chat(priced, answerOnly, deps, stream)).usage).toEqual(unknown);
    expect((await chat(priced, answerOnly, deps)).usage).toEqual(unknown);
  });

  it.each(['reasoning', 'reasoning_content'] as const)('keeps the reasoning in %s out of the answer, and assembles it into the raw response as a plain answer has it', async (field) => {
    server().reply(localStream(kind, { reasoning: ['Count ', 'them.'], reasoningField: field, content: ['3 ', 'flights.'] }));
    const { result, deltas } = await streamedCall((onDelta) => chat(model(), { ...answerOnly, response_filter: `$.choices[0].message.${field}` }, deps, onDelta));
    expect(deltas).toEqual(['3 ', 'flights.']);
    expect(result.content).toBe('Count them.');
    server().reply(localStream(kind, { reasoning: ['Count them.'], reasoningField: field, content: ['3 flights.'] }), localCompletion(kind, { reasoning: ['Count them.'], reasoningField: field, content: ['3 flights.'] }));
    expect((await chat(model(), answerOnly, deps, stream)).content).toBe('3 flights.');
    expect((await chat(model(), answerOnly, deps)).content).toBe('3 flights.');
  });

  it('takes tool calls whole in one delta or in fragments, streamed or not', async () => {
    const calls = [call('search_index', ['{"index"', ': "flights"}'], 'call_a1'), call('search_index', '{"index": "hotels"}', 'call_b2')];
    server().reply(localStream(kind, { toolCalls: calls }), localCompletion(kind, { toolCalls: calls }));
    const expected = [
      { id: 'call_a1', name: 'search_index', input: { index: 'flights' } },
      { id: 'call_b2', name: 'search_index', input: { index: 'hotels' } },
    ];
    const streamed = await chat(model(), request, deps, stream);
    expect(streamed).toMatchObject({ content: '', tool_calls: expected, stop_reason: 'tool_use' });
    expect((await chat(model(), request, deps)).tool_calls).toEqual(expected);
  });

  it('gives calls whose ids are repeated or empty ids of their own, the same for the same answer, and pairs each result with its call', async () => {
    const calls = [call('search_index', '{"index": "a"}', 'call_0'), call('search_index', '{"index": "b"}', 'call_0'), call('search_index', '{"index": "c"}', ''), call('search_index', '{"index": "d"}')];
    server().reply(localStream(kind, { toolCalls: calls }), localStream(kind, { toolCalls: calls }));
    const first = await chat(model(), request, deps, stream);
    // Executor step 1, iteration 2 (executorRequest's position); the server's first id stays.
    expect(first.tool_calls.map((c) => [c.id, c.input.index])).toEqual([['call_0', 'a'], ['call_s1_t2_2', 'b'], ['call_s1_t2_3', 'c'], ['call_s1_t2_4', 'd']]);
    expect((await chat(model(), request, deps, stream)).tool_calls).toEqual(first.tool_calls);
    // The next turn sends each result under its own call's id.
    const results = first.tool_calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, name: c.name, content: `rows of ${String(c.input.index)}` }));
    const sent = toOpenAiMessages('', [{ role: 'assistant', content: '', tool_calls: first.tool_calls }, ...results]);
    const asked = (sent[0] as { tool_calls: { id: string; function: { arguments: string } }[] }).tool_calls;
    const byId = new Map(asked.map((c) => [c.id, (JSON.parse(c.function.arguments) as { index: string }).index]));
    expect(byId.size).toBe(4);
    for (const m of sent.slice(1) as { tool_call_id: string; content: string }[]) expect(m.content).toBe(`rows of ${byId.get(m.tool_call_id)}`);
  });
});

describe('errors of local servers', () => {
  it('classifies an error whose code is a number (vLLM) by its status, keeping the message', async () => {
    server().reply(localError('vllm', 400, 'temperature must be non-negative'), localError('vllm', 503, 'engine is overloaded'));
    const bad = (await rejectionOf(chat(model(), answerOnly, deps, stream))) as ApplicationFailure;
    expect([bad.type, bad.nonRetryable]).toEqual(['OpenAI.BadRequest', true]);
    expect(bad.message).toContain('temperature must be non-negative');
    const busy = (await rejectionOf(chat(model(), answerOnly, deps))) as ApplicationFailure;
    expect([busy.type, busy.nonRetryable]).toEqual(['OpenAI.InternalServer', false]);
  });

  it('reads a numeric-code context-length error as OpenAI.ContextLength', async () => {
    server().reply(localError('vllm', 400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages."));
    const failure = (await rejectionOf(chat(model(), answerOnly, deps, stream))) as ApplicationFailure;
    expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.ContextLength', true]);
    expect(failure.message).toContain('its window 4096 tokens');
  });

  it("keeps the message of Ollama's {\"error\": \"…\"} body", async () => {
    server().reply(localError('ollama-native', 404, 'model "qwen3:8b" not found, try pulling it first'));
    const failure = (await rejectionOf(chat(model(), answerOnly, deps, stream))) as ApplicationFailure;
    expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.NotFound', true]);
    expect(failure.message).toBe('openai/v1/chat/completions model "qwen3:8b" failed with HTTP 404: model "qwen3:8b" not found, try pulling it first');
  });
});

describe('the API key', () => {
  it('is the configured one when set, local server or not', async () => {
    const restore = withEnv({ OPENAI_API_KEY: 'sk-local' });
    try {
      server().reply(localStream('vllm', { content: ['ok'] }));
      await chat(model(), answerOnly, deps, stream);
      expect(server().requests[0].headers.authorization).toBe('Bearer sk-local');
    } finally {
      restore();
    }
  });

  it('is required for a remote endpoint, and for a variable the agent file names', async () => {
    const remote = (await rejectionOf(chat(model({ base_url: 'https://llm.example.com/v1' }), answerOnly, deps))) as ApplicationFailure;
    expect([remote.type, remote.message]).toEqual(['OpenAI.Configuration', "OPENAI_API_KEY is not set in the worker's environment"]);
    const named = (await rejectionOf(chat(model({ api_key_env: 'PERFLOW_TEST_VLLM_KEY' }), answerOnly, deps))) as ApplicationFailure;
    expect(named.message).toBe("PERFLOW_TEST_VLLM_KEY is not set in the worker's environment");
    expect(server().requests).toHaveLength(0);
  });

  it('placeholder is for local endpoints only', () => {
    for (const url of ['http://localhost:11434/v1', 'http://127.0.0.1:8000/v1', 'http://[::1]:1234/v1', 'http://192.168.1.20:8080/v1', 'http://10.0.0.5/v1', 'http://ollama:11434/v1', 'http://host.docker.internal:11434/v1']) {
      expect([url, isLocalEndpoint(url)]).toEqual([url, true]);
    }
    for (const url of [undefined, 'https://api.openai.com/v1', 'https://llm.example.com/v1', 'http://172.32.0.1/v1', 'not a url']) {
      expect([url, isLocalEndpoint(url)]).toEqual([url, false]);
    }
  });
});

describe('unknown usage in totals', () => {
  it('keeps a run unknown when a call reported no tokens, and status says so rather than 0', () => {
    const known = { input_tokens: 100, output_tokens: 10, cost_usd: 0.001 };
    const unknown = { input_tokens: 0, output_tokens: 0, tokens_unknown: true as const, cost_usd: null };
    expect(addUsage(known, known)).toEqual({ input_tokens: 200, output_tokens: 20, cost_usd: 0.002 });
    expect(addUsage(known, unknown)).toEqual({ input_tokens: 100, output_tokens: 10, tokens_unknown: true, cost_usd: null });
    expect(formatTokens(known)).toBe('tokens in 100 / out 10');
    expect(formatTokens(unknown)).toBe('tokens unknown');
    expect(formatTokens(addUsage(known, unknown))).toBe('tokens in ≥100 / out ≥10 (not all reported)');
    const progress = { status: 'completed', agent: 'local', steps_executed: 1, max_steps: 5, usage: unknown, plan: [], completed_steps: [] } as unknown as Progress;
    expect(statusLines('local-1', progress)[0]).toBe('local-1: completed (agent local, steps 1/5, tokens unknown, cost unknown)');
  });
});
