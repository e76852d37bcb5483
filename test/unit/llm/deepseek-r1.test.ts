import { chat } from '../../../activities/llm/chat';
import { parseDeepSeekAnswer, stripReasoning } from '../../../activities/llm/deepseek-r1';
import type { ChatRequest } from '../../../activities/llm/scripted';
import { converseEvents, converseStream, startWireServer, streamedCall, type WireServer } from '../../support/wire-server';
import { withEnv } from '../../support/env';
import { modelAdapters } from '../../../activities/llm/adapters';
import { providerConfigFromEnv } from '../../../config/env';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: modelAdapters({ providers: providerConfigFromEnv() }) };

// Costs at the price table's DeepSeek-R1 price on Bedrock, $1.35 in / $5.40 out per million tokens.
const MODEL_ID = 'us.deepseek.r1-v1:0';

const tools: ChatRequest['tools'] = [
  { name: 'search_index', description: 'Searches an index', input_schema: { type: 'object', properties: { index: { type: 'string' } } } },
];

function converseReply(content: unknown[]): unknown {
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: 'end_turn',
    usage: { inputTokens: 300, outputTokens: 40, totalTokens: 340 },
    metrics: { latencyMs: 10 },
  };
}

describe('bedrock/converse/deepseek_r1 against a local Converse server', () => {
  let server: WireServer;
  let restoreEnv: () => void;
  const model = () => ({ interface: 'bedrock/converse/deepseek_r1' as const, model: MODEL_ID, region: 'us-east-1', base_url: server.url });

  beforeAll(async () => {
    server = await startWireServer({ http2: true });
    restoreEnv = withEnv({ AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret-test', AWS_SESSION_TOKEN: undefined, AWS_PROFILE: undefined });
  });
  afterAll(async () => {
    restoreEnv();
    await server.close();
  });
  beforeEach(() => server.requests.splice(0));

  it('describes the tools in the system prompt, sends no toolConfig, and parses a text tool call', async () => {
    server.reply({
      body: converseReply([
        { reasoningContent: { reasoningText: { text: 'I should search flights.' } } },
        {
          text:
            '<think>The user wants flights.</think>\n```json\n' +
            '{"stop_reason": "tool_use", "tool_calls": [{"id": "tool_use_abc", "tool_name": "search_index", "input": {"index": "flights"}}]}\n```',
        },
      ]),
    });
    const response = await chat(model(), { system: 'You are an executor.', messages: [{ role: 'user', content: 'Count flights.' }], tools, position: { role: 'executor', step: 0, iteration: 0 } }, deps);
    expect(response).toEqual({
      content: '',
      tool_calls: [{ id: 'tool_use_abc', name: 'search_index', input: { index: 'flights' } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 300, output_tokens: 40, cost_usd: 0.000621 },
    });
    const body = server.requests[0].body as { system: { text: string }[]; toolConfig?: unknown; messages: unknown[] };
    expect(decodeURIComponent(server.requests[0].url)).toBe(`/model/${MODEL_ID}/converse`);
    expect(body.toolConfig).toBeUndefined();
    expect(body.system[0].text).toMatch(/^You are an executor\.\n\n/);
    expect(body.system[0].text).toContain('"name":"search_index"');
    expect(body.system[0].text).toContain('stop_reason');
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'Count flights.' }] }]);
  });

  it('sends tool calls back as protocol JSON without reasoning and tool results as user text', async () => {
    server.reply({ body: converseReply([{ text: '<think>done</think>{"stop_reason": "end_turn", "message": {"role": "assistant", "content": [{"text": "3 flights."}]}}' }]) });
    const response = await chat(
      model(),
      {
        system: 'You are an executor.',
        tools,
        position: { role: 'executor', step: 0, iteration: 1 },
        messages: [
          { role: 'user', content: 'Count flights.' },
          { role: 'assistant', content: '<think>secret reasoning</think>', tool_calls: [{ id: 'tool_use_abc', name: 'search_index', input: { index: 'flights' } }] },
          { role: 'tool', tool_call_id: 'tool_use_abc', name: 'search_index', content: '{"count": 3}' },
        ],
      },
      deps,
    );
    expect(response).toMatchObject({ content: '3 flights.', tool_calls: [], stop_reason: 'end_turn' });
    const body = server.requests[0].body as { messages: { role: string; content: { text: string }[] }[] };
    expect(JSON.stringify(body.messages)).not.toContain('secret reasoning');
    expect(JSON.stringify(body.messages)).not.toContain('think');
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [{ text: '{"stop_reason":"tool_use","tool_calls":[{"id":"tool_use_abc","tool_name":"search_index","input":{"index":"flights"}}]}' }],
    });
    expect(body.messages[2].role).toBe('user');
    expect(body.messages[2].content[0].text).toContain('tool_use_abc');
    expect(body.messages[2].content[0].text).toContain('{"count": 3}');
  });

  it('streamed, hands over the raw text (reasoning, protocol JSON) as it arrives and parses the joined answer as unstreamed', async () => {
    const text = ['<think>The user wants', ' flights.</think>\n{"stop_reason": "tool_use", ', '"tool_calls": [{"id": "tool_use_abc", "tool_name": "search_index", ', '"input": {"index": "flights"}}]}'];
    // The reasoning block is no answer text: no delta of its own.
    server.reply(converseStream(converseEvents({ reasoning: ['I should search ', 'flights.'], text, usage: [300, 40] }), { delayMs: 50 }));
    const { result, deltas, leadMs } = await streamedCall((onDelta) =>
      chat(
        model(),
        { system: 'You are an executor.', messages: [{ role: 'user', content: 'Count flights.' }], tools, position: { role: 'executor', step: 0, iteration: 0 } },
        deps,
        onDelta,
      ),
    );
    expect(deltas).toEqual(text);
    expect(leadMs).toBeGreaterThanOrEqual(100);
    expect(result).toEqual({
      content: '',
      tool_calls: [{ id: 'tool_use_abc', name: 'search_index', input: { index: 'flights' } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 300, output_tokens: 40, cost_usd: 0.000621 },
    });
    expect(decodeURIComponent(server.requests[0].url)).toBe(`/model/${MODEL_ID}/converse-stream`);
    expect((server.requests[0].body as { toolConfig?: unknown }).toolConfig).toBeUndefined();
  });
});

describe('parseDeepSeekAnswer', () => {
  it('reads a plain answer that is not protocol JSON as text', () => {
    expect(parseDeepSeekAnswer('<think>hmm</think>Just text.')).toEqual({ content: 'Just text.', tool_calls: [] });
  });

  it('reads a string message of an end_turn answer', () => {
    expect(parseDeepSeekAnswer('{"stop_reason": "end_turn", "message": "done"}')).toEqual({ content: 'done', tool_calls: [] });
  });

  it('gives a tool call without an id a generated tool_use_ id', () => {
    const answer = parseDeepSeekAnswer('{"stop_reason": "tool_use", "tool_calls": [{"tool_name": "t", "input": "{\\"a\\": 1}"}]}');
    expect(answer.tool_calls[0].id).toMatch(/^tool_use_/);
    expect(answer.tool_calls[0].input).toEqual({ a: 1 });
  });

  it('drops an unclosed think block', () => {
    expect(stripReasoning('answer <think>still thinking')).toBe('answer');
  });
});
