/**
 * A Gemini answer in perflow's terms: a streamed answer assembled into the response the plain
 * call returns, its tool calls with ids (Gemini often gives none), its usage, the turn's parts
 * carried to the next turn (thought signatures), and the answers no attempt gets past (blocked
 * for safety) as failures.
 */
import { randomBytes } from 'node:crypto';
import type { Candidate, GenerateContentResponse, GenerateContentResponseUsageMetadata, Part } from '@google/genai';
import type { ChatResponse, ToolCall, Usage } from '../../core/llm-types';
import { describe, failure, streamCutFailure, type ModelCallContext } from './errors';
import type { OnDelta } from './call-options';

/** The raw response an answer is read from: the API's JSON (the SDK's own fields left out). */
export type GeminiResponse = Pick<GenerateContentResponse, 'candidates' | 'promptFeedback' | 'usageMetadata' | 'modelVersion' | 'responseId'>;

/** What a turn that calls tools carries to the step's next turn: its parts as received, thought signatures and thought parts included. */
export interface GeminiCarry {
  parts: Part[];
}

/**
 * Where an id perflow made up begins: a call Gemini gave no `functionCall.id` is answered by
 * name and order, without an id, and the id tells the adapter so.
 */
export const SYNTHESIZED_ID_PREFIX = 'perflow_call_';

/** Whether a tool call's id was made up here (Gemini gave the call none). */
export const isSynthesizedId = (id: string): boolean => id.startsWith(SYNTHESIZED_ID_PREFIX);

/** Finish reasons of an answer withheld for what it says: no attempt gets past them. */
const BLOCKED = new Set(['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY']);
/** Finish reasons of a tool call the model got wrong: another sample may get it right. */
const BAD_CALL = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

/** Whether two parts are pieces of one text: both text of the same kind, the first without a signature (a signature closes a run). */
function continues(last: Part | undefined, next: Part): boolean {
  if (!last || typeof last.text !== 'string' || typeof next.text !== 'string' || last.thoughtSignature) return false;
  const plain = (p: Part) => Object.keys(p).every((k) => k === 'text' || k === 'thought' || k === 'thoughtSignature');
  return plain(last) && plain(next) && (last.thought === true) === (next.thought === true);
}

/** Parts with the pieces of each text joined, as the plain call answers them (the response filter reads its first answer text part). */
export function joinedParts(parts: readonly Part[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (last && continues(last, part)) {
      last.text = `${last.text ?? ''}${part.text ?? ''}`;
      if (part.thoughtSignature) last.thoughtSignature = part.thoughtSignature;
    } else {
      out.push({ ...part });
    }
  }
  return out;
}

/** A chunk's own fields, without the SDK's (`sdkHttpResponse`) and its getters. */
function apiFields(chunk: GenerateContentResponse): GeminiResponse {
  const { candidates, promptFeedback, usageMetadata, modelVersion, responseId } = chunk;
  return Object.fromEntries(Object.entries({ candidates, promptFeedback, usageMetadata, modelVersion, responseId }).filter(([, v]) => v !== undefined));
}

/**
 * Reads a streamed answer, handing each answer text piece (never a thought's) to `onDelta` as it
 * arrives. Returns the chunks assembled as the plain call answers (the first candidate's parts
 * in order, its finish reason, the last usage: Gemini's counts are running totals) and the parts
 * exactly as received, for the carry.
 *
 * @throws ApplicationFailure `Gemini.Connection` (retryable) when the stream ends without a finish reason or a blocked prompt
 */
export async function readStream(stream: AsyncIterable<GenerateContentResponse>, onDelta: OnDelta, ctx: ModelCallContext): Promise<{ response: GeminiResponse; received: Part[] }> {
  const received: Part[] = [];
  let head: GeminiResponse = {};
  let candidate: Candidate | undefined;
  for await (const chunk of stream) {
    const { candidates, ...rest } = apiFields(chunk);
    head = { ...head, ...rest };
    const c = candidates?.[0];
    if (!c) continue;
    const { content, ...fields } = c;
    candidate = { ...candidate, ...fields };
    for (const part of content?.parts ?? []) {
      received.push(part);
      if (typeof part.text === 'string' && part.text !== '' && part.thought !== true) onDelta(part.text);
    }
  }
  // A blocked prompt ends with promptFeedback and no candidate; any other answer with a finish reason.
  if (!candidate?.finishReason && !head.promptFeedback?.blockReason) throw streamCutFailure('Gemini', ctx);
  const response: GeminiResponse = { ...head };
  if (candidate) response.candidates = [{ ...candidate, content: { role: 'model', parts: joinedParts(received) }, index: candidate.index ?? 0 }];
  return { response, received };
}

/**
 * Fails an answer that has none: a prompt or answer blocked for safety (non-retryable, naming
 * the reason and the categories rated likely), a tool call the model got wrong (retryable).
 */
export function checkAnswer(response: GeminiResponse, ctx: ModelCallContext): void {
  const blocked = response.promptFeedback?.blockReason;
  if (blocked) {
    const why = response.promptFeedback?.blockReasonMessage ? `: ${response.promptFeedback.blockReasonMessage}` : '';
    throw failure({ type: 'Gemini.Blocked', message: `${describe(ctx)} refused the prompt (blockReason ${blocked}${why}); change what the run asks`, retryable: false, cause: undefined });
  }
  const candidate = response.candidates?.[0];
  const reason = candidate?.finishReason;
  if (reason && BLOCKED.has(reason)) {
    const rated = (candidate.safetyRatings ?? []).filter((r) => r.blocked || r.probability === 'HIGH' || r.probability === 'MEDIUM').map((r) => `${r.category} ${r.probability}`);
    const categories = rated.length > 0 ? `; ${rated.join(', ')}` : '';
    throw failure({ type: 'Gemini.Blocked', message: `${describe(ctx)} withheld its answer (finishReason ${reason}${categories}); change what the run asks`, retryable: false, cause: undefined });
  }
  if (reason && BAD_CALL.has(reason)) {
    const said = candidate.finishMessage ? `: ${candidate.finishMessage.replace(/\s+/g, ' ')}` : '';
    throw failure({ type: 'Gemini.MalformedFunctionCall', message: `${describe(ctx)} answered with a tool call it could not make (finishReason ${reason}${said})`, retryable: true, cause: undefined });
  }
}

/**
 * A response's usage in perflow's terms: `input_tokens` is the prompt (which includes the cached
 * content, counted again in `cached_input_tokens`, as OpenAI's) and the tool-use prompt;
 * `output_tokens` the answer and the thoughts (billed as output). Gemini leaves out counts of 0;
 * a response without usage has unknown tokens.
 */
export function geminiUsage(usage: GenerateContentResponseUsageMetadata | undefined): Usage {
  const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const cached = n(usage?.cachedContentTokenCount);
  return {
    input_tokens: n(usage?.promptTokenCount) + n(usage?.toolUsePromptTokenCount),
    output_tokens: n(usage?.candidatesTokenCount) + n(usage?.thoughtsTokenCount),
    ...(cached > 0 ? { cached_input_tokens: cached } : {}),
    ...(usage === undefined ? { tokens_unknown: true as const } : {}),
  };
}

function asInput(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * The answer in perflow's terms. A call without `functionCall.id` gets one made up (a random
 * part: a retried attempt's calls are other calls), its result later sent by name and order.
 * A turn that calls tools carries its parts as received (`received`, else the response's).
 */
export function toChatResponse(response: GeminiResponse, received?: Part[]): Omit<ChatResponse, 'usage'> & { carry?: GeminiCarry } {
  const candidate = response.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const turn = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');
  const toolCalls: ToolCall[] = parts.flatMap((p) => (p.functionCall ? [p.functionCall] : [])).map((c, i) => ({
    id: c.id || `${SYNTHESIZED_ID_PREFIX}${turn}_${i + 1}`,
    name: c.name ?? '',
    input: asInput(c.args),
  }));
  const content = parts.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => p.text).join('');
  const reason = candidate?.finishReason;
  return {
    content,
    tool_calls: toolCalls,
    stop_reason: toolCalls.length > 0 ? 'tool_use' : reason === 'STOP' ? 'end_turn' : reason === 'MAX_TOKENS' ? 'max_tokens' : 'other',
    ...(toolCalls.length > 0 ? { carry: { parts: received ?? parts } } : {}),
  };
}
