import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { chat } from '../../../activities/llm/chat';
import { modelAdapters } from '../../../activities/llm/adapters';
import { untilPacificMidnight } from '../../../activities/llm/gemini-errors';
import { providerConfigFromEnv } from '../../../config/env';
import { rejectionOf, useWireServer, type WireServer } from '../../support/wire-server';
import { geminiEvent, geminiResponse, googleError, quotaFailure, retryInfo, streamedGeminiResponse } from '../../support/gemini-wire';
import { withEnv } from '../../support/env';
import { executorRequest } from '../../support/chat-requests';

/** The worker's model clients, from this process's environment (the tests set it). */
const deps = { llm: modelAdapters({ providers: providerConfigFromEnv() }) };

const question = { role: 'user' as const, content: 'How many flights?' };
const request = executorRequest([question]);
const answerOnly = { ...request, tools: undefined };

describe('google/generate_content errors, against a local Gemini API server', () => {
  const wire = useWireServer(() => ({ GEMINI_API_KEY: 'gm-test', GOOGLE_API_KEY: undefined, GEMINI_BASE_URL: undefined, TEAM_GEMINI_KEY: 'gm-team' }));
  let server: WireServer;
  const model = (parameters: Record<string, unknown> = {}) => ({ interface: 'google/generate_content' as const, model: 'gemini-2.5-flash', base_url: server.url, parameters });
  const failureOf = async (call: Promise<unknown>) => {
    const err = await rejectionOf(call);
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  };

  beforeEach(() => {
    server = wire();
    server.requests.splice(0);
  });

  it('retries a 429 RESOURCE_EXHAUSTED after the RetryInfo delay it names, after one request', async () => {
    const message = 'You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generate_content_free_tier_requests, limit: 10\nPlease retry in 1.2s.';
    server.reply(googleError(429, 'RESOURCE_EXHAUSTED', message, [quotaFailure('GenerateRequestsPerMinutePerProjectPerModel-FreeTier', '10'), retryInfo('1.2s')]));
    const failure = await failureOf(chat(model(), request, deps));
    expect([failure.type, failure.nonRetryable, failure.nextRetryDelay]).toEqual(['Gemini.RateLimit', false, 1200]);
    expect(failure.message).toBe(
      'google/generate_content model "gemini-2.5-flash" failed with HTTP 429 (RESOURCE_EXHAUSTED): You exceeded your current quota, please check your plan and billing details. * Quota exceeded for metric: generate_content_free_tier_requests, limit: 10 Please retry in 1.2s.',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('fails at once on a per-day quota, in one line saying when it resets', async () => {
    server.reply(googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [quotaFailure('GenerateRequestsPerDayPerProjectPerModel-FreeTier', '250'), retryInfo('41s')]));
    const failure = await failureOf(chat(model(), request, deps));
    expect([failure.type, failure.nonRetryable, failure.nextRetryDelay]).toEqual(['Gemini.DailyQuota', true, undefined]);
    expect(failure.message).toMatch(
      /^google\/generate_content model "gemini-2\.5-flash" reached its per-day quota \(GenerateRequestsPerDayPerProjectPerModel-FreeTier, limit 250\), which resets at midnight Pacific time \(in about \d+ h \d+ min\); raise the quota or use another key \(GEMINI_API_KEY\) rather than retry$/,
    );
    // 23:30 PST, 23:00 PDT.
    expect([untilPacificMidnight(new Date('2026-01-15T07:30:00Z')), untilPacificMidnight(new Date('2026-07-15T06:00:00Z'))]).toEqual(['0 h 30 min', '1 h 0 min']);
  });

  it('classifies an error inside a stream by its code: 503 retryable after the pieces that arrived, 400 not', async () => {
    const cut = (code: number, status: string) => {
      const reply = streamedGeminiResponse({ text: ['There ', 'are ', '3 ', 'flights.'] });
      return { ...reply, parts: [...reply.parts.slice(0, 2), geminiEvent({ error: { code, message: 'The model is overloaded.', status } })] };
    };
    server.reply(cut(503, 'UNAVAILABLE'), cut(400, 'INVALID_ARGUMENT'));
    const deltas: string[] = [];
    const unavailable = await failureOf(chat(model(), answerOnly, deps, (text) => deltas.push(text)));
    expect([unavailable.type, unavailable.nonRetryable]).toEqual(['Gemini.Unavailable', false]);
    expect(unavailable.message).toBe('google/generate_content model "gemini-2.5-flash" failed with HTTP 503 (UNAVAILABLE): The model is overloaded.');
    expect(deltas).toEqual(['There ', 'are ']);
    const invalid = await failureOf(chat(model(), answerOnly, deps, () => undefined));
    expect([invalid.type, invalid.nonRetryable]).toEqual(['Gemini.BadRequest', true]);
  });

  it('reports a prompt too long as a non-retryable Gemini.ContextLength in one line; another 400 as a bad request', async () => {
    server.reply(
      googleError(400, 'INVALID_ARGUMENT', 'The input token count (1200345) exceeds the maximum number of tokens allowed (1048576).'),
      googleError(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified\n'),
    );
    const failure = await failureOf(chat(model(), request, deps));
    expect([failure.type, failure.nonRetryable]).toEqual(['Gemini.ContextLength', true]);
    expect(failure.message).toBe(
      'google/generate_content model "gemini-2.5-flash" cannot take the prompt: it is longer than the model\'s context window (its window 1048576 tokens, the prompt 1200345 tokens); shorten what the run carries (message_history_limit, continue_as_new_after_events) or use a model with a larger window',
    );
    const bad = await failureOf(chat(model(), request, deps));
    expect([bad.type, bad.nonRetryable, bad.message]).toEqual(['Gemini.BadRequest', true, 'google/generate_content model "gemini-2.5-flash" failed with HTTP 400 (INVALID_ARGUMENT): * GenerateContentRequest.contents: contents is not specified']);
    expect(server.requests).toHaveLength(2);
  });

  it('reports a refused key (400 API_KEY_INVALID, 403) as non-retryable, naming the variable it came from', async () => {
    const keyInvalid = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' };
    server.reply(
      googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [keyInvalid]),
      googleError(403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers.'),
    );
    const failure = await failureOf(chat(model(), request, deps));
    expect([failure.type, failure.nonRetryable]).toEqual(['Gemini.Authentication', true]);
    expect(failure.message).toBe('google/generate_content model "gemini-2.5-flash" failed with HTTP 400 (INVALID_ARGUMENT): API key not valid. Please pass a valid API key.; check the key in GEMINI_API_KEY');
    const denied = await failureOf(chat({ ...model(), api_key_env: 'TEAM_GEMINI_KEY' }, request, deps));
    expect([denied.type, denied.nonRetryable]).toEqual(['Gemini.PermissionDenied', true]);
    expect(denied.message).toContain('; check the key in TEAM_GEMINI_KEY');
  });

  it('reports a 500 as retryable after one request (the SDK retries nothing)', async () => {
    server.reply(googleError(500, 'INTERNAL', 'An internal error has occurred.'));
    const failure = await failureOf(chat(model(), request, deps));
    expect([failure.type, failure.nonRetryable]).toEqual(['Gemini.InternalServer', false]);
    expect(server.requests).toHaveLength(1);
  });

  it('fails a call whose answer or prompt was blocked for safety, at once and in one line', async () => {
    const ratings = [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }, { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' }];
    server.reply(
      streamedGeminiResponse({ text: ['I '], finishReason: 'SAFETY', candidate: { safetyRatings: ratings } }),
      geminiResponse({ finishReason: 'PROHIBITED_CONTENT' }),
      { body: { promptFeedback: { blockReason: 'BLOCKLIST' }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 } } },
    );
    const answer = await failureOf(chat(model(), answerOnly, deps, () => undefined));
    expect([answer.type, answer.nonRetryable, answer.message]).toEqual([
      'Gemini.Blocked',
      true,
      'google/generate_content model "gemini-2.5-flash" withheld its answer (finishReason SAFETY; HARM_CATEGORY_HARASSMENT HIGH); change what the run asks',
    ]);
    expect((await failureOf(chat(model(), answerOnly, deps))).message).toContain('withheld its answer (finishReason PROHIBITED_CONTENT)');
    const prompt = await failureOf(chat(model(), answerOnly, deps));
    expect([prompt.type, prompt.nonRetryable, prompt.message]).toEqual(['Gemini.Blocked', true, 'google/generate_content model "gemini-2.5-flash" refused the prompt (blockReason BLOCKLIST); change what the run asks']);
    // A tool call the model got wrong: another sample may get it right.
    server.reply(geminiResponse({ finishReason: 'MALFORMED_FUNCTION_CALL', candidate: { finishMessage: 'Malformed function call: print(default_api.search_index(' } }));
    const malformed = await failureOf(chat(model(), request, deps));
    expect([malformed.type, malformed.nonRetryable]).toEqual(['Gemini.MalformedFunctionCall', false]);
  });

  it('fails without a request when no key variable is set', async () => {
    const restore = withEnv({ GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined });
    try {
      const failure = await failureOf(chat(model(), request, deps));
      expect([failure.type, failure.nonRetryable, failure.message]).toEqual(['Gemini.Configuration', true, "GEMINI_API_KEY (or GOOGLE_API_KEY) is not set in the worker's environment"]);
      expect(server.requests).toHaveLength(0);
    } finally {
      restore();
    }
  });

  it('reports a connection cut mid-stream and a stream that ends without a finish reason as a retryable Gemini.Connection', async () => {
    const reply = streamedGeminiResponse({ text: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 20 });
    server.reply({ ...reply, cutAfter: 2 }, streamedGeminiResponse({ text: ['There ', 'are '], finishReason: null }));
    for (let i = 0; i < 2; i++) {
      const failure = await failureOf(chat(model(), answerOnly, deps, () => undefined));
      expect([failure.type, failure.nonRetryable]).toEqual(['Gemini.Connection', false]);
    }
    expect(server.requests).toHaveLength(2);
  });

  it('reports a server that cannot be reached, or answers too late, as retryable', async () => {
    const refused = await failureOf(chat({ ...model(), base_url: 'http://127.0.0.1:9' }, request, deps));
    expect([refused.type, refused.nonRetryable]).toEqual(['Gemini.Connection', false]);
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const late = await failureOf(chat({ ...model({ timeout_ms: 200 }), base_url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }, request, deps, () => undefined));
      expect([late.type, late.nonRetryable]).toEqual(['Gemini.Timeout', false]);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('stops a streamed call when the activity is cancelled, as a retryable Gemini.Aborted', async () => {
    server.reply(streamedGeminiResponse({ text: ['There ', 'are ', '3 ', 'flights.'] }, { delayMs: 100 }));
    const activity = new MockActivityEnvironment();
    const deltas: string[] = [];
    const call = activity.run(() => chat(model(), answerOnly, deps, (text) => (deltas.push(text), activity.cancel())));
    const failure = await failureOf(call);
    expect([failure.type, failure.nonRetryable]).toEqual(['Gemini.Aborted', false]);
    expect(deltas).toEqual(['There ']);
  });
});
