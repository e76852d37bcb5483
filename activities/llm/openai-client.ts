/**
 * The `openai` SDK clients the OpenAI interfaces share (Chat Completions and Responses): the
 * variables they read, the key a local server does without, and one client per setting.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ProviderConfig } from '../../core/provider-config';
import { clientCache, type ClientCache } from './client-cache';
import { openAiSdk } from './sdks';

/** The worker variable naming its OpenAI-compatible server (the operator's endpoint); a model's `base_url` wins. */
export const OPENAI_BASE_URL = 'OPENAI_BASE_URL';

/** The worker variable holding the OpenAI key; a model's `api_key_env` names another. */
export const OPENAI_API_KEY = 'OPENAI_API_KEY';

/** The SDK's key for a local server when none is configured: the SDK requires one, local servers ignore it. */
export const NO_KEY = 'no-key';

/** What an OpenAI interface reads to pick its client (a structural subset of `ModelSettings`). */
export interface OpenAiEndpointSettings {
  /** API base URL, with `/v1`. @default the worker's OPENAI_BASE_URL, else the SDK's `https://api.openai.com/v1` */
  base_url?: string;
  /** The worker environment variable holding the API key. @default OPENAI_API_KEY */
  api_key_env?: string;
}

/** An OpenAI interface's clients: the worker's provider settings and one SDK client per key and endpoint. */
export interface OpenAiClients {
  providers: ProviderConfig;
  cache: ClientCache<{ apiKey: string; baseURL?: string }, OpenAI>;
}

/** The clients of one adapter for a worker; the SDK's own retries are off, so Temporal's retry policy is the only one. */
export function openAiClients(providers: ProviderConfig): OpenAiClients {
  return { providers, cache: clientCache((s) => new (openAiSdk().OpenAI)({ ...s, maxRetries: 0 })) };
}

/**
 * Whether a URL's host is this machine or a private network's (`localhost`, 127/8, ::1, 10/8,
 * 172.16/12, 192.168/16, fc00::/7, link-local, `*.local`, `*.internal`, a name without a dot such
 * as a Compose service's): where a model server (Ollama, vLLM, LM Studio, llama.cpp) may want no key.
 */
export function isLocalEndpoint(url: string | undefined): boolean {
  let host: string;
  try {
    host = new URL(url ?? '').hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || /\.(localhost|local|internal)$/.test(host) || /^[a-z0-9-]+$/.test(host)) return true;
  if (host === '::1' || /^(f[cd][0-9a-f]{2}|fe80):/.test(host)) return true;
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (!v4) return false;
  const [a, b] = [Number(v4[1]), Number(v4[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/** The variable a model's key is read from: its `api_key_env`, else OPENAI_API_KEY. */
export function openAiKeyVariable(model: OpenAiEndpointSettings): string {
  return model.api_key_env ?? OPENAI_API_KEY;
}

/**
 * An OpenAI (or compatible) client for the model's key variable; fails non-retryably when it is
 * not set, unless the endpoint is local and the agent file names no key variable: then the SDK
 * gets {@link NO_KEY} (a placeholder, never a key of another variable). A remote endpoint without a
 * key is a mistake best said before the call than as the server's 401.
 *
 * @throws ApplicationFailure `OpenAI.Configuration` (non-retryable) when the key variable is not set for a remote endpoint
 */
export function openAiClientFor({ providers, cache }: OpenAiClients, model: OpenAiEndpointSettings): OpenAI {
  const apiKeyEnv = openAiKeyVariable(model);
  const baseURL = model.base_url ?? providers.setting(OPENAI_BASE_URL);
  const apiKey = providers.secret(apiKeyEnv) || (model.api_key_env === undefined && isLocalEndpoint(baseURL) ? NO_KEY : undefined);
  if (!apiKey) throw ApplicationFailure.nonRetryable(`${apiKeyEnv} is not set in the worker's environment`, 'OpenAI.Configuration');
  // Keyed by the key's value too: a rotated key gets a new client.
  return cache.get({ apiKey, baseURL });
}
