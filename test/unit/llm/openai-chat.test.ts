import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { chat } from '../../../activities/llm/chat';
import { toOpenAiTools } from '../../../activities/llm/openai-chat';
import { chatCompletion, rejectionOf, startWireServer, streamedCall, streamedChatCompletion, type WireServer } from '../../support/wire-server';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';
import { modelAdapters } from '../../../activities/llm/adapters';
import { providerConfigFromEnv } from '../../../config/env';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: modelAdapters({ providers: providerConfigFromEnv() }) };

const request = executorRequest([
  { role: 'user', content: 'How many flights?' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'search_index', input: { index: 'flights' } }] },
  { role: 'tool', tool_call_id: 'call_1', name: 'search_index', content: '{"count": 3}' },
]);

// Costs at the price table's gpt-4o price, $2.50 in / $10 out per million tokens.
const completion = (message: Record<string, unknown>, finishReason: string) => chatCompletion(message, { model: 'gpt-4o', usage: [42, 7], finishReason });

describe('openai/v1/chat/completions against a local Chat Completions server', () => {
  let server: WireServer;
  let restoreEnv: () => void;
  const model = () => ({
    interface: 'openai/v1/chat/completions' as const,
    model: 'gpt-4o',
    base_url: `${server.url}/v1`,
    parameters: { temperature: 0.2, max_tokens: 512 },
  });

  beforeAll(async () => {
    server = await startWireServer();
    restoreEnv = withEnv({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: undefined });
  });
  afterAll(async () => {
    restoreEnv();
    await server.close();
  });
  beforeEach(() => server.requests.splice(0));

  it('sends the system prompt, the tools and the tool results, and parses a tool call', async () => {
    server.reply(
      completion({ content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'search_index', arguments: '{"index":"hotels"}' } }] }, 'tool_calls'),
    );
    const response = await chat(model(), request, deps);
    expect(response).toEqual({
      content: '',
      tool_calls: [{ id: 'call_2', name: 'search_index', input: { index: 'hotels' } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 42, output_tokens: 7, cost_usd: 0.000175 },
    });
    const sent = server.requests[0];
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toEqual({
      model: 'gpt-4o',
      temperature: 0.2,
      max_tokens: 512,
      parallel_tool_calls: false,
      tools: [
        {
          type: 'function',
          function: {
            name: 'search_index',
            description: 'Searches an index',
            parameters: { type: 'object', properties: { index: { type: 'string' } }, required: ['index'] },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'You are an executor.' },
        { role: 'user', content: 'How many flights?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search_index', arguments: '{"index":"flights"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"count": 3}' },
      ],
    });
  });

  it('parses a final answer and leaves out tools and parallel_tool_calls when no tools are offered', async () => {
    server.reply(completion({ content: 'There are 3 flights.' }, 'stop'));
    const response = await chat(model(), { ...request, tools: undefined }, deps);
    expect(response.content).toBe('There are 3 flights.');
    expect(response.stop_reason).toBe('end_turn');
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });

  it('sends llm.parameters it does not map as they are (never dropping one), and perflow\'s own settings not at all', async () => {
    server.reply(completion({ content: 'ok' }, 'stop'));
    const parameters = { temperature: 0.2, response_format: { type: 'json_object' }, top_k: 5, user: 'u-1', timeout_ms: 5_000, parallel_tool_calls: true };
    await chat({ ...model(), parameters }, { ...request, tools: undefined }, deps);
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'gpt-4o', temperature: 0.2, response_format: { type: 'json_object' }, top_k: 5, user: 'u-1' });
    expect(body).not.toHaveProperty('timeout_ms');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });

  it('asks for a typed answer as response_format json_schema (strict only for a schema strict mode takes); an agent file\'s own response_format wins', async () => {
    server.reply(...Array.from({ length: 4 }, () => completion({ content: '{"count": 3}' }, 'stop')));
    const loose = { type: 'object', properties: { count: { type: 'integer' } } };
    const closed = { ...loose, required: ['count'], additionalProperties: false };
    await chat(model(), { ...request, output: { name: 'flight_count', schema: loose } }, deps);
    await chat(model(), { ...request, output: { name: 'flight_count', schema: closed } }, deps, () => undefined);
    await chat({ ...model(), parameters: { response_format: { type: 'json_object' } } }, { ...request, output: { name: 'flight_count', schema: closed } }, deps);
    // A list at the root, which OpenAI refuses, is stated by the prompt only.
    await chat(model(), { ...request, output: { name: 'cities', schema: { type: 'array', items: { type: 'string' } } } }, deps);
    const [plain, streamed, own, list] = server.requests.map((r) => (r.body as Record<string, unknown>).response_format);
    expect(plain).toEqual({ type: 'json_schema', json_schema: { name: 'flight_count', schema: loose, strict: false } });
    expect(streamed).toEqual({ type: 'json_schema', json_schema: { name: 'flight_count', schema: closed, strict: true } });
    expect(own).toEqual({ type: 'json_object' });
    expect(list).toBeUndefined();
  });

  it('keeps going with an empty input when the tool call arguments are not JSON', async () => {
    server.reply(completion({ content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'search_index', arguments: '{oops' } }] }, 'tool_calls'));
    const response = await chat(model(), request, deps);
    expect(response.tool_calls).toEqual([{ id: 'c', name: 'search_index', input: {} }]);
  });

  it('reports a 429 with Retry-After: 2 as a retryable failure that waits 2 seconds', async () => {
    server.reply({ status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'Rate limit reached', type: 'requests' } } });
    const err = await rejectionOf(chat(model(), request, deps));
    expect(err).toBeInstanceOf(ApplicationFailure);
    const failure = err as ApplicationFailure;
    expect(failure.type).toBe('OpenAI.RateLimit');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(2000);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a prompt longer than the context window as a non-retryable OpenAI.ContextLength: one line with the window and the size, one request', async () => {
    const said = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.";
    server.reply({ status: 400, body: { error: { message: said, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } });
    const failure = (await rejectionOf(chat(model(), request, deps))) as ApplicationFailure;
    expect(failure.type).toBe('OpenAI.ContextLength');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      'openai/v1/chat/completions model "gpt-4o" cannot take the prompt: it is longer than the model\'s context window (its window 128000 tokens, the prompt 130512 tokens); shorten what the run carries (message_history_limit, continue_as_new_after_events) or use a model with a larger window',
    );
    expect(server.requests).toHaveLength(1);
    // Another 400 stays a bad request.
    server.reply({ status: 400, body: { error: { message: 'stream_options is not supported', type: 'invalid_request_error' } } });
    expect(((await rejectionOf(chat(model(), request, deps))) as ApplicationFailure).type).toBe('OpenAI.BadRequest');
  });

  it('reports a 401 as a non-retryable failure naming the interface, the model and the status', async () => {
    server.reply({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
    const failure = (await rejectionOf(chat(model(), request, deps))) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('OpenAI.Authentication');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('openai/v1/chat/completions');
    expect(failure.message).toContain('gpt-4o');
    expect(failure.message).toContain('401');
  });

  it('fails without retrying when OPENAI_API_KEY is not set for a remote endpoint (a local one needs no key: openai-compatible.test.ts)', async () => {
    const restore = withEnv({ OPENAI_API_KEY: undefined });
    try {
      const failure = (await rejectionOf(chat({ ...model(), base_url: undefined }, request, deps))) as ApplicationFailure;
      expect(failure.message).toBe("OPENAI_API_KEY is not set in the worker's environment");
      expect(failure.nonRetryable).toBe(true);
    } finally {
      restore();
    }
  });

  describe('streamed', () => {
    const answerOnly = { ...request, tools: undefined };

    it('hands each text delta over in order as it arrives, long before the answer ends, and returns the joined answer with the usage of the last chunk', async () => {
      server.reply(streamedChatCompletion({ content: ['There ', 'are ', '3 ', 'flights.'], usage: [42, 7] }, { delayMs: 100 }));
      const { result, deltas, leadMs } = await streamedCall((onDelta) => chat(model(), answerOnly, deps, onDelta));
      expect(deltas).toEqual(['There ', 'are ', '3 ', 'flights.']);
      expect(leadMs).toBeGreaterThanOrEqual(300);
      expect(result).toEqual({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 42, output_tokens: 7, cost_usd: 0.000175 } });
      expect(server.requests[0].body).toMatchObject({ model: 'gpt-4o', temperature: 0.2, stream: true, stream_options: { include_usage: true } });
    });

    it('counts the prompt tokens read from the prompt cache, plain and streamed, and prices them at the cached rate', async () => {
      // gpt-4o: $2.50 per million input tokens, $1.25 cached, $10 output.
      server.reply(chatCompletion({ content: 'ok' }, { model: 'gpt-4o', usage: [1000, 100, 800] }), streamedChatCompletion({ content: ['ok'], usage: [1000, 100, 800] }));
      const usage = { input_tokens: 1000, output_tokens: 100, cached_input_tokens: 800, cost_usd: 0.0025 };
      expect((await chat(model(), answerOnly, deps)).usage).toEqual(usage);
      expect((await chat(model(), answerOnly, deps, () => undefined)).usage).toEqual(usage);
      // With the agent file's price, its cached rate applies.
      server.reply(chatCompletion({ content: 'ok' }, { usage: [1000, 100, 800] }));
      const priced = { ...model(), price: { input_per_million: 1, output_per_million: 2, cached_input_per_million: 0.1 } };
      expect((await chat(priced, answerOnly, deps)).usage.cost_usd).toBeCloseTo((200 * 1 + 800 * 0.1 + 100 * 2) / 1e6, 12);
    });

    it('assembles a streamed tool call from its deltas (id, name, parsed input)', async () => {
      server.reply(streamedChatCompletion({ toolCalls: [{ id: 'call_2', name: 'search_index', argumentParts: ['{"ind', 'ex": "ho', 'tels"}'] }] }));
      const deltas: string[] = [];
      const response = await chat(model(), request, deps, (text) => deltas.push(text));
      expect(response).toEqual({
        content: '',
        tool_calls: [{ id: 'call_2', name: 'search_index', input: { index: 'hotels' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.000075 },
      });
      expect(deltas).toEqual([]);
    });

    it('applies a response_filter to the assembled response as to a plain one', async () => {
      server.reply(streamedChatCompletion({ content: ['ignored'], extra: { answer: { text: 'from the filter' } } }));
      const response = await chat(model(), { ...answerOnly, response_filter: '$.answer.text' }, deps, () => undefined);
      expect(response.content).toBe('from the filter');
      server.reply(streamedChatCompletion({ content: ['par', 'ts'] }));
      expect((await chat(model(), { ...answerOnly, response_filter: '$.choices[0].message.content' }, deps, () => undefined)).content).toBe('parts');
    });

    it('sends neither stream nor stream_chunk_chars (perflow\'s own settings) as parameters, streamed or not', async () => {
      const parameters = { temperature: 0.2, stream: false, stream_chunk_chars: 40 };
      server.reply(chatCompletion({ content: 'ok' }), streamedChatCompletion({ content: ['ok'] }));
      await chat({ ...model(), parameters }, answerOnly, deps);
      await chat({ ...model(), parameters }, answerOnly, deps, () => undefined);
      const [plain, streamed] = server.requests.map((r) => r.body as Record<string, unknown>);
      expect(plain).not.toHaveProperty('stream');
      expect(plain).not.toHaveProperty('stream_chunk_chars');
      expect(streamed).toMatchObject({ temperature: 0.2, stream: true });
      expect(streamed).not.toHaveProperty('stream_chunk_chars');
    });

    it('reports a connection cut mid-stream as a retryable failure, after the deltas that did arrive', async () => {
      server.reply(streamedChatCompletion({ content: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 20, cutAfter: 3 }));
      const deltas: string[] = [];
      const failure = (await rejectionOf(chat(model(), answerOnly, deps, (text) => deltas.push(text)))) as ApplicationFailure;
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure.type).toBe('OpenAI.Connection');
      expect(failure.nonRetryable).toBe(false);
      expect(deltas).toEqual(['There ', 'are ']);
    });

    it('stops a streamed call when the activity is cancelled, as a retryable OpenAI.Aborted', async () => {
      server.reply(streamedChatCompletion({ content: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 100 }));
      const activity = new MockActivityEnvironment();
      const deltas: string[] = [];
      const call = activity.run(() => chat(model(), answerOnly, deps, (text) => (deltas.push(text), activity.cancel())));
      const failure = (await rejectionOf(call)) as ApplicationFailure;
      expect(failure.type).toBe('OpenAI.Aborted');
      expect(failure.nonRetryable).toBe(false);
      expect(deltas).toEqual(['There ']);
    });

    it('reports a stream that ends without a finish reason as a retryable failure', async () => {
      const reply = streamedChatCompletion({ content: ['There ', 'are'] });
      server.reply({ ...reply, parts: reply.parts.slice(0, 3) });
      const failure = (await rejectionOf(chat(model(), answerOnly, deps, () => undefined))) as ApplicationFailure;
      expect(failure.type).toBe('OpenAI.Connection');
      expect(failure.nonRetryable).toBe(false);
    });

    it('reports an HTTP 400 to a streamed request as a non-retryable failure', async () => {
      server.reply({ status: 400, body: { error: { message: 'stream_options is not supported', type: 'invalid_request_error' } } });
      const failure = (await rejectionOf(chat(model(), answerOnly, deps, () => undefined))) as ApplicationFailure;
      expect(failure.type).toBe('OpenAI.BadRequest');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain('400');
    });
  });
});

describe('toOpenAiTools', () => {
  it('passes a tool\'s strict function calling (its attributes) and leaves it out otherwise', () => {
    const schema = { type: 'object', properties: {} };
    expect(toOpenAiTools([{ name: 'a', description: 'A', input_schema: schema, strict: true }, { name: 'b', description: 'B', input_schema: schema }])).toEqual([
      { type: 'function', function: { name: 'a', description: 'A', parameters: schema, strict: true } },
      { type: 'function', function: { name: 'b', description: 'B', parameters: schema } },
    ]);
  });
});
