/**
 * Keys out of model call errors: a provider that refuses a key may quote it back in its error
 * (`Incorrect API key provided: sk-…`), and an error's message travels into the run's history,
 * its memory, its stream, `perflow status` and the webhook of its end. Every message and stack of
 * the error's cause chain has the key values the call could have used replaced.
 */
import type { ModelSettings } from '../../core/activity-contract';
import type { ProviderConfig } from '../../core/provider-config';

/** The worker variables a provider's key is read from when a model names none (`api_key_env`). */
const KEY_VARIABLES = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK'];

/** Shorter values are not keys, and replacing them would mangle ordinary words. */
const MIN_KEY_CHARS = 8;

export const REDACTED = '[redacted]';

/** The key values a call of `model` could have sent, read where the adapters read them. */
export function keyValues(model: Pick<ModelSettings, 'api_key_env'>, providers: Pick<ProviderConfig, 'secret'>): string[] {
  const names = [...(model.api_key_env ? [model.api_key_env] : []), ...KEY_VARIABLES];
  return [...new Set(names.map((n) => providers.secret(n)?.trim() ?? '').filter((v) => v.length >= MIN_KEY_CHARS))];
}

/** Replaces every key value in the error's messages and stacks, down its cause chain; returns the same error. */
export function redactKeys<E>(err: E, keys: readonly string[]): E {
  if (keys.length === 0) return err;
  const clean = (text: string) => keys.reduce((t, k) => t.split(k).join(REDACTED), text);
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e) && seen.size < 20; e = e.cause) {
    seen.add(e);
    if (typeof e.message === 'string') e.message = clean(e.message);
    if (typeof e.stack === 'string') e.stack = clean(e.stack);
  }
  return err;
}
