/**
 * Settings shared by the provider calls: the request timeout, typed reads of
 * `llm.parameters`, and the activity's cancellation signal.
 */
import { Context } from '@temporalio/activity';

/** Receives the answer text of a streamed model call, piece by piece, as the provider produces it. */
export type OnDelta = (text: string) => void;

/** Request timeout when `parameters.timeout_ms` is not set. @default 120000 (120 s) */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** `parameters[key]` when it is a finite number (numeric strings accepted), else `undefined`. */
export function numberParam(parameters: Record<string, unknown> | undefined, key: string): number | undefined {
  const v = parameters?.[key];
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** `parameters[key]` as a boolean (`"true"`/`"false"` accepted), else `undefined`. */
export function booleanParam(parameters: Record<string, unknown> | undefined, key: string): boolean | undefined {
  const v = parameters?.[key];
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  return undefined;
}

/** Stop sequences from `parameters.stop` / `parameters.stop_sequences` (a string or a string array). */
export function stopParam(parameters: Record<string, unknown> | undefined): string[] | undefined {
  const v = parameters?.stop ?? parameters?.stop_sequences;
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  return undefined;
}

/** `llm.parameters` that are perflow's own settings, never sent to a provider (`stream`, `stream_chunk_chars`: whether and how answers stream). */
const PERFLOW_PARAMETERS = ['timeout_ms', 'latency_ms', 'parallel_tool_calls', 'stream', 'stream_chunk_chars'];

/**
 * The `llm.parameters` an adapter does not map itself, to pass to the provider as they are
 * (OpenAI: in the request body; Bedrock: `additionalModelRequestFields`), so none is dropped
 * silently; `undefined` when there are none.
 */
export function otherParameters(parameters: Record<string, unknown> | undefined, mapped: readonly string[]): Record<string, unknown> | undefined {
  const rest = Object.entries(parameters ?? {}).filter(([key, v]) => v !== undefined && !mapped.includes(key) && !PERFLOW_PARAMETERS.includes(key));
  return rest.length > 0 ? Object.fromEntries(rest) : undefined;
}

/** The request timeout in ms: `parameters.timeout_ms`, else {@link DEFAULT_TIMEOUT_MS}. */
export function timeoutMs(parameters: Record<string, unknown> | undefined): number {
  const t = numberParam(parameters, 'timeout_ms');
  return t !== undefined && t > 0 ? t : DEFAULT_TIMEOUT_MS;
}

/** The running activity's cancellation signal; `undefined` outside an activity (unit tests). */
export function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
