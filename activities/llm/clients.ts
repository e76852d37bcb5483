/**
 * The model providers' SDK clients, built once per setting by the worker and handed to the
 * activities (`createActivities({ llm })`), so no activity reads the environment and a worker
 * reuses its connections across calls. SDK-internal retries are off: Temporal's retry policy
 * is the only one.
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import type { ProviderConfig } from '../../core/provider-config';

export interface LlmClients {
  /** An OpenAI (or compatible) client for the key in `apiKeyEnv`; fails non-retryably when the variable is not set. */
  openai(o: { apiKeyEnv: string; baseURL?: string }): OpenAI;
  /** A Bedrock runtime client for the region and endpoint (the providers' defaults when absent). */
  bedrock(o: { region?: string; endpoint?: string; requestTimeoutMs: number }): BedrockRuntimeClient;
  /** Releases the clients' connections (worker shutdown). */
  close(): void;
}

export function createLlmClients(providers: ProviderConfig): LlmClients {
  const openai = new Map<string, OpenAI>();
  const bedrock = new Map<string, BedrockRuntimeClient>();
  return {
    openai({ apiKeyEnv, baseURL }) {
      const apiKey = providers.secret(apiKeyEnv);
      if (!apiKey) throw ApplicationFailure.nonRetryable(`${apiKeyEnv} is not set in the worker's environment`, 'OpenAI.Configuration');
      const url = baseURL ?? providers.openaiBaseUrl;
      // Keyed by the key's value too: a rotated key gets a new client.
      const key = JSON.stringify([apiKey, url ?? null]);
      let client = openai.get(key);
      if (!client) {
        client = new OpenAI({ apiKey, baseURL: url, maxRetries: 0 });
        openai.set(key, client);
      }
      return client;
    },
    bedrock({ region, endpoint, requestTimeoutMs }) {
      const r = region ?? providers.awsRegion;
      const e = endpoint ?? providers.bedrockEndpoint;
      const key = JSON.stringify([r ?? null, e ?? null, requestTimeoutMs]);
      let client = bedrock.get(key);
      if (!client) {
        client = new BedrockRuntimeClient({ maxAttempts: 1, ...(r ? { region: r } : {}), ...(e ? { endpoint: e } : {}), requestHandler: { requestTimeout: requestTimeoutMs } });
        bedrock.set(key, client);
      }
      return client;
    },
    close() {
      for (const c of bedrock.values()) c.destroy();
      bedrock.clear();
      openai.clear();
    },
  };
}
