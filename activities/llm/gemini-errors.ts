/**
 * The failures of `google/generate_content` (`Gemini.<Kind>`). The SDK's `ApiError` has no
 * headers: Google's JSON error body is in its message (`{"error": {code, message, status,
 * details}}`), and a 429 says how long to wait in its `google.rpc.RetryInfo` detail, not in a
 * `Retry-After` header. A per-day quota does not clear for hours: it fails at once, saying so.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { contextLengthFailure, describe, errorMessage, failure, isDroppedConnection, isRetryableStatus, statusKind, type ModelCallContext } from './errors';
import { googleGenAiSdk } from './sdks';

/** What a Gemini failure message names, and how the call ended when it got no answer. */
export interface GeminiCallContext extends ModelCallContext {
  /** The variable the key came from, named when the key is refused. */
  keyVariable: string;
  /** The activity was cancelled (the call's signal aborted by it). */
  aborted?: () => boolean;
  /** The request timeout (`timeout_ms`) fired. */
  timedOut?: () => boolean;
}

/** One entry of Google's `error.details`. */
interface ErrorDetail {
  '@type'?: string;
  retryDelay?: string;
  reason?: string;
  violations?: { quotaId?: string; quotaMetric?: string; quotaValue?: string }[];
}

/** Google's error body. */
interface GoogleError {
  code?: number;
  message?: string;
  status?: string;
  details?: ErrorDetail[];
}

/** The error body the SDK put in an `ApiError`'s message (after `got status: … .` for an error inside a stream). */
export function googleErrorOf(message: string): GoogleError | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(message.slice(start)) as { error?: unknown };
    return typeof body.error === 'object' && body.error !== null ? (body.error as GoogleError) : undefined;
  } catch {
    return undefined;
  }
}

const detail = (e: GoogleError, type: string) => e.details?.find((d) => d['@type']?.endsWith(`google.rpc.${type}`));

/** `RetryInfo.retryDelay` (a protobuf Duration such as `"45.837906927s"`) in ms; undefined when absent. */
export function retryDelayMs(e: GoogleError): number | undefined {
  const raw = detail(e, 'RetryInfo')?.retryDelay;
  const seconds = raw === undefined ? NaN : Number.parseFloat(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

/** The per-day quota a 429 names (a `QuotaFailure` violation whose quota id or metric says `PerDay`). */
function dailyQuota(e: GoogleError) {
  return detail(e, 'QuotaFailure')?.violations?.find((v) => /per_?day/i.test(`${v.quotaId ?? ''} ${v.quotaMetric ?? ''}`));
}

/** How long until midnight Pacific time, when Gemini's per-day quotas reset, as `7 h 12 min`. */
export function untilPacificMidnight(now: Date = new Date()): string {
  const [h, m] = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' })
    .formatToParts(now)
    .filter((p) => p.type === 'hour' || p.type === 'minute')
    .map((p) => Number(p.value));
  const left = 24 * 60 - ((h ?? 0) * 60 + (m ?? 0));
  return `${Math.floor(left / 60)} h ${left % 60} min`;
}

/** Gemini's words for a prompt longer than the window: "The input token count (P) exceeds the maximum number of tokens allowed (W)." */
const GEMINI_CONTEXT_LENGTH = /input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)\)?/i;

/** Google's statuses whose kind the shared HTTP table does not name. */
const GOOGLE_STATUS_KINDS: Record<string, string> = { UNAUTHENTICATED: 'Authentication', DEADLINE_EXCEEDED: 'Timeout', UNAVAILABLE: 'Unavailable', RESOURCE_EXHAUSTED: 'RateLimit' };

/** One line: Google's messages run over several. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function apiFailure(status: number, said: GoogleError | undefined, raw: string, err: unknown, ctx: GeminiCallContext): ApplicationFailure {
  const e = said ?? {};
  const text = oneLine(e.message ?? raw);
  const head = `${describe(ctx)} failed with HTTP ${status}${e.status ? ` (${e.status})` : ''}`;
  if (status === 429) {
    const day = dailyQuota(e);
    if (day) {
      const limit = day.quotaValue ? `, limit ${day.quotaValue}` : '';
      return failure({
        type: 'Gemini.DailyQuota',
        message: `${describe(ctx)} reached its per-day quota (${day.quotaId ?? day.quotaMetric}${limit}), which resets at midnight Pacific time (in about ${untilPacificMidnight()}); raise the quota or use another key (${ctx.keyVariable}) rather than retry`,
        retryable: false,
        cause: err,
      });
    }
  }
  const match = GEMINI_CONTEXT_LENGTH.exec(text);
  if (status === 400 && match) return contextLengthFailure('Gemini', ctx, text, err, { prompt: match[1], window: match[2] });
  // A key Google does not know is a 400 INVALID_ARGUMENT with reason API_KEY_INVALID.
  const keyRefused = status === 401 || status === 403 || detail(e, 'ErrorInfo')?.reason === 'API_KEY_INVALID';
  const kind = keyRefused && status === 400 ? 'Authentication' : ((e.status && GOOGLE_STATUS_KINDS[e.status]) ?? statusKind(status));
  return failure({
    type: `Gemini.${kind}`,
    message: `${head}: ${text}${keyRefused ? `; check the key in ${ctx.keyVariable}` : ''}`,
    retryable: !keyRefused && isRetryableStatus(status),
    cause: err,
    delayMs: retryDelayMs(e),
  });
}

/**
 * Classifies what a Gemini call threw: the SDK's `ApiError` by its status and Google's error
 * body, a call that got no answer (cancelled, timed out, not connected, cut) as retryable.
 *
 * @returns an `ApplicationFailure` of type `Gemini.<Kind>`; an `ApplicationFailure` passes through
 */
export function geminiFailure(err: unknown, ctx: GeminiCallContext): ApplicationFailure {
  // First: a cancelled call's stream may end quietly, as if cut.
  if (ctx.aborted?.()) return failure({ type: 'Gemini.Aborted', message: `${describe(ctx)} call was aborted`, retryable: true, cause: err });
  if (err instanceof ApplicationFailure) return err;
  if (ctx.timedOut?.()) return failure({ type: 'Gemini.Timeout', message: `${describe(ctx)} timed out`, retryable: true, cause: err });
  const { ApiError } = googleGenAiSdk();
  if (err instanceof ApiError && typeof err.status === 'number') return apiFailure(err.status, googleErrorOf(err.message), err.message, err, ctx);
  const message = errorMessage(err);
  // fetch's own failures (`fetch failed`, `terminated`; the SDK rewraps those of another realm) and the SDK's for a body cut inside an event.
  if (isDroppedConnection(err) || /fetch failed|^terminated$|TypeError: terminated|Incomplete JSON segment/.test(message)) {
    return failure({ type: 'Gemini.Connection', message: `${describe(ctx)} could not be reached: ${oneLine(message)}`, retryable: true, cause: err });
  }
  return failure({ type: 'Gemini.Unknown', message: `${describe(ctx)} failed: ${oneLine(message)}`, retryable: true, cause: err });
}
