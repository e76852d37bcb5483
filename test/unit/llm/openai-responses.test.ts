import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { chat } from '../../../activities/llm/chat';
import { modelAdapters } from '../../../activities/llm/adapters';
import { applyResponseFilter } from '../../../activities/llm/response-filter';
import { llmResponseFilterFor } from '../../../core/agent-file/llm-interfaces';
import type { ChatMessage } from '../../../core/llm-types';
import { providerConfigFromEnv } from '../../../config/env';
import { rejectionOf, streamedCall, useWireServer, type WireServer } from '../../support/wire-server';
import { eventStream, eventsBefore, openAiResponse, responseObject, streamedResponse, type ResponsesAnswer } from '../../support/responses-wire';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';

/** The worker's model clients, from this process's environment (the tests set it). */
const llm = modelAdapters({ providers: providerConfigFromEnv() });
const deps = { llm };

const question = { role: 'user' as const, content: 'How many flights?' };
const request = executorRequest([question]);
const answerOnly = { ...request, tools: undefined };
const schema = { type: 'object', properties: { index: { type: 'string' } }, required: ['index'] };

type Body = Record<string, unknown> & { input: Record<string, unknown>[] };

/** A turn with reasoning before its call, as a reasoning model answers. */
const reasoningTurn: ResponsesAnswer = {
  reasoning: [{ id: 'rs_01', encrypted: 'gAAAAB-opaque-reasoning==', summary: 'The flights index has the count.' }],
  functionCalls: [{ callId: 'call_A1', name: 'search_index', argumentParts: ['{"ind', 'ex": "fli', 'ghts"}'] }],
};

describe('openai/v1/responses against a local Responses API server', () => {
  const wire = useWireServer(() => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: undefined, TEAM_OPENAI_KEY: 'sk-team' }));
  let server: WireServer;
  // The openai SDK's base URL includes /v1.
  const model = (parameters: Record<string, unknown> = {}) => ({ interface: 'openai/v1/responses' as const, model: 'gpt-5', base_url: `${server.url}/v1`, parameters });
  const body = (i = 0) => server.requests[i].body as Body;
  const failureOf = async (call: Promise<unknown>) => {
    const err = await rejectionOf(call);
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  };

  beforeEach(() => {
    server = wire();
    server.requests.splice(0);
  });

  it('streams a text answer: each delta in order as it arrives, the joined answer, and the request as the API wants it', async () => {
    server.reply(streamedResponse({ text: ['There ', 'are ', '3 ', 'flights.'], usage: [42, 7] }, { delayMs: 100 }));
    const { result, deltas, leadMs } = await streamedCall((onDelta) => chat(model(), answerOnly, deps, onDelta));
    // Five events (the text's last three deltas and their ends) came after the first piece.
    expect({ deltas, streamed: leadMs >= 300 }).toEqual({ deltas: ['There ', 'are ', '3 ', 'flights.'], streamed: true });
    // gpt-5: $1.25 per million input tokens, $10 output.
    expect(result).toEqual({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 42, output_tokens: 7, cost_usd: 0.0001225 } });
    const { method, url, headers, body: sent } = server.requests[0];
    expect([method, url, headers.authorization]).toEqual(['POST', '/v1/responses', 'Bearer sk-test']);
    expect(sent).toEqual({
      model: 'gpt-5',
      instructions: 'You are an executor.',
      input: [{ role: 'user', content: 'How many flights?' }],
      store: false,
      include: ['reasoning.encrypted_content'],
      stream: true,
    });
  });

  it('answers a plain call with the same response, whose raw the default response filter reads', async () => {
    server.reply(openAiResponse({ reasoning: [{ id: 'rs_0', encrypted: 'enc' }], text: ['There are 3 flights.'], usage: [42, 7] }));
    const response = await llm.chat({ model: model(), request: answerOnly });
    expect(response).toMatchObject({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 42, output_tokens: 7 } });
    expect(response.carry).toBeUndefined();
    expect(body()).not.toHaveProperty('stream');
    expect(applyResponseFilter(response.raw, llmResponseFilterFor('openai/v1/responses'), 'openai/v1/responses')).toBe('There are 3 flights.');
    server.reply(streamedResponse({ reasoning: [{ id: 'rs_0', encrypted: 'enc' }], text: ['There ', 'are 3 flights.'] }));
    const streamed = await llm.chat({ model: model(), request: answerOnly, onDelta: () => undefined });
    expect(applyResponseFilter(streamed.raw, llmResponseFilterFor('openai/v1/responses'), 'openai/v1/responses')).toBe('There are 3 flights.');
    expect((streamed.raw as { output_text: string }).output_text).toBe('There are 3 flights.');
  });

  it('takes a function_call turn, then sends the call and its output back under the same call_id (ERROR: for a failed tool)', async () => {
    server.reply(streamedResponse({ text: ['Let me look.'], functionCalls: [{ callId: 'call_01', name: 'search_index', argumentParts: ['{"ind', 'ex": "fli', 'ghts"}'] }] }));
    const deltas: string[] = [];
    const turn = await chat(model(), request, deps, (text) => deltas.push(text));
    expect(turn).toMatchObject({ content: 'Let me look.', tool_calls: [{ id: 'call_01', name: 'search_index', input: { index: 'flights' } }], stop_reason: 'tool_use' });
    expect(deltas).toEqual(['Let me look.']);
    expect(body()).toMatchObject({ tools: [{ type: 'function', name: 'search_index', description: 'Searches an index', parameters: schema, strict: false }], parallel_tool_calls: false });

    server.reply(openAiResponse({ text: ['There are 3 flights.'] }));
    const next = executorRequest([
      question,
      { role: 'assistant', content: turn.content, tool_calls: turn.tool_calls },
      { role: 'tool', tool_call_id: 'call_01', name: 'search_index', content: '{"count": 3}' },
      { role: 'tool', tool_call_id: 'call_02', name: 'search_index', content: 'index not found', is_error: true },
    ]);
    expect((await chat(model(), next, deps)).content).toBe('There are 3 flights.');
    expect(body(1).input).toEqual([
      { role: 'user', content: 'How many flights?' },
      { role: 'assistant', content: 'Let me look.' },
      { type: 'function_call', call_id: 'call_01', name: 'search_index', arguments: '{"index":"flights"}' },
      { type: 'function_call_output', call_id: 'call_01', output: '{"count": 3}' },
      { type: 'function_call_output', call_id: 'call_02', output: 'ERROR: index not found' },
    ]);
  });

  it('carries a tool turn\'s reasoning to the next turn of the step: its output items sent back byte for byte, in order', async () => {
    server.reply(streamedResponse(reasoningTurn), openAiResponse({ text: ['There are 3 flights.'] }));
    const turn = await llm.chat({ model: model(), request, onDelta: () => undefined });
    const output = (turn.raw as { output: unknown[] }).output;
    expect(turn.carry).toEqual(output);
    expect((turn.carry as { type: string }[]).map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    // As the activity gives it back: read from memory, so a copy.
    const carry: unknown = JSON.parse(JSON.stringify(turn.carry));
    const history: ChatMessage[] = [
      question,
      { role: 'assistant', content: turn.content, tool_calls: turn.tool_calls, carry },
      { role: 'tool', tool_call_id: 'call_A1', name: 'search_index', content: '{"count": 3}' },
    ];
    const answer = await llm.chat({ model: model(), request: executorRequest(history) });
    expect(answer.carry).toBeUndefined();
    const input = body(1).input;
    expect(JSON.stringify(input.slice(1, 3))).toBe(JSON.stringify(carry));
    expect(input[1]).toEqual({ id: 'rs_01', type: 'reasoning', summary: [{ type: 'summary_text', text: 'The flights index has the count.' }], encrypted_content: 'gAAAAB-opaque-reasoning==' });
    expect(input[2]).toMatchObject({ type: 'function_call', call_id: 'call_A1', arguments: '{"index": "flights"}' });
    expect(input[3]).toEqual({ type: 'function_call_output', call_id: 'call_A1', output: '{"count": 3}' });
    expect(input).toHaveLength(4);
  });

  it('counts cached input and reasoning output tokens as Chat Completions does, priced at their rates, the reasoning count kept in raw', async () => {
    // gpt-5: $1.25 input, $0.125 cached input, $10 output per million tokens: 400 × 1.25 + 600 × 0.125 + 500 × 10.
    const answer: ResponsesAnswer = { text: ['ok'], usage: [1000, 500, 600, 300] };
    server.reply(openAiResponse(answer), streamedResponse(answer));
    const usage = { input_tokens: 1000, output_tokens: 500, cached_input_tokens: 600, cost_usd: 0.005575 };
    expect((await chat(model(), answerOnly, deps)).usage).toEqual(usage);
    expect((await chat(model(), answerOnly, deps, () => undefined)).usage).toEqual(usage);
    server.reply(openAiResponse(answer));
    const raw = (await llm.chat({ model: model(), request: answerOnly })).raw as { usage: { output_tokens_details: { reasoning_tokens: number } } };
    expect(raw.usage.output_tokens_details.reasoning_tokens).toBe(300);
  });

  it('maps llm.parameters: max tokens, sampling, reasoning, include, parallel calls and strict tools; store stays false; others as they are', async () => {
    server.reply(openAiResponse({ text: ['ok'] }), openAiResponse({ text: ['ok'] }));
    const parameters = { max_tokens: '1024', temperature: 0.2, top_p: 0.9, reasoning: { effort: 'low', summary: 'auto' }, include: ['message.output_text.logprobs'], store: true, parallel_tool_calls: true, timeout_ms: 5_000, truncation: 'auto' };
    const strict = { ...request, tools: request.tools?.map((t) => ({ ...t, strict: true })) };
    await chat(model(parameters), strict, deps);
    expect(body()).toEqual({
      model: 'gpt-5',
      max_output_tokens: 1024,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: 'low', summary: 'auto' },
      truncation: 'auto',
      instructions: 'You are an executor.',
      tools: [{ type: 'function', name: 'search_index', description: 'Searches an index', parameters: schema, strict: true }],
      parallel_tool_calls: true,
      input: [{ role: 'user', content: 'How many flights?' }],
      store: false,
      include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
    });
    await chat(model({ max_output_tokens: 300, reasoning_effort: 'minimal' }), answerOnly, deps);
    expect(body(1)).toMatchObject({ max_output_tokens: 300, reasoning: { effort: 'minimal' } });
    expect(body(1)).not.toHaveProperty('reasoning_effort');
  });

  it('asks for a typed answer as text.format json_schema (strict only for a schema strict mode takes), merged into an agent file\'s own text, whose format wins', async () => {
    server.reply(openAiResponse({ text: ['{"count": 3}'] }), streamedResponse({ text: ['{"count": 3}'] }), openAiResponse({ text: ['{"count": 3}'] }));
    const loose = { type: 'object', properties: { count: { type: 'integer' } } };
    const closed = { ...loose, required: ['count'], additionalProperties: false };
    await chat(model({ text: { verbosity: 'low' } }), { ...request, output: { name: 'flight_count', schema: loose } }, deps);
    await chat(model(), { ...answerOnly, output: { name: 'flight_count', schema: closed } }, deps, () => undefined);
    const own = { format: { type: 'json_object' } };
    await chat(model({ text: own }), { ...answerOnly, output: { name: 'flight_count', schema: closed } }, deps);
    expect(body(0).text).toEqual({ verbosity: 'low', format: { type: 'json_schema', name: 'flight_count', schema: loose, strict: false } });
    expect(body(1).text).toEqual({ format: { type: 'json_schema', name: 'flight_count', schema: closed, strict: true } });
    expect(body(2).text).toEqual(own);
  });

  it('goes to the worker\'s OPENAI_BASE_URL when the model names no base_url, sends the key of api_key_env, and needs no key for a local server', async () => {
    const restore = withEnv({ OPENAI_BASE_URL: `${server.url}/v1` });
    try {
      server.reply(openAiResponse({ text: ['ok'] }), openAiResponse({ text: ['ok'] }));
      const { base_url: _baseUrl, ...noUrl } = model();
      await chat({ ...noUrl, api_key_env: 'TEAM_OPENAI_KEY' }, answerOnly, deps);
      expect([server.requests[0].url, server.requests[0].headers.authorization]).toEqual(['/v1/responses', 'Bearer sk-team']);
      const noKey = withEnv({ OPENAI_API_KEY: undefined });
      try {
        await chat(noUrl, answerOnly, deps);
        expect(server.requests[1].headers.authorization).toBe('Bearer no-key');
        const failure = await failureOf(chat({ ...noUrl, base_url: 'https://api.openai.com/v1' }, answerOnly, deps));
        expect([failure.type, failure.nonRetryable, failure.message]).toEqual(['OpenAI.Configuration', true, "OPENAI_API_KEY is not set in the worker's environment"]);
        expect(server.requests).toHaveLength(2);
      } finally {
        noKey();
      }
    } finally {
      restore();
    }
  });

  describe('errors', () => {
    it('reports a 429 with retry-after as a retryable OpenAI.RateLimit that waits as asked, after one request', async () => {
      server.reply({ status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'Rate limit reached for gpt-5', type: 'requests', code: 'rate_limit_exceeded' } } });
      const failure = await failureOf(chat(model(), request, deps, () => undefined));
      expect([failure.type, failure.nonRetryable, failure.nextRetryDelay]).toEqual(['OpenAI.RateLimit', false, 2000]);
      expect(failure.message).toBe('openai/v1/responses model "gpt-5" failed with HTTP 429: 429 Rate limit reached for gpt-5');
      expect(server.requests).toHaveLength(1);
    });

    it('reports a prompt longer than the context window as a non-retryable OpenAI.ContextLength in one line, over HTTP or in response.failed', async () => {
      const said = 'Your input exceeds the context window of this model. Please adjust your input and try again.';
      server.reply(
        { status: 400, body: { error: { message: said, type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } } },
        eventStream([{ type: 'response.failed', response: responseObject({}, 'failed', { error: { code: 'context_length_exceeded', message: said } }) }]),
      );
      for (const onDelta of [undefined, () => undefined]) {
        const failure = await failureOf(chat(model(), request, deps, onDelta));
        expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.ContextLength', true]);
        expect(failure.message).toBe(
          'openai/v1/responses model "gpt-5" cannot take the prompt: it is longer than the model\'s context window; shorten what the run carries (message_history_limit, continue_as_new_after_events) or use a model with a larger window',
        );
      }
      expect(server.requests).toHaveLength(2);
    });

    it('reports a refused key as non-retryable, naming the variable it came from', async () => {
      server.reply({ status: 401, body: { error: { message: 'Incorrect API key provided: sk-team.', type: 'invalid_request_error', code: 'invalid_api_key' } } });
      const failure = await failureOf(chat({ ...model(), api_key_env: 'TEAM_OPENAI_KEY' }, request, deps));
      expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.Authentication', true]);
      expect(failure.message).toBe('openai/v1/responses model "gpt-5" failed with HTTP 401: 401 Incorrect API key provided: sk-team.; check the key in TEAM_OPENAI_KEY');
    });

    it('turns response.failed into a failure with the server\'s message, classified by its code', async () => {
      const failed = (code: string, message: string) => {
        const events = eventsBefore({ text: ['There ', 'are'] }, 'response.output_text.delta', 2);
        return eventStream([...events, { type: 'response.failed', response: responseObject({}, 'failed', { error: { code, message } }) }]);
      };
      server.reply(failed('server_error', 'The server had an error while processing your request.'), failed('rate_limit_exceeded', 'Too many tokens.'), failed('invalid_prompt', 'Invalid prompt: flagged.'));
      const deltas: string[] = [];
      const serverError = await failureOf(chat(model(), answerOnly, deps, (text) => deltas.push(text)));
      expect([serverError.type, serverError.nonRetryable]).toEqual(['OpenAI.InternalServer', false]);
      expect(serverError.message).toBe('openai/v1/responses model "gpt-5" failed with response.failed (server_error): The server had an error while processing your request.');
      expect(deltas).toEqual(['There ']);
      const rateLimit = await failureOf(chat(model(), answerOnly, deps, () => undefined));
      expect([rateLimit.type, rateLimit.nonRetryable]).toEqual(['OpenAI.RateLimit', false]);
      const invalid = await failureOf(chat(model(), answerOnly, deps, () => undefined));
      expect([invalid.type, invalid.nonRetryable, invalid.message]).toEqual(['OpenAI.BadRequest', true, 'openai/v1/responses model "gpt-5" failed with response.failed (invalid_prompt): Invalid prompt: flagged.']);
    });

    it('turns an error event mid-stream into a retryable failure after the deltas that arrived', async () => {
      const events = eventsBefore({ text: ['There ', 'are ', '3 ', 'flights.'] }, 'response.output_text.delta', 3);
      server.reply(eventStream([...events, { type: 'error', code: 'server_error', message: 'An error occurred while processing your request.', param: null }]));
      const deltas: string[] = [];
      const failure = await failureOf(chat(model(), answerOnly, deps, (text) => deltas.push(text)));
      expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.InternalServer', false]);
      expect(failure.message).toBe('openai/v1/responses model "gpt-5" failed mid-stream (server_error): An error occurred while processing your request.');
      expect(deltas).toEqual(['There ', 'are ']);
    });

    it('reports response.incomplete (streamed or plain) as a non-retryable OpenAI.Incomplete saying what to raise', async () => {
      const incomplete = responseObject({}, 'incomplete', { incomplete_details: { reason: 'max_output_tokens' } });
      server.reply(eventStream([{ type: 'response.created', response: { ...incomplete, status: 'in_progress' } }, { type: 'response.incomplete', response: incomplete }]), { body: incomplete });
      for (const onDelta of [() => undefined, undefined]) {
        const failure = await failureOf(chat(model(), answerOnly, deps, onDelta));
        expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.Incomplete', true]);
        expect(failure.message).toBe('openai/v1/responses model "gpt-5" stopped before the answer was complete (max_output_tokens): raise llm.parameters.max_output_tokens (reasoning counts against it)');
      }
    });

    it('reports a stream without response.completed, or cut, as a retryable OpenAI.Connection', async () => {
      const reply = streamedResponse({ text: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 20 });
      server.reply({ ...reply, parts: reply.parts.slice(0, -1) }, { ...reply, cutAfter: 5 });
      for (let i = 0; i < 2; i++) {
        const failure = await failureOf(chat(model(), answerOnly, deps, () => undefined));
        expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.Connection', false]);
      }
    });

    it('stops a streamed call when the activity is cancelled, as a retryable OpenAI.Aborted', async () => {
      server.reply(streamedResponse({ text: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 100 }));
      const activity = new MockActivityEnvironment();
      const deltas: string[] = [];
      const failure = await failureOf(activity.run(() => chat(model(), answerOnly, deps, (text) => (deltas.push(text), activity.cancel()))));
      expect([failure.type, failure.nonRetryable]).toEqual(['OpenAI.Aborted', false]);
      expect(deltas).toEqual(['There ']);
    });
  });
});
