/**
 * Turns provider errors into `ApplicationFailure`s, in one place per provider, so Temporal's
 * retry policy is the one retry mechanism: the SDK clients run with their own retries off.
 * Over 300 lines on purpose: the status, Retry-After and context-length rules every adapter
 * shares sit beside each provider's mapping of them, so one rule changes in one place.
 *
 * Retryable: HTTP 408, 409, 429 and 5xx, timeouts and connection errors (with `nextRetryDelay`
 * from the `retry-after-ms` / `retry-after` headers when the provider sends them).
 * Non-retryable: every other status (400, 401, 403, 404, 422, ...), with a message naming the
 * interface, the model and the HTTP status. The failure `type` is dotted: `OpenAI.RateLimit`,
 * `Bedrock.Throttling`, ...; the original error is kept as the cause.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { anthropicSdk, openAiSdk } from './sdks';

/** The failure types' prefixes of the built-in providers. */
export type ProviderPrefix = 'OpenAI' | 'Bedrock' | 'Anthropic' | 'Gemini';

/** What a failure message names: the interface and the model that were called. */
export interface ModelCallContext {
  /** LLM interface name, e.g. `openai/v1/chat/completions`. */
  interface: string;
  /** Model id, e.g. `gpt-4o`. */
  model?: string;
}

/** Header lookup over the WHATWG `Headers` the OpenAI SDK keeps and the plain records AWS keeps. */
type HeaderSource = Headers | Record<string, string | undefined> | undefined | null;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : record[key];
}

/**
 * The delay a provider asked for before the next attempt, in milliseconds: `retry-after-ms`,
 * then `retry-after` as seconds or as an HTTP date. `undefined` when absent or unusable.
 */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = header(headers, 'retry-after');
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/** Whether an HTTP status is worth another attempt: 408, 409, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const OPENAI_KINDS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Authentication',
  403: 'PermissionDenied',
  404: 'NotFound',
  408: 'Timeout',
  409: 'Conflict',
  422: 'UnprocessableEntity',
  429: 'RateLimit',
};

/** A failure kind by HTTP status: `RateLimit`, `BadRequest`, …, `InternalServer` for 5xx. */
export function statusKind(status: number): string {
  if (OPENAI_KINDS[status]) return OPENAI_KINDS[status];
  return status >= 500 ? 'InternalServer' : `Http${status}`;
}

/** The interface and the model, as failure messages begin. */
export function describe(ctx: ModelCallContext): string {
  return `${ctx.interface} model "${ctx.model ?? '(default)'}"`;
}

export interface FailureParts {
  type: string;
  message: string;
  retryable: boolean;
  cause: unknown;
  delayMs?: number;
}

/** An `ApplicationFailure` of the parts: `nextRetryDelay` only when retryable. */
export function failure(parts: FailureParts): ApplicationFailure {
  return ApplicationFailure.create({
    message: parts.message,
    type: parts.type,
    nonRetryable: !parts.retryable,
    // Duck-typed: errors of Node's core modules may come from another realm (jest).
    cause: parts.cause instanceof Error || isErrorLike(parts.cause) ? (parts.cause as Error) : undefined,
    nextRetryDelay: parts.retryable && parts.delayMs !== undefined ? parts.delayMs : undefined,
  });
}

function isErrorLike(v: unknown): boolean {
  return typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string' && 'stack' in v;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Node socket error codes of a connection that failed or dropped. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether an error (or one of its causes) is a connection that dropped while a response body was
 * read: fetch then throws `TypeError: terminated` caused by undici's `UND_ERR_SOCKET`, which the
 * SDK does not wrap as a connection error (a streamed answer cut midway).
 */
export function isDroppedConnection(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'UND_ERR_SOCKET' || (typeof code === 'string' && CONNECTION_CODES.has(code))) return true;
  }
  return false;
}

/** The error classes the `openai` and `@anthropic-ai/sdk` clients share (both generated alike) for calls that got no answer. */
interface TransportErrors {
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

/** A call that got no answer, all retryable: aborted, timed out, not connected or dropped; `undefined` for any other error. */
function transportFailure(provider: ProviderPrefix, sdk: TransportErrors, err: unknown, ctx: ModelCallContext): ApplicationFailure | undefined {
  if (err instanceof sdk.APIUserAbortError) {
    return failure({ type: `${provider}.Aborted`, message: `${describe(ctx)} call was aborted`, retryable: true, cause: err });
  }
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return failure({ type: `${provider}.Timeout`, message: `${describe(ctx)} timed out: ${err.message}`, retryable: true, cause: err });
  }
  if (err instanceof sdk.APIConnectionError || isDroppedConnection(err)) {
    return failure({ type: `${provider}.Connection`, message: `${describe(ctx)} could not be reached: ${errorMessage(err)}`, retryable: true, cause: err });
  }
  return undefined;
}

/**
 * Classifies an error of the `openai` SDK.
 *
 * @param err - what the SDK threw
 * @param ctx - the interface and model called, named in the message
 * @returns an `ApplicationFailure` of type `OpenAI.<Kind>`; an `ApplicationFailure` passes through
 */
export function openAiFailure(err: unknown, ctx: ModelCallContext): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const sdk = openAiSdk();
  const transport = transportFailure('OpenAI', sdk, err, ctx);
  if (transport) return transport;
  const { APIError } = sdk;
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    // A body `{"error": "…"}` (Ollama's native routes) is kept as said; the SDK's message quotes it as JSON. `code` may be a number (vLLM).
    const said = typeof err.error === 'string' ? err.error : err.message;
    if (status === 400 && (err.code === 'context_length_exceeded' || CONTEXT_LENGTH.test(said))) return contextLengthFailure('OpenAI', ctx, said, err);
    const retryable = isRetryableStatus(status);
    return failure({
      type: `OpenAI.${statusKind(status)}`,
      message: `${describe(ctx)} failed with HTTP ${status}: ${said}`,
      retryable,
      cause: err,
      delayMs: retryAfterMs(err.headers),
    });
  }
  return failure({ type: 'OpenAI.Unknown', message: `${describe(ctx)} failed: ${errorMessage(err)}`, retryable: true, cause: err });
}

/** Providers' words for a prompt longer than the model's context window. */
const CONTEXT_LENGTH = /context length|context window|input is too long|prompt is too long|too many (input )?tokens|exceeds? the (configured )?limit of \d+ tokens/i;

/**
 * A prompt the model's context window cannot hold: no attempt will get past it. One line naming
 * the model, its window and the prompt's size when the provider says them (OpenAI: "maximum
 * context length is W tokens … resulted in P tokens"; Anthropic on Bedrock: "P tokens > W
 * maximum"; `found`: the sizes a provider's own module read), and what to change.
 */
export function contextLengthFailure(provider: ProviderPrefix, ctx: ModelCallContext, said: string, cause: unknown, found: { window?: string; prompt?: string } = {}): ApplicationFailure {
  const window = found.window ?? /(?:maximum context length is|limit of|context window of)\s*(\d+)/i.exec(said)?.[1] ?? /\d+ tokens\s*>\s*(\d+)/.exec(said)?.[1];
  const prompt = found.prompt ?? /resulted in\s*(\d+)/i.exec(said)?.[1] ?? /(\d+) tokens\s*>/.exec(said)?.[1];
  const sizes = window !== undefined || prompt !== undefined ? ` (its window ${window !== undefined ? `${window} tokens` : 'unknown'}, the prompt ${prompt !== undefined ? `${prompt} tokens` : 'of unknown size'})` : '';
  return failure({
    type: `${provider}.ContextLength`,
    message: `${describe(ctx)} cannot take the prompt: it is longer than the model's context window${sizes}; shorten what the run carries (message_history_limit, continue_as_new_after_events) or use a model with a larger window`,
    retryable: false,
    cause,
  });
}

/**
 * A streamed answer that ended before the provider said it was complete (no finish reason, no
 * `messageStop`): the connection was cut without an error, and another attempt may get through.
 *
 * @param provider - the failure type's prefix
 */
export function streamCutFailure(provider: ProviderPrefix, ctx: ModelCallContext): ApplicationFailure {
  return failure({ type: `${provider}.Connection`, message: `${describe(ctx)} stream ended before the answer was complete`, retryable: true, cause: undefined });
}

/** Bedrock exception names (without `Exception`) that a later attempt may get past. */
const BEDROCK_RETRYABLE = new Set(['Throttling', 'ServiceUnavailable', 'InternalServer', 'ModelNotReady', 'ModelTimeout', 'ModelStreamError']);
/** Bedrock exception names that no later attempt gets past. */
const BEDROCK_PERMANENT = new Set(['AccessDenied', 'Validation', 'ResourceNotFound', 'UnrecognizedClient']);
interface AwsLikeError {
  name?: string;
  code?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  $response?: { statusCode?: number; headers?: Record<string, string> };
}

/**
 * Classifies an error of the Bedrock runtime client (service exceptions, timeouts, sockets).
 *
 * @param err - what the client threw
 * @param ctx - the interface and model called, named in the message
 * @returns an `ApplicationFailure` of type `Bedrock.<Kind>`; an `ApplicationFailure` passes through
 */
export function bedrockFailure(err: unknown, ctx: ModelCallContext): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as AwsLikeError;
  const name = e.name ?? '';
  const message = e.message ?? errorMessage(err);
  const status = e.$metadata?.httpStatusCode ?? e.$response?.statusCode;
  if (name === 'TimeoutError' || name === 'AbortError' || e.code === 'ETIMEDOUT' || e.code === 'ESOCKETTIMEDOUT') {
    return failure({ type: 'Bedrock.Timeout', message: `${describe(ctx)} timed out: ${message}`, retryable: true, cause: err });
  }
  const dropped = /ECONN|EPIPE|socket hang up|ERR_HTTP2|GOAWAY/i.test(message);
  if ((e.code && (CONNECTION_CODES.has(e.code) || e.code.startsWith('ERR_HTTP2'))) || (status === undefined && e.$fault === undefined && dropped)) {
    return failure({ type: 'Bedrock.Connection', message: `${describe(ctx)} could not be reached: ${message}`, retryable: true, cause: err });
  }
  if (e.$fault === undefined && status === undefined) {
    // Not an answer from the service: missing credentials or region, a bad request built locally, ...
    const kind = name === 'CredentialsProviderError' ? 'Credentials' : 'Client';
    return failure({ type: `Bedrock.${kind}`, message: `${describe(ctx)} could not be called: ${message}`, retryable: false, cause: err });
  }
  const kind = name.replace(/Exception$/, '') || (status !== undefined ? statusKind(status) : 'Unknown');
  if (kind === 'Validation' && CONTEXT_LENGTH.test(message)) return contextLengthFailure('Bedrock', ctx, message, err);
  const retryable = BEDROCK_RETRYABLE.has(kind)
    ? true
    : BEDROCK_PERMANENT.has(kind)
      ? false
      : status !== undefined
        ? isRetryableStatus(status)
        : e.$fault === 'server';
  return failure({
    type: `Bedrock.${kind}`,
    message: `${describe(ctx)} failed with HTTP ${status ?? 'unknown'} (${name || 'error'}): ${message}`,
    retryable,
    cause: err,
    delayMs: retryAfterMs(e.$response?.headers),
  });
}

/** Anthropic's error types (`error.type`, the one classification of an error sent inside a stream): the failure kind and whether a later attempt may get past it. */
const ANTHROPIC_ERROR_TYPES: Record<string, [kind: string, retryable: boolean]> = {
  invalid_request_error: ['BadRequest', false],
  authentication_error: ['Authentication', false],
  billing_error: ['Billing', false],
  permission_error: ['PermissionDenied', false],
  not_found_error: ['NotFound', false],
  rate_limit_error: ['RateLimit', true],
  timeout_error: ['Timeout', true],
  api_error: ['InternalServer', true],
  overloaded_error: ['Overloaded', true],
};

/** Anthropic's statuses whose kind OpenAI's table does not name. */
const ANTHROPIC_STATUS_KINDS: Record<number, string> = { 402: 'Billing', 413: 'ContentTooLarge', 529: 'Overloaded' };

/**
 * Classifies an error of the `@anthropic-ai/sdk` client: by HTTP status (429 and 529 with their
 * `retry-after-ms` / `retry-after` delay), and an `event: error` sent inside a stream (no status)
 * by its error type.
 *
 * @param err - what the SDK threw
 * @param ctx - the interface and model called, and the variable whose key was sent (named when the key is refused)
 * @returns an `ApplicationFailure` of type `Anthropic.<Kind>`; an `ApplicationFailure` passes through
 */
export function anthropicFailure(err: unknown, ctx: ModelCallContext & { keyVariable?: string }): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const sdk = anthropicSdk();
  const transport = transportFailure('Anthropic', sdk, err, ctx);
  if (transport) return transport;
  if (!(err instanceof sdk.APIError)) {
    return failure({ type: 'Anthropic.Unknown', message: `${describe(ctx)} failed: ${errorMessage(err)}`, retryable: true, cause: err });
  }
  // The body's own message: the SDK's `message` is the whole body as JSON.
  const said = err.apiMessage ?? err.message;
  if ((err.status === 400 || err.type === 'invalid_request_error') && CONTEXT_LENGTH.test(said)) return contextLengthFailure('Anthropic', ctx, said, err);
  if (err.status === undefined) {
    const [kind, retryable] = (err.type ? ANTHROPIC_ERROR_TYPES[err.type] : undefined) ?? ['Unknown', true];
    return failure({ type: `Anthropic.${kind}`, message: `${describe(ctx)} failed mid-stream (${err.type ?? 'error'}): ${said}`, retryable, cause: err });
  }
  const status = err.status;
  const key = status === 401 || status === 403 ? `; check the key in ${ctx.keyVariable ?? 'ANTHROPIC_API_KEY'}` : '';
  return failure({
    type: `Anthropic.${ANTHROPIC_STATUS_KINDS[status] ?? statusKind(status)}`,
    message: `${describe(ctx)} failed with HTTP ${status}: ${said}${key}`,
    retryable: isRetryableStatus(status),
    cause: err,
    delayMs: retryAfterMs(err.headers),
  });
}
