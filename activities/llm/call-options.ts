/**
 * Settings shared by the provider calls: the request timeout, reads of the providers'
 * `llm.parameters` (perflow's own are typed in core/agent-file/model-parameters.ts), and the
 * activity's cancellation signal.
 */
import { Context } from '@temporalio/activity';
import { isPerflowModelParameter, perflowModelParameters } from '../../core/agent-file/model-parameters';
import { toNumber } from '../../core/agent-file/coerce';

/** Receives the answer text of a streamed model call, piece by piece, as the provider produces it. */
export type OnDelta = (text: string) => void;

/** Request timeout when `parameters.timeout_ms` is not set. @default 120000 (120 s) */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** `parameters[key]` when it is a finite number (numeric strings accepted), else `undefined`. */
export function numberParam(parameters: Record<string, unknown> | undefined, key: string): number | undefined {
  const n = toNumber(parameters?.[key]);
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Those of `keys` that are finite numbers in `parameters` (see {@link numberParam}), by key. */
export function numberParams(parameters: Record<string, unknown> | undefined, keys: readonly string[]): Record<string, number> {
  return Object.fromEntries(keys.flatMap((key) => {
    const n = numberParam(parameters, key);
    return n === undefined ? [] : [[key, n] as const];
  }));
}

/** Stop sequences from `parameters.stop` / `parameters.stop_sequences` (a string or a string array). */
export function stopParam(parameters: Record<string, unknown> | undefined): string[] | undefined {
  const v = parameters?.stop ?? parameters?.stop_sequences;
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  return undefined;
}

/**
 * The `llm.parameters` an adapter does not map itself, to pass to the provider as they are
 * (OpenAI: in the request body; Bedrock: `additionalModelRequestFields`), so none is dropped
 * silently; `undefined` when there are none.
 */
export function otherParameters(parameters: Record<string, unknown> | undefined, mapped: readonly string[]): Record<string, unknown> | undefined {
  const rest = Object.entries(parameters ?? {}).filter(([key, v]) => v !== undefined && !mapped.includes(key) && !isPerflowModelParameter(key));
  return rest.length > 0 ? Object.fromEntries(rest) : undefined;
}

/** The request timeout in ms: `parameters.timeout_ms`, else {@link DEFAULT_TIMEOUT_MS}. */
export function timeoutMs(parameters: Record<string, unknown> | undefined): number {
  return perflowModelParameters(parameters).timeout_ms ?? DEFAULT_TIMEOUT_MS;
}

/** The running activity's cancellation signal; `undefined` outside an activity (unit tests). */
export function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
