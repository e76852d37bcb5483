import {
  AccessDeniedException,
  InternalServerException,
  ModelNotReadyException,
  ResourceNotFoundException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { ApplicationFailure } from '@temporalio/activity';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { bedrockFailure, openAiFailure, retryAfterMs } from '../../../activities/llm/errors';

const openAi = { interface: 'openai/v1/chat/completions', model: 'gpt-4o' };
const bedrock = { interface: 'bedrock/converse/claude', model: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0' };

function httpError(status: number, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { error: { message: `status ${status}` } }, undefined, new Headers(headers));
}

describe('openAiFailure', () => {
  it.each([
    [400, 'OpenAI.BadRequest'],
    [401, 'OpenAI.Authentication'],
    [403, 'OpenAI.PermissionDenied'],
    [404, 'OpenAI.NotFound'],
    [422, 'OpenAI.UnprocessableEntity'],
  ])('makes HTTP %i a non-retryable %s naming the interface, model and status', (status, type) => {
    const failure = openAiFailure(httpError(status), openAi);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('openai/v1/chat/completions');
    expect(failure.message).toContain('"gpt-4o"');
    expect(failure.message).toContain(`HTTP ${status}`);
  });

  it.each([
    [408, 'OpenAI.Timeout'],
    [409, 'OpenAI.Conflict'],
    [429, 'OpenAI.RateLimit'],
    [500, 'OpenAI.InternalServer'],
    [502, 'OpenAI.InternalServer'],
    [503, 'OpenAI.InternalServer'],
  ])('makes HTTP %i a retryable %s', (status, type) => {
    const failure = openAiFailure(httpError(status), openAi);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('takes the next retry delay from retry-after-ms before retry-after', () => {
    const failure = openAiFailure(httpError(429, { 'retry-after-ms': '1500', 'retry-after': '9' }), openAi);
    expect(failure.nextRetryDelay).toBe(1500);
  });

  it('takes the next retry delay from retry-after in seconds', () => {
    expect(openAiFailure(httpError(503, { 'retry-after': '3' }), openAi).nextRetryDelay).toBe(3000);
  });

  it('gives no retry delay to a non-retryable failure even when retry-after is sent', () => {
    expect(openAiFailure(httpError(400, { 'retry-after': '3' }), openAi).nextRetryDelay).toBeUndefined();
  });

  it('makes a connection timeout a retryable OpenAI.Timeout', () => {
    const failure = openAiFailure(new APIConnectionTimeoutError(), openAi);
    expect(failure.type).toBe('OpenAI.Timeout');
    expect(failure.nonRetryable).toBe(false);
  });

  it('makes a connection error a retryable OpenAI.Connection that keeps the cause', () => {
    const err = new APIConnectionError({ message: 'connect ECONNREFUSED' });
    const failure = openAiFailure(err, openAi);
    expect(failure.type).toBe('OpenAI.Connection');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.cause).toBe(err);
  });

  it('passes an ApplicationFailure through unchanged', () => {
    const original = ApplicationFailure.nonRetryable('already classified', 'X.Y');
    expect(openAiFailure(original, openAi)).toBe(original);
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:05 GMT' }, now)).toBe(5000);
  });

  it('ignores a retry-after it cannot read', () => {
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
  });
});

describe('bedrockFailure', () => {
  const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });

  it.each([
    ['ThrottlingException', new ThrottlingException({ message: 'slow down', ...meta(429) }), 'Bedrock.Throttling'],
    ['ServiceUnavailableException', new ServiceUnavailableException({ message: 'down', ...meta(503) }), 'Bedrock.ServiceUnavailable'],
    ['InternalServerException', new InternalServerException({ message: 'oops', ...meta(500) }), 'Bedrock.InternalServer'],
    ['ModelNotReadyException', new ModelNotReadyException({ message: 'warming up', ...meta(429) }), 'Bedrock.ModelNotReady'],
  ])('makes a %s retryable', (_name, err, type) => {
    const failure = bedrockFailure(err, bedrock);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(false);
  });

  it.each([
    ['AccessDeniedException', new AccessDeniedException({ message: 'no access', ...meta(403) }), 'Bedrock.AccessDenied', 403],
    ['ValidationException', new ValidationException({ message: 'bad input', ...meta(400) }), 'Bedrock.Validation', 400],
    ['ResourceNotFoundException', new ResourceNotFoundException({ message: 'no model', ...meta(404) }), 'Bedrock.ResourceNotFound', 404],
  ])('makes a %s non-retryable with the interface, model and status in the message', (_name, err, type, status) => {
    const failure = bedrockFailure(err, bedrock);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('bedrock/converse/claude');
    expect(failure.message).toContain(bedrock.model);
    expect(failure.message).toContain(`HTTP ${status}`);
  });

  it('makes a request timeout a retryable Bedrock.Timeout', () => {
    const err = Object.assign(new Error('Connection timed out after 120000 ms'), { name: 'TimeoutError' });
    const failure = bedrockFailure(err, bedrock);
    expect(failure.type).toBe('Bedrock.Timeout');
    expect(failure.nonRetryable).toBe(false);
  });

  it('makes a refused connection a retryable Bedrock.Connection', () => {
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(bedrockFailure(err, bedrock)).toMatchObject({ type: 'Bedrock.Connection', nonRetryable: false });
  });

  it('makes a dropped HTTP/2 session a retryable Bedrock.Connection', () => {
    const err = Object.assign(new Error('Protocol error'), { code: 'ERR_HTTP2_ERROR' });
    expect(bedrockFailure(err, bedrock)).toMatchObject({ type: 'Bedrock.Connection', nonRetryable: false });
  });

  it('makes missing credentials a non-retryable Bedrock.Credentials', () => {
    const err = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    expect(bedrockFailure(err, bedrock)).toMatchObject({ type: 'Bedrock.Credentials', nonRetryable: true });
  });

  it('falls back to the HTTP status for an exception it does not know', () => {
    const err = Object.assign(new Error('teapot'), { name: 'SomethingNewException', $fault: 'server', $metadata: { httpStatusCode: 502 } });
    expect(bedrockFailure(err, bedrock)).toMatchObject({ type: 'Bedrock.SomethingNew', nonRetryable: false });
  });
});
