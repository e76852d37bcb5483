import { ApplicationFailure } from '@temporalio/activity';
import { chat } from '../../../activities/llm/chat';
import { toOpenAiTools } from '../../../activities/llm/openai-chat';
import { chatCompletion, rejectionOf, startWireServer, type WireServer } from '../../support/wire-server';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';
import { createLlmClients } from '../../../activities/llm/clients';
import { providerConfigFromEnv } from '../../../config/env';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: createLlmClients(providerConfigFromEnv()) };

const request = executorRequest([
  { role: 'user', content: 'How many flights?' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'search_index', input: { index: 'flights' } }] },
  { role: 'tool', tool_call_id: 'call_1', name: 'search_index', content: '{"count": 3}' },
]);

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
      usage: { input_tokens: 42, output_tokens: 7 },
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

  it('fails without retrying when OPENAI_API_KEY is not set', async () => {
    const restore = withEnv({ OPENAI_API_KEY: undefined });
    try {
      const failure = (await rejectionOf(chat(model(), request, deps))) as ApplicationFailure;
      expect(failure.message).toBe("OPENAI_API_KEY is not set in the worker's environment");
      expect(failure.nonRetryable).toBe(true);
    } finally {
      restore();
    }
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
