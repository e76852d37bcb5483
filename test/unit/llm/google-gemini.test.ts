import { chat } from '../../../activities/llm/chat';
import { modelAdapters } from '../../../activities/llm/adapters';
import { builtinInterface } from '../../../core/agent-file/llm-interfaces';
import { providerConfigFromEnv } from '../../../config/env';
import { streamedCall, useWireServer, type WireServer } from '../../support/wire-server';
import { geminiResponse, streamedGeminiResponse } from '../../support/gemini-wire';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';
import { checksSignatures, SKIP_SIGNATURE } from '../../../activities/llm/google-gemini';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: modelAdapters({ providers: providerConfigFromEnv() }) };

const question = { role: 'user' as const, content: 'How many flights?' };
const request = executorRequest([question]);
const answerOnly = { ...request, tools: undefined };
const schema = { type: 'object', properties: { index: { type: 'string' } }, required: ['index'] };

type Body = { contents: { role: string; parts: Record<string, unknown>[] }[] } & Record<string, unknown>;

describe('google/generate_content against a local Gemini API server', () => {
  const wire = useWireServer(() => ({ GEMINI_API_KEY: 'gm-test', GOOGLE_API_KEY: undefined, GEMINI_BASE_URL: undefined, TEAM_GEMINI_KEY: 'gm-team' }));
  let server: WireServer;
  const model = (parameters: Record<string, unknown> = {}) => ({ interface: 'google/generate_content' as const, model: 'gemini-2.5-flash', base_url: server.url, parameters });
  const body = (i = 0) => server.requests[i].body as Body;

  beforeEach(() => {
    server = wire();
    server.requests.splice(0);
  });

  it('streams a text answer: each answer piece in order as it arrives (thoughts never), the joined answer, and the request as the API wants it', async () => {
    server.reply(streamedGeminiResponse({ thoughts: ['Counting ', 'flights.'], text: ['There ', 'are ', '3 ', 'flights.'], usage: [42, 7] }, { delayMs: 100 }));
    const { result, deltas, leadMs } = await streamedCall((onDelta) => chat(model(), answerOnly, deps, onDelta));
    // The first answer piece came 300 ms (three pieces) before the answer ended.
    expect({ deltas, streamed: leadMs >= 300 }).toEqual({ deltas: ['There ', 'are ', '3 ', 'flights.'], streamed: true });
    // gemini-2.5-flash: $0.30 per million input tokens, $2.50 output.
    expect(result).toEqual({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 42, output_tokens: 7, cost_usd: 0.0000301 } });
    const { method, url, headers, body: sent } = server.requests[0];
    expect([method, url, headers['x-goog-api-key']]).toEqual(['POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', 'gm-test']);
    expect(sent).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'How many flights?' }] }],
      systemInstruction: { parts: [{ text: 'You are an executor.' }] },
      generationConfig: {},
    });
  });

  it('answers a plain (unstreamed) call with the same response; the default response filter selects the answer, not the thoughts', async () => {
    server.reply(geminiResponse({ thoughts: ['Counting flights.'], text: ['There are 3 flights.'], usage: [42, 7] }));
    const response = await chat(model(), answerOnly, deps);
    expect(response).toEqual({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 42, output_tokens: 7, cost_usd: 0.0000301 } });
    expect(server.requests[0].url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    const filter = builtinInterface('google/generate_content').responseFilter;
    server.reply(
      geminiResponse({ thoughts: ['Counting flights.'], text: ['There are 3 flights.'] }),
      streamedGeminiResponse({ thoughts: ['Counting ', 'flights.'], text: ['There ', 'are ', '3 ', 'flights.'] }),
    );
    expect((await chat(model(), { ...answerOnly, response_filter: filter }, deps)).content).toBe('There are 3 flights.');
    expect((await chat(model(), { ...answerOnly, response_filter: filter }, deps, () => undefined)).content).toBe('There are 3 flights.');
  });

  it('takes a function call with its id, then sends the functionResponse under that id ({error} for a failed tool), one user content per turn', async () => {
    server.reply(streamedGeminiResponse({ text: ['Let me look.'], calls: [{ id: 'fc-1', name: 'search_index', args: { index: 'flights' } }] }));
    const deltas: string[] = [];
    const turn = await chat(model(), request, deps, (text) => deltas.push(text));
    expect(turn).toMatchObject({ content: 'Let me look.', tool_calls: [{ id: 'fc-1', name: 'search_index', input: { index: 'flights' } }], stop_reason: 'tool_use' });
    expect(deltas).toEqual(['Let me look.']);
    expect(body().tools).toEqual([{ functionDeclarations: [{ name: 'search_index', description: 'Searches an index', parametersJsonSchema: schema }] }]);

    server.reply(geminiResponse({ text: ['There are 3 flights.'] }));
    const next = executorRequest([
      question,
      { role: 'assistant', content: turn.content, tool_calls: [...turn.tool_calls, { id: 'fc-2', name: 'search_index', input: { index: 'hotels' } }] },
      { role: 'tool', tool_call_id: 'fc-1', name: 'search_index', content: '{"count": 3}' },
      { role: 'tool', tool_call_id: 'fc-2', name: 'search_index', content: 'index not found', is_error: true },
    ]);
    expect((await chat(model(), next, deps)).content).toBe('There are 3 flights.');
    expect(body(1).contents).toEqual([
      { role: 'user', parts: [{ text: 'How many flights?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look.' },
          { functionCall: { id: 'fc-1', name: 'search_index', args: { index: 'flights' } } },
          { functionCall: { id: 'fc-2', name: 'search_index', args: { index: 'hotels' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc-1', name: 'search_index', response: { output: '{"count": 3}' } } },
          { functionResponse: { id: 'fc-2', name: 'search_index', response: { error: 'index not found' } } },
        ],
      },
    ]);
  });

  it('gives calls without functionCall.id ids of their own (others on a retried attempt), and pairs each result with its call by name and order', async () => {
    const calls = [
      { name: 'search_index', args: { index: 'flights' } },
      { name: 'lookup', args: { code: 'ZRH' } },
    ];
    server.reply(geminiResponse({ calls }), geminiResponse({ calls }));
    const turn = await chat(model({ parallel_tool_calls: true }), request, deps);
    const retried = await chat(model({ parallel_tool_calls: true }), request, deps);
    const [a, b] = turn.tool_calls;
    expect(turn.tool_calls.map((c) => [c.name, c.input])).toEqual([['search_index', { index: 'flights' }], ['lookup', { code: 'ZRH' }]]);
    expect(new Set([a.id, b.id, ...retried.tool_calls.map((c) => c.id)]).size).toBe(4);

    server.reply(geminiResponse({ text: ['Done.'] }));
    // The results in another order than the calls: each goes back in its call's place.
    await chat(model(), executorRequest([
      question,
      { role: 'assistant', content: '', tool_calls: turn.tool_calls },
      { role: 'tool', tool_call_id: b.id, name: 'lookup', content: 'Zurich' },
      { role: 'tool', tool_call_id: a.id, name: 'search_index', content: '3 flights' },
    ]), deps);
    expect(body(2).contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'search_index', args: { index: 'flights' } } }, { functionCall: { name: 'lookup', args: { code: 'ZRH' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'search_index', response: { output: '3 flights' } } }, { functionResponse: { name: 'lookup', response: { output: 'Zurich' } } }] },
    ]);
  });

  it('carries a tool turn\'s parts as received (thoughts and thought signatures) and sends them back as that turn on the next call', async () => {
    server.reply(streamedGeminiResponse({ thoughts: ['I should ', 'search.'], calls: [{ name: 'search_index', args: { index: 'flights' }, thoughtSignature: 'c2lnLTE=' }] }));
    const turn = await deps.llm.chat({ model: model(), request, onDelta: () => undefined });
    const received = [{ text: 'I should ', thought: true }, { text: 'search.', thought: true }, { functionCall: { name: 'search_index', args: { index: 'flights' } }, thoughtSignature: 'c2lnLTE=' }];
    expect(turn.carry).toEqual({ parts: received });
    // A final answer carries nothing.
    server.reply(geminiResponse({ text: ['ok'] }));
    expect((await deps.llm.chat({ model: model(), request: answerOnly })).carry).toBeUndefined();

    server.reply(geminiResponse({ text: ['There are 3 flights.'] }));
    // As memory gives it back: JSON.
    const carry = JSON.parse(JSON.stringify(turn.carry)) as unknown;
    await chat(model(), executorRequest([
      question,
      { role: 'assistant', content: '', tool_calls: turn.tool_calls, carry },
      { role: 'tool', tool_call_id: turn.tool_calls[0].id, name: 'search_index', content: '3 flights' },
    ]), deps);
    const sent = body(2).contents;
    // Byte for byte: the parts' fields in the order the API gave them (the SDK's converter would put `args` before `name`).
    expect(JSON.stringify(sent[1])).toBe(JSON.stringify({ role: 'model', parts: carry && (carry as { parts: unknown }).parts }));
    expect(sent[1]).toEqual({ role: 'model', parts: received });
    expect(sent[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'search_index', response: { output: '3 flights' } } }] });
  });

  it("a turn without its carried parts, to a model that checks signatures, sends Google's stand-in signature on its first call; a carried one keeps its own", async () => {
    const gemini3 = { ...model(), model: 'gemini-3-pro-preview' };
    const calls = [
      { id: 'call-a', name: 'search_index', input: { index: 'flights' } },
      { id: 'call-b', name: 'lookup', input: { code: 'ZRH' } },
    ];
    server.reply(geminiResponse({ text: ['Done.'] }), geminiResponse({ text: ['Done.'] }));
    const history = (carry?: unknown) => executorRequest([
      question,
      { role: 'assistant', content: '', tool_calls: calls, ...(carry ? { carry } : {}) },
      { role: 'tool', tool_call_id: 'call-a', name: 'search_index', content: '3 flights' },
      { role: 'tool', tool_call_id: 'call-b', name: 'lookup', content: 'Zurich' },
    ]);
    await chat(gemini3, history(), deps);
    expect(body(0).contents[1]).toEqual({ role: 'model', parts: [
      { functionCall: { id: 'call-a', name: 'search_index', args: { index: 'flights' } }, thoughtSignature: SKIP_SIGNATURE },
      { functionCall: { id: 'call-b', name: 'lookup', args: { code: 'ZRH' } } },
    ] });
    const carried = [{ functionCall: { id: 'call-a', name: 'search_index', args: { index: 'flights' } }, thoughtSignature: 'c2lnLTE=' }, { functionCall: { id: 'call-b', name: 'lookup', args: { code: 'ZRH' } } }];
    await chat(gemini3, history({ parts: carried }), deps);
    expect(body(1).contents[1]).toEqual({ role: 'model', parts: carried });
    expect([checksSignatures('gemini-2.5-flash'), checksSignatures('models/gemini-2.0-flash'), checksSignatures('gemini-3-flash-preview'), checksSignatures('gemini-4-argon')]).toEqual([false, false, true, true]);
  });

  it('counts cached and thought tokens, plain and streamed, and prices each at its rate', async () => {
    // gemini-2.5-flash: $0.30 input, $0.03 cached input, $2.50 output (thoughts included) per million tokens.
    server.reply(geminiResponse({ text: ['ok'], usage: [1000, 60, 600, 40] }), streamedGeminiResponse({ text: ['ok'], usage: [1000, 60, 600, 40] }));
    const usage = { input_tokens: 1000, output_tokens: 100, cached_input_tokens: 600, cost_usd: 0.000388 };
    expect((await chat(model(), answerOnly, deps)).usage).toEqual(usage);
    expect((await chat(model(), answerOnly, deps, () => undefined)).usage).toEqual(usage);
  });

  it('maps the sampling parameters into generationConfig, and sends those it does not map as they are', async () => {
    server.reply(geminiResponse({ text: ['ok'] }));
    const parameters = {
      temperature: 0.2, top_p: '0.9', top_k: 5, max_tokens: '1024', stop: 'END', thinking_config: { thinking_budget: 512 },
      response_mime_type: 'text/plain', safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      timeout_ms: 5_000, stream: true, parallel_tool_calls: false,
    };
    await chat(model(parameters), request, deps);
    expect(body()).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'How many flights?' }] }],
      systemInstruction: { parts: [{ text: 'You are an executor.' }] },
      tools: [{ functionDeclarations: [{ name: 'search_index', description: 'Searches an index', parametersJsonSchema: schema }] }],
      generationConfig: { temperature: 0.2, topP: 0.9, topK: 5, maxOutputTokens: 1024, stopSequences: ['END'], thinkingConfig: { thinking_budget: 512 }, response_mime_type: 'text/plain' },
      safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    });
  });

  it('asks a typed answer with Gemini\'s JSON mode and the schema, unless the agent file sets a response format itself', async () => {
    const output = { name: 'count', schema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } };
    server.reply(geminiResponse({ text: ['{"count": 3}'] }), geminiResponse({ text: ['{"count": 3}'] }));
    expect((await chat(model(), { ...answerOnly, output }, deps)).content).toBe('{"count": 3}');
    expect(body().generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: output.schema });
    await chat(model({ response_mime_type: 'text/x.enum' }), { ...answerOnly, output }, deps);
    expect(body(1).generationConfig).toEqual({ response_mime_type: 'text/x.enum' });
  });

  it('goes to the worker\'s GEMINI_BASE_URL when the model names no base_url; takes GOOGLE_API_KEY when GEMINI_API_KEY is unset, and the key of api_key_env', async () => {
    const restore = withEnv({ GEMINI_BASE_URL: server.url, GEMINI_API_KEY: undefined, GOOGLE_API_KEY: 'google-key' });
    try {
      server.reply(geminiResponse({ text: ['ok'] }), geminiResponse({ text: ['ok'] }));
      const { base_url: _baseUrl, ...noUrl } = model();
      await chat(noUrl, answerOnly, deps);
      await chat({ ...noUrl, api_key_env: 'TEAM_GEMINI_KEY' }, answerOnly, deps);
      expect(server.requests.map((q) => q.headers['x-goog-api-key'])).toEqual(['google-key', 'gm-team']);
    } finally {
      restore();
    }
  });
});
