import { ApplicationFailure } from '@temporalio/activity';
import { chat } from '../../../activities/llm/chat';
import { rejectionOf, startWireServer, type WireServer } from '../../support/wire-server';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';
import { createLlmClients } from '../../../activities/llm/clients';
import { providerConfigFromEnv } from '../../../config/env';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: createLlmClients(providerConfigFromEnv()) };

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
      usage: { input_tokens: 120, output_tokens: 15 },
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
});
