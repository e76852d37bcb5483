import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { chat } from '../../../activities/llm/chat';
import { modelAdapters } from '../../../activities/llm/adapters';
import { providerConfigFromEnv } from '../../../config/env';
import { anthropicMessage, rejectionOf, sseEvent, streamedAnthropicMessage, streamedCall, useWireServer, type WireServer } from '../../support/wire-server';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: modelAdapters({ providers: providerConfigFromEnv() }) };

const question = { role: 'user' as const, content: 'How many flights?' };
const request = executorRequest([question]);
const answerOnly = { ...request, tools: undefined };
const schema = { type: 'object', properties: { index: { type: 'string' } }, required: ['index'] };

type Body = Record<string, unknown>;

describe('anthropic/v1/messages against a local Messages API server', () => {
  const wire = useWireServer(() => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: undefined, TEAM_ANTHROPIC_KEY: 'sk-ant-team' }));
  let server: WireServer;
  const model = (parameters: Record<string, unknown> = {}) => ({ interface: 'anthropic/v1/messages' as const, model: 'claude-sonnet-4-6', base_url: server.url, parameters });
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
    server.reply(streamedAnthropicMessage({ text: ['There ', 'are ', '3 ', 'flights.'], usage: [42, 7] }, { delayMs: 100 }));
    const { result, deltas, leadMs } = await streamedCall((onDelta) => chat(model(), answerOnly, deps, onDelta));
    // The first piece came 300 ms (three pieces) before the answer ended.
    expect({ deltas, streamed: leadMs >= 300 }).toEqual({ deltas: ['There ', 'are ', '3 ', 'flights.'], streamed: true });
    // claude-sonnet-4-6: $3 per million input tokens, $15 output.
    expect(result).toEqual({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 42, output_tokens: 7, cost_usd: 0.000231 } });
    const { method, url, headers, body: sent } = server.requests[0];
    expect([method, url, headers.authorization]).toEqual(['POST', '/v1/messages', 'Bearer sk-ant-test']);
    expect(sent).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 4096,
      stream: true,
      system: [{ type: 'text', text: 'You are an executor.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'How many flights?' }] }],
    });
  });

  it('answers a plain (unstreamed) call with the same response', async () => {
    server.reply(anthropicMessage({ text: ['There are 3 flights.'], usage: [42, 7] }));
    const response = await chat(model(), answerOnly, deps);
    expect(response).toEqual({ content: 'There are 3 flights.', tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 42, output_tokens: 7, cost_usd: 0.000231 } });
    expect(body()).not.toHaveProperty('stream');
  });

  it('takes a tool_use turn, then sends the tool_result back with the same id (is_error for a failed tool), one user message per turn', async () => {
    server.reply(streamedAnthropicMessage({ text: ['Let me look.'], toolUses: [{ id: 'toolu_01', name: 'search_index', inputParts: ['{"ind', 'ex": "fli', 'ghts"}'] }] }));
    const deltas: string[] = [];
    const turn = await chat(model(), request, deps, (text) => deltas.push(text));
    expect(turn).toMatchObject({ content: 'Let me look.', tool_calls: [{ id: 'toolu_01', name: 'search_index', input: { index: 'flights' } }], stop_reason: 'tool_use' });
    expect(deltas).toEqual(['Let me look.']);
    expect(body()).toMatchObject({
      tools: [{ name: 'search_index', description: 'Searches an index', input_schema: schema, cache_control: { type: 'ephemeral' } }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });

    server.reply(anthropicMessage({ text: ['There are 3 flights.'] }));
    const next = executorRequest([
      question,
      { role: 'assistant', content: turn.content, tool_calls: turn.tool_calls },
      { role: 'tool', tool_call_id: 'toolu_01', name: 'search_index', content: '{"count": 3}' },
      { role: 'tool', tool_call_id: 'toolu_02', name: 'search_index', content: 'index not found', is_error: true },
    ]);
    expect((await chat(model(), next, deps)).content).toBe('There are 3 flights.');
    expect(body(1).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'How many flights?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_01', name: 'search_index', input: { index: 'flights' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: '{"count": 3}' },
          { type: 'tool_result', tool_use_id: 'toolu_02', content: 'index not found', is_error: true },
        ],
      },
    ]);
  });

  it('with extended thinking, carries the turn\'s thinking blocks (signatures, redacted data) to the next turn, unchanged and in order; the thoughts never stream', async () => {
    const thinking = { type: 'enabled', budget_tokens: 8000 };
    server.reply(
      streamedAnthropicMessage({ thinking: { parts: ['The user wants ', 'flights.'], signature: 'EqQBCkYIBxgCKkDsig==' }, text: ['Looking.'], toolUses: [{ id: 'toolu_07', name: 'search_index', inputParts: ['{"index":"flights"}'] }] }),
    );
    const deltas: string[] = [];
    const turn = await chat(model({ thinking }), request, deps, (text) => deltas.push(text));
    expect(deltas).toEqual(['Looking.']);
    // Asked as the agent file says; room left for the answer beyond the thinking budget.
    expect(body()).toMatchObject({ thinking, max_tokens: 8000 + 4096 });
    const blocks = [
      { type: 'thinking', thinking: 'The user wants flights.', signature: 'EqQBCkYIBxgCKkDsig==' },
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_07', name: 'search_index', input: { index: 'flights' } },
    ];
    expect(turn.carry).toEqual(blocks);

    server.reply(anthropicMessage({ thinking: { redacted: 'cmVkYWN0ZWQ=' }, toolUses: [{ id: 'toolu_08', name: 'search_index', inputParts: ['{"index":"hotels"}'] }] }));
    const assistant = { role: 'assistant' as const, content: turn.content, tool_calls: turn.tool_calls, carry: turn.carry };
    const result = (id: string) => ({ role: 'tool' as const, tool_call_id: id, name: 'search_index', content: '{"count": 3}' });
    const second = await chat(model({ thinking }), executorRequest([question, assistant, result('toolu_07')]), deps);
    expect((body(1).messages as unknown[])[1]).toEqual({ role: 'assistant', content: blocks });
    expect(second.carry).toEqual([{ type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' }, { type: 'tool_use', id: 'toolu_08', name: 'search_index', input: { index: 'hotels' } }]);

    // A final answer carries nothing (there is no next turn); a turn without thinking carries nothing either.
    server.reply(anthropicMessage({ thinking: { parts: ['done'], signature: 'c2ln' }, text: ['3 flights.'] }), anthropicMessage({ toolUses: [{ id: 'toolu_09', name: 'search_index', inputParts: ['{}'] }] }));
    expect((await chat(model({ thinking }), answerOnly, deps)).carry).toBeUndefined();
    expect((await chat(model(), request, deps)).carry).toBeUndefined();
  });

  it('parses a plain tool_use answer', async () => {
    server.reply(anthropicMessage({ toolUses: [{ id: 'toolu_03', name: 'search_index', inputParts: ['{"index":"hotels"}'] }] }));
    const response = await chat(model(), request, deps);
    expect(response.tool_calls).toEqual([{ id: 'toolu_03', name: 'search_index', input: { index: 'hotels' } }]);
    expect(response.stop_reason).toBe('tool_use');
  });

  it('counts the prompt cache reads and writes into the input tokens, plain and streamed, and prices each at its rate', async () => {
    // claude-sonnet-4-6: $3 input, $3.75 cache write, $0.30 cache read, $15 output per million tokens.
    server.reply(anthropicMessage({ text: ['ok'], usage: [200, 100, 600, 200] }), streamedAnthropicMessage({ text: ['ok'], usage: [200, 100, 600, 200] }));
    const usage = { input_tokens: 1000, output_tokens: 100, cached_input_tokens: 600, cache_write_input_tokens: 200, cost_usd: 0.00303 };
    expect((await chat(model(), answerOnly, deps)).usage).toEqual(usage);
    expect((await chat(model(), answerOnly, deps, () => undefined)).usage).toEqual(usage);
  });

  it('leaves cache_control out with llm.parameters.cache false, and sends the parameters it does not map as they are', async () => {
    server.reply(anthropicMessage({ text: ['ok'] }), anthropicMessage({ text: ['ok'] }));
    const parameters = { cache: false, max_tokens: '1024', temperature: 0.2, top_k: 5, stop: 'END', metadata: { user_id: 'u-1' }, timeout_ms: 5_000, stream: true };
    await chat(model(parameters), request, deps);
    await chat(model({ cache: 'false' }), request, deps);
    expect(body()).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      temperature: 0.2,
      top_k: 5,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-1' },
      system: 'You are an executor.',
      tools: [{ name: 'search_index', description: 'Searches an index', input_schema: schema }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'How many flights?' }] }],
    });
    expect(body(1)).not.toHaveProperty('cache');
    expect(JSON.stringify(body(1))).not.toContain('cache_control');
  });

  it('lets the model call tools in parallel when parallel_tool_calls is true, and leaves an agent file\'s tool_choice as it is', async () => {
    server.reply(anthropicMessage({ text: ['ok'] }), anthropicMessage({ text: ['ok'] }));
    await chat(model({ parallel_tool_calls: true }), request, deps);
    await chat(model({ tool_choice: { type: 'any' } }), request, deps);
    expect(body(0).tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: false });
    expect(body(1).tool_choice).toEqual({ type: 'any' });
  });

  it('asks for a typed answer as output_config.format json_schema in the form Claude takes, merged into an agent file\'s own output_config, whose format wins', async () => {
    server.reply(anthropicMessage({ text: ['{"count": 3}'] }), streamedAnthropicMessage({ text: ['{"count": 3}'] }), anthropicMessage({ text: ['{"count": 3}'] }));
    const output = { name: 'flight_count', schema: { type: 'object', properties: { count: { type: 'integer', minimum: 0 } }, required: ['count'] } };
    // Closed, and the constraint Claude does not enforce moved into the description.
    const format = { type: 'json_schema', schema: { type: 'object', properties: { count: { type: 'integer', description: '{minimum: 0}' } }, additionalProperties: false, required: ['count'] } };
    await chat(model(), { ...request, output }, deps);
    await chat(model({ output_config: { effort: 'low' } }), { ...answerOnly, output }, deps, () => undefined);
    const own = { format: { type: 'json_schema', schema: { type: 'object' } } };
    await chat(model({ output_config: own }), { ...answerOnly, output }, deps);
    expect([body(0).output_config, body(1).output_config, body(2).output_config]).toEqual([{ format }, { effort: 'low', format }, own]);
    // A schema Claude cannot take (a list at the root) is stated by the prompt only.
    server.reply(anthropicMessage({ text: ['[]'] }));
    await chat(model(), { ...answerOnly, output: { name: 'flights', schema: { type: 'array', items: { type: 'string' } } } }, deps);
    expect(body(3)).not.toHaveProperty('output_config');
  });

  it('goes to the worker\'s ANTHROPIC_BASE_URL when the model names no base_url, and sends the key of api_key_env', async () => {
    const restore = withEnv({ ANTHROPIC_BASE_URL: server.url });
    try {
      server.reply(anthropicMessage({ text: ['ok'] }));
      const { base_url: _baseUrl, ...noUrl } = model();
      await chat({ ...noUrl, api_key_env: 'TEAM_ANTHROPIC_KEY' }, answerOnly, deps);
      expect(server.requests[0].headers.authorization).toBe('Bearer sk-ant-team');
    } finally {
      restore();
    }
  });

  describe('errors', () => {
    it('reports a 429 rate_limit_error with retry-after as a retryable Anthropic.RateLimit that waits as asked, after one request', async () => {
      server.reply(
        { status: 429, headers: { 'retry-after': '2' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } } },
        { status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '2' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } },
      );
      const failure = await failureOf(chat(model(), request, deps));
      expect(failure.type).toBe('Anthropic.RateLimit');
      expect(failure.nonRetryable).toBe(false);
      expect(failure.nextRetryDelay).toBe(2000);
      expect(failure.message).toBe('anthropic/v1/messages model "claude-sonnet-4-6" failed with HTTP 429: Number of request tokens has exceeded your per-minute rate limit');
      expect(server.requests).toHaveLength(1);
      expect((await failureOf(chat(model(), request, deps, () => undefined))).nextRetryDelay).toBe(1500);
    });

    it('reports a 529 overloaded_error as a retryable Anthropic.Overloaded', async () => {
      server.reply({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
      const failure = await failureOf(chat(model(), request, deps));
      expect(failure.type).toBe('Anthropic.Overloaded');
      expect(failure.nonRetryable).toBe(false);
      expect(server.requests).toHaveLength(1);
    });

    it('classifies an error event inside a stream by its type: overloaded retryable after the deltas that arrived, invalid_request not', async () => {
      const error = (type: string, message: string) => sseEvent('error', { type: 'error', error: { type, message } });
      const cut = (type: string, message: string) => {
        const reply = streamedAnthropicMessage({ text: ['There ', 'are ', '3 ', 'flights.'] });
        // message_start, ping, content_block_start and two deltas, then the error.
        return { ...reply, parts: [...reply.parts.slice(0, 5), error(type, message)] };
      };
      server.reply(cut('overloaded_error', 'Overloaded'), cut('api_error', 'Internal server error'), cut('invalid_request_error', 'messages: text content blocks must be non-empty'));
      const deltas: string[] = [];
      const overloaded = await failureOf(chat(model(), answerOnly, deps, (text) => deltas.push(text)));
      expect(overloaded.type).toBe('Anthropic.Overloaded');
      expect(overloaded.nonRetryable).toBe(false);
      expect(overloaded.message).toBe('anthropic/v1/messages model "claude-sonnet-4-6" failed mid-stream (overloaded_error): Overloaded');
      expect(deltas).toEqual(['There ', 'are ']);
      const apiError = await failureOf(chat(model(), answerOnly, deps, () => undefined));
      expect([apiError.type, apiError.nonRetryable]).toEqual(['Anthropic.InternalServer', false]);
      const invalid = await failureOf(chat(model(), answerOnly, deps, () => undefined));
      expect([invalid.type, invalid.nonRetryable]).toEqual(['Anthropic.BadRequest', true]);
    });

    it('reports a prompt too long as a non-retryable Anthropic.ContextLength in one line, after one request', async () => {
      server.reply({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 203284 tokens > 200000 maximum' } } });
      const failure = await failureOf(chat(model(), request, deps));
      expect(failure.type).toBe('Anthropic.ContextLength');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toBe(
        'anthropic/v1/messages model "claude-sonnet-4-6" cannot take the prompt: it is longer than the model\'s context window (its window 200000 tokens, the prompt 203284 tokens); shorten what the run carries (message_history_limit, continue_as_new_after_events) or use a model with a larger window',
      );
      expect(server.requests).toHaveLength(1);
      // Another 400 stays a bad request.
      server.reply({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } } });
      expect((await failureOf(chat(model(), request, deps))).type).toBe('Anthropic.BadRequest');
    });

    it('reports a refused key (401, 403) as non-retryable, naming the variable it came from', async () => {
      server.reply(
        { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } },
        { status: 403, body: { type: 'error', error: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' } } },
      );
      const failure = await failureOf(chat(model(), request, deps));
      expect(failure.type).toBe('Anthropic.Authentication');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toBe('anthropic/v1/messages model "claude-sonnet-4-6" failed with HTTP 401: invalid x-api-key; check the key in ANTHROPIC_API_KEY');
      const denied = await failureOf(chat({ ...model(), api_key_env: 'TEAM_ANTHROPIC_KEY' }, request, deps));
      expect([denied.type, denied.nonRetryable]).toEqual(['Anthropic.PermissionDenied', true]);
      expect(denied.message).toContain('check the key in TEAM_ANTHROPIC_KEY');
    });

    it('fails without a request when the key variable is not set', async () => {
      const restore = withEnv({ ANTHROPIC_API_KEY: undefined });
      try {
        const failure = await failureOf(chat(model(), request, deps));
        expect([failure.type, failure.nonRetryable, failure.message]).toEqual(['Anthropic.Configuration', true, "ANTHROPIC_API_KEY is not set in the worker's environment"]);
        expect(server.requests).toHaveLength(0);
      } finally {
        restore();
      }
    });

    it('reports a connection cut mid-stream and a stream that ends before message_stop as a retryable Anthropic.Connection', async () => {
      const reply = streamedAnthropicMessage({ text: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 20 });
      server.reply({ ...reply, cutAfter: 5 }, { ...reply, parts: reply.parts.slice(0, -1) });
      for (let i = 0; i < 2; i++) {
        const failure = await failureOf(chat(model(), answerOnly, deps, () => undefined));
        expect([failure.type, failure.nonRetryable]).toEqual(['Anthropic.Connection', false]);
      }
    });

    it('reports a server that cannot be reached, or answers too late, as retryable', async () => {
      const refused = await failureOf(chat({ ...model(), base_url: 'http://127.0.0.1:9' }, request, deps));
      expect([refused.type, refused.nonRetryable]).toEqual(['Anthropic.Connection', false]);
      const silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const late = await failureOf(chat({ ...model({ timeout_ms: 200 }), base_url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }, request, deps));
        expect([late.type, late.nonRetryable]).toEqual(['Anthropic.Timeout', false]);
      } finally {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('stops a streamed call when the activity is cancelled, as a retryable Anthropic.Aborted', async () => {
      server.reply(streamedAnthropicMessage({ text: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 100 }));
      const activity = new MockActivityEnvironment();
      const deltas: string[] = [];
      const call = activity.run(() => chat(model(), answerOnly, deps, (text) => (deltas.push(text), activity.cancel())));
      const failure = await failureOf(call);
      expect([failure.type, failure.nonRetryable]).toEqual(['Anthropic.Aborted', false]);
      expect(deltas).toEqual(['There ']);
    });
  });
});
