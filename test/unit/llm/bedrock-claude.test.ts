import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { chat } from '../../../activities/llm/chat';
import { converseEvents, converseStream, rejectionOf, startWireServer, streamedCall, type WireServer } from '../../support/wire-server';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';
import { modelAdapters } from '../../../activities/llm/adapters';
import { providerConfigFromEnv } from '../../../config/env';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: modelAdapters({ providers: providerConfigFromEnv() }) };

// Costs at the price table's Claude 3.7 Sonnet price on Bedrock, $3 in / $15 out per million tokens.
const MODEL_ID = 'us.anthropic.claude-3-7-sonnet-20250219-v1:0';

const request = executorRequest([
  { role: 'user', content: 'Count flights and hotels.' },
  {
    role: 'assistant',
    content: 'Searching both.',
    tool_calls: [
      { id: 'tu_1', name: 'search_index', input: { index: 'flights' } },
      { id: 'tu_2', name: 'search_index', input: { index: 'hotels' } },
    ],
  },
  { role: 'tool', tool_call_id: 'tu_1', name: 'search_index', content: '{"count": 3}' },
  { role: 'tool', tool_call_id: 'tu_2', name: 'search_index', content: 'index not found', is_error: true },
]);

function converseReply(content: unknown[], stopReason: string): unknown {
  return {
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage: { inputTokens: 120, outputTokens: 15, totalTokens: 135 },
    metrics: { latencyMs: 10 },
  };
}

describe('bedrock/converse/claude against a local Converse server', () => {
  let server: WireServer;
  let restoreEnv: () => void;
  const model = () => ({
    interface: 'bedrock/converse/claude' as const,
    model: MODEL_ID,
    region: 'us-east-1',
    base_url: server.url,
    parameters: { temperature: 0, max_tokens: 1000 },
  });

  beforeAll(async () => {
    server = await startWireServer({ http2: true });
    restoreEnv = withEnv({
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'secret-test',
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
      PERFLOW_BEDROCK_ENDPOINT: undefined,
    });
  });
  afterAll(async () => {
    restoreEnv();
    await server.close();
  });
  beforeEach(() => server.requests.splice(0));

  it('sends the system prompt, toolConfig, toolUse and merged toolResult blocks, and parses a tool use', async () => {
    server.reply({
      body: converseReply(
        [{ text: 'Retrying hotels.' }, { toolUse: { toolUseId: 'tu_3', name: 'search_index', input: { index: 'hotel' } } }],
        'tool_use',
      ),
    });
    const response = await chat(model(), request, deps);
    expect(response).toEqual({
      content: 'Retrying hotels.',
      tool_calls: [{ id: 'tu_3', name: 'search_index', input: { index: 'hotel' } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 120, output_tokens: 15, cost_usd: 0.000585 },
    });
    const sent = server.requests[0];
    expect(sent.method).toBe('POST');
    expect(decodeURIComponent(sent.url)).toBe(`/model/${MODEL_ID}/converse`);
    expect(String(sent.headers.authorization)).toContain('Credential=AKIDTEST/');
    expect(sent.body).toEqual({
      system: [{ text: 'You are an executor.' }],
      inferenceConfig: { temperature: 0, maxTokens: 1000 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'search_index',
              description: 'Searches an index',
              inputSchema: { json: { type: 'object', properties: { index: { type: 'string' } }, required: ['index'] } },
            },
          },
        ],
      },
      messages: [
        { role: 'user', content: [{ text: 'Count flights and hotels.' }] },
        {
          role: 'assistant',
          content: [
            { text: 'Searching both.' },
            { toolUse: { toolUseId: 'tu_1', name: 'search_index', input: { index: 'flights' } } },
            { toolUse: { toolUseId: 'tu_2', name: 'search_index', input: { index: 'hotels' } } },
          ],
        },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'tu_1', content: [{ text: '{"count": 3}' }], status: 'success' } },
            { toolResult: { toolUseId: 'tu_2', content: [{ text: 'index not found' }], status: 'error' } },
          ],
        },
      ],
    });
  });

  it('parses a final answer', async () => {
    server.reply({ body: converseReply([{ text: 'There are 3 flights.' }], 'end_turn') });
    const response = await chat(model(), request, deps);
    expect(response).toMatchObject({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn' });
  });

  it('sends llm.parameters inferenceConfig does not hold as the model\'s own fields (additionalModelRequestFields)', async () => {
    server.reply({ body: converseReply([{ text: 'ok' }], 'end_turn') });
    await chat({ ...model(), parameters: { temperature: 0, top_k: 40, timeout_ms: 5_000 } }, request, deps);
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body.inferenceConfig).toEqual({ temperature: 0 });
    expect(body.additionalModelRequestFields).toEqual({ top_k: 40 });
  });

  it('asks for a typed answer as outputConfig.textFormat, the schema in the form Claude takes as JSON text; Claude\'s own output_config.format in the parameters wins', async () => {
    server.reply({ body: converseReply([{ text: '{"count": 3}' }], 'end_turn') }, converseStream(converseEvents({ text: ['{"count": 3}'] })), { body: converseReply([{ text: '{"count": 3}' }], 'end_turn') });
    const output = { name: 'flight_count', schema: { type: 'object', properties: { count: { type: 'integer', minimum: 0 } }, required: ['count'] } };
    const schema = { type: 'object', properties: { count: { type: 'integer', description: '{minimum: 0}' } }, additionalProperties: false, required: ['count'] };
    await chat(model(), { ...request, output }, deps);
    await chat(model(), { ...request, output }, deps, () => undefined);
    const own = { format: { type: 'json_schema', schema: { type: 'object' } } };
    await chat({ ...model(), parameters: { output_config: own } }, { ...request, output }, deps);
    const [plain, streamed, ownFormat] = server.requests.map((r) => r.body as { outputConfig?: { textFormat: { type: string; structure: { jsonSchema: { name: string; schema: string } } } }; additionalModelRequestFields?: unknown });
    for (const sent of [plain, streamed]) {
      const { type, structure } = sent.outputConfig!.textFormat;
      expect({ type, name: structure.jsonSchema.name, schema: JSON.parse(structure.jsonSchema.schema) as unknown }).toEqual({ type: 'json_schema', name: 'flight_count', schema });
    }
    expect(ownFormat).not.toHaveProperty('outputConfig');
    expect(ownFormat.additionalModelRequestFields).toEqual({ output_config: own });
  });

  it('reports a ThrottlingException as a retryable Bedrock.Throttling after one attempt', async () => {
    server.reply({
      status: 429,
      headers: { 'x-amzn-errortype': 'ThrottlingException' },
      body: { message: 'Too many requests, please wait before trying again.' },
    });
    const failure = (await rejectionOf(chat(model(), request, deps))) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('Bedrock.Throttling');
    expect(failure.nonRetryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('reports an AccessDeniedException as a non-retryable failure naming the model and status', async () => {
    server.reply({ status: 403, headers: { 'x-amzn-errortype': 'AccessDeniedException' }, body: { message: 'no access to model' } });
    const failure = (await rejectionOf(chat(model(), request, deps))) as ApplicationFailure;
    expect(failure.type).toBe('Bedrock.AccessDenied');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('bedrock/converse/claude');
    expect(failure.message).toContain(MODEL_ID);
    expect(failure.message).toContain('HTTP 403');
  });

  it('reports a prompt longer than the context window as a non-retryable Bedrock.ContextLength naming the window and the size', async () => {
    server.reply({ status: 400, headers: { 'x-amzn-errortype': 'ValidationException' }, body: { message: 'prompt is too long: 210345 tokens > 200000 maximum' } });
    const failure = (await rejectionOf(chat(model(), request, deps))) as ApplicationFailure;
    expect(failure.type).toBe('Bedrock.ContextLength');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      `bedrock/converse/claude model "${MODEL_ID}" cannot take the prompt: it is longer than the model's context window (its window 200000 tokens, the prompt 210345 tokens); shorten what the run carries (message_history_limit, continue_as_new_after_events) or use a model with a larger window`,
    );
    expect(server.requests).toHaveLength(1);
  });

  describe('streamed (ConverseStream)', () => {
    it('adds the prompt cache reads and writes to the input tokens, names them, and prices each at its rate', async () => {
      server.reply(converseStream(converseEvents({ text: ['ok'], usage: [100, 10, 1000, 200] })));
      const { usage } = await chat(model(), request, deps, () => undefined);
      expect(usage).toEqual({ input_tokens: 1300, output_tokens: 10, cached_input_tokens: 1000, cache_write_input_tokens: 200, cost_usd: expect.any(Number) });
      // $3 per million uncached input, $0.30 cache reads, $3.75 cache writes, $15 output.
      expect(usage.cost_usd).toBeCloseTo((100 * 3 + 1000 * 0.3 + 200 * 3.75 + 10 * 15) / 1e6, 12);
    });

    it('hands each text delta over in order as it arrives, long before the answer ends, and returns the answer with the usage of the metadata event', async () => {
      server.reply(converseStream(converseEvents({ text: ['There ', 'are ', '3 ', 'flights.'], usage: [120, 15] }), { delayMs: 100 }));
      const { result, deltas, leadMs } = await streamedCall((onDelta) => chat(model(), request, deps, onDelta));
      expect(deltas).toEqual(['There ', 'are ', '3 ', 'flights.']);
      expect(leadMs).toBeGreaterThanOrEqual(300);
      expect(result).toEqual({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 120, output_tokens: 15, cost_usd: 0.000585 } });
      expect(decodeURIComponent(server.requests[0].url)).toBe(`/model/${MODEL_ID}/converse-stream`);
      expect(server.requests[0].body).toMatchObject({ inferenceConfig: { temperature: 0, maxTokens: 1000 }, toolConfig: {} });
    });

    it('assembles a streamed tool use from its input deltas, after the text before it', async () => {
      server.reply(
        converseStream(converseEvents({ text: ['Retrying ', 'hotels.'], toolUses: [{ id: 'tu_3', name: 'search_index', inputParts: ['{"ind', 'ex": "hot', 'el"}'] }] })),
      );
      const deltas: string[] = [];
      const response = await chat(model(), request, deps, (text) => deltas.push(text));
      expect(response).toEqual({
        content: 'Retrying hotels.',
        tool_calls: [{ id: 'tu_3', name: 'search_index', input: { index: 'hotel' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.000105 },
      });
      expect(deltas).toEqual(['Retrying ', 'hotels.']);
    });

    it('applies a response_filter to the assembled output as to a plain one', async () => {
      server.reply(converseStream(converseEvents({ text: ['3 ', 'flights.'] })));
      const response = await chat(model(), { ...request, response_filter: '$.output.message.content[0].text' }, deps, () => undefined);
      expect(response.content).toBe('3 flights.');
      server.reply(converseStream(converseEvents({ text: ['ok'] })));
      expect((await chat(model(), { ...request, response_filter: '$.stopReason' }, deps, () => undefined)).content).toBe('end_turn');
    });

    it('sends neither stream nor stream_chunk_chars (perflow\'s own settings) as the model\'s own fields', async () => {
      server.reply(converseStream(converseEvents({ text: ['ok'] })));
      await chat({ ...model(), parameters: { temperature: 0, top_k: 40, stream: true, stream_chunk_chars: 40 } }, request, deps, () => undefined);
      expect((server.requests[0].body as Record<string, unknown>).additionalModelRequestFields).toEqual({ top_k: 40 });
    });

    it.each([
      ['throttlingException', 'Bedrock.Throttling'],
      ['modelStreamErrorException', 'Bedrock.ModelStreamError'],
    ])('reports a %s sent inside the stream as a retryable %s', async (exception, type) => {
      const events = converseEvents({ text: ['There ', 'are'] });
      server.reply(converseStream([...events.slice(0, 2), { exception, body: { message: 'try again' } }]));
      const deltas: string[] = [];
      const failure = (await rejectionOf(chat(model(), request, deps, (text) => deltas.push(text)))) as ApplicationFailure;
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure.type).toBe(type);
      expect(failure.nonRetryable).toBe(false);
      expect(deltas).toEqual(['There ']);
    });

    it('reports a validationException sent inside the stream as non-retryable', async () => {
      server.reply(converseStream([{ exception: 'validationException', body: { message: 'bad input' } }]));
      const failure = (await rejectionOf(chat(model(), request, deps, () => undefined))) as ApplicationFailure;
      expect(failure.type).toBe('Bedrock.Validation');
      expect(failure.nonRetryable).toBe(true);
    });

    it('reports a connection cut mid-stream, and a stream that ends before messageStop, as retryable', async () => {
      server.reply(converseStream(converseEvents({ text: ['There ', 'are ', '3 ', 'flights.'] }), { delayMs: 20, cutAfter: 3 }));
      const deltas: string[] = [];
      const cut = (await rejectionOf(chat(model(), request, deps, (text) => deltas.push(text)))) as ApplicationFailure;
      expect(cut).toBeInstanceOf(ApplicationFailure);
      expect(cut.type).toBe('Bedrock.Connection');
      expect(cut.nonRetryable).toBe(false);
      expect(deltas).toEqual(['There ', 'are ']);
      server.reply(converseStream(converseEvents({ text: ['There ', 'are'] }).slice(0, 3)));
      const ended = (await rejectionOf(chat(model(), request, deps, () => undefined))) as ApplicationFailure;
      expect(ended.type).toBe('Bedrock.Connection');
      expect(ended.nonRetryable).toBe(false);
    });

    it('stops when the activity is cancelled, as a retryable failure', async () => {
      // The rest of the stream would take 3 s: a cancelled call does not wait for it.
      server.reply(converseStream(converseEvents({ text: ['There ', 'are ', '3 ', 'flights.'] }), { delayMs: 1_000 }));
      const activity = new MockActivityEnvironment();
      const deltas: string[] = [];
      const started = Date.now();
      const failure = (await rejectionOf(activity.run(() => chat(model(), request, deps, (text) => (deltas.push(text), activity.cancel()))))) as ApplicationFailure;
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure.nonRetryable).toBe(false);
      expect(deltas).toEqual(['There ']);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('reports an HTTP 400 to a streamed request as non-retryable', async () => {
      server.reply({ status: 400, headers: { 'x-amzn-errortype': 'ValidationException' }, body: { message: 'streaming is not supported for this model' } });
      const failure = (await rejectionOf(chat(model(), request, deps, () => undefined))) as ApplicationFailure;
      expect(failure.type).toBe('Bedrock.Validation');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain('HTTP 400');
    });
  });
});
