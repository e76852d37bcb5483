/**
 * The Gemini API's wire protocol for the local wire server: `generateContent` answers, the
 * server-sent events of `streamGenerateContent?alt=sse` (each event `data: <a whole
 * GenerateContentResponse>` and a blank line, no `event:` line) and Google's JSON errors.
 */
import { randomUUID } from 'node:crypto';
import type { WireReply, WireStream } from './wire-server';

/** [prompt tokens (cached included), answer tokens, of the prompt's those cached, thought tokens]. */
export type GeminiUsage = [number, number, number?, number?];

/** What one Gemini answer holds: thought pieces, answer text pieces, then function calls. */
export interface GeminiAnswer {
  thoughts?: string[];
  text?: string[];
  /** Function calls, whole (Gemini never streams their arguments); without `id` as Gemini often sends them. */
  calls?: { id?: string; name: string; args: Record<string, unknown>; thoughtSignature?: string }[];
  /** The signature on the last answer text part. */
  textSignature?: string;
  /** @default STOP; streamed, `null` ends the stream without one. */
  finishReason?: string | null;
  usage?: GeminiUsage;
  model?: string;
  /** Fields of the first candidate besides its content (safetyRatings, finishMessage, …). */
  candidate?: Record<string, unknown>;
  /** Top-level fields (promptFeedback, …). */
  extra?: Record<string, unknown>;
}

function usageMetadata([prompt, answer, cached, thoughts]: GeminiUsage = [10, 5]) {
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: answer,
    ...(cached !== undefined ? { cachedContentTokenCount: cached } : {}),
    ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + answer + (thoughts ?? 0),
  };
}

/** The answer's parts, one per piece (streamed) or one per kind (whole). */
function partsOf(a: GeminiAnswer, pieces: boolean): Record<string, unknown>[][] {
  const texts = (list: string[] | undefined, thought: boolean) => {
    if (!list?.length) return [];
    const split = pieces ? list : [list.join('')];
    return split.map((text, i) => ({ text, ...(thought ? { thought: true } : {}), ...(!thought && a.textSignature && i === split.length - 1 ? { thoughtSignature: a.textSignature } : {}) }));
  };
  const calls = (a.calls ?? []).map((c) => ({
    functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: c.args },
    ...(c.thoughtSignature ? { thoughtSignature: c.thoughtSignature } : {}),
  }));
  // Streamed, each piece is its own chunk; the calls come together in one.
  return [...texts(a.thoughts, true).map((p) => [p]), ...texts(a.text, false).map((p) => [p]), ...(calls.length ? [calls] : [])];
}

const head = (a: GeminiAnswer) => ({ modelVersion: a.model ?? 'gemini-2.5-flash', responseId: randomUUID().slice(0, 12) });

/** A `generateContent` reply. */
export function geminiResponse(a: GeminiAnswer): WireReply {
  const parts = partsOf(a, false).flat();
  return {
    body: {
      candidates: [{ content: { role: 'model', parts }, finishReason: a.finishReason ?? 'STOP', index: 0, ...a.candidate }],
      usageMetadata: usageMetadata(a.usage),
      ...head(a),
      ...a.extra,
    },
  };
}

/** One server-sent event as Gemini frames it. */
export const geminiEvent = (data: unknown): string => `data: ${JSON.stringify(data)}\r\n\r\n`;

/**
 * A `streamGenerateContent?alt=sse` reply: a chunk per text piece, the calls in one chunk, each
 * chunk with the running usage (the prompt's count), the last also with the finish reason and
 * the whole usage. `finishReason: null` ends the stream without one.
 */
export function streamedGeminiResponse(a: GeminiAnswer, o: { delayMs?: number; cutAfter?: number } = {}): WireStream {
  const whole = usageMetadata(a.usage);
  const groups = partsOf(a, true);
  const chunks = (groups.length > 0 ? groups : [[]]).map((parts, i, all) => {
    const last = i === all.length - 1;
    const finish = last && a.finishReason !== null ? { finishReason: a.finishReason ?? 'STOP', ...a.candidate } : {};
    const usage = last ? whole : { promptTokenCount: whole.promptTokenCount, totalTokenCount: whole.promptTokenCount };
    return { candidates: [{ content: { role: 'model', parts }, index: 0, ...finish }], usageMetadata: usage, ...head(a), ...(last ? a.extra : {}) };
  });
  return { headers: { 'content-type': 'text/event-stream' }, parts: chunks.map(geminiEvent), ...o };
}

/** A Google API error reply: `{"error": {code, message, status, details}}`. */
export function googleError(code: number, status: string, message: string, details: unknown[] = []): WireReply {
  return { status: code, body: { error: { code, message, status, ...(details.length ? { details } : {}) } } };
}

/** A `google.rpc.RetryInfo` detail: how long to wait, as a protobuf Duration (`"1.5s"`). */
export const retryInfo = (retryDelay: string) => ({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay });

/** A `google.rpc.QuotaFailure` detail naming one quota. */
export const quotaFailure = (quotaId: string, quotaValue = '200') => ({
  '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
  violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId, quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' }, quotaValue }],
});
