/**
 * What the model adapters need from the worker's environment: read by config/env.ts, handed to
 * the adapters by the worker. Each adapter names the variables it reads (OPENAI_BASE_URL,
 * AWS_REGION, …), so a provider of its own reads its settings without a change here.
 */
export interface ProviderConfig {
  /** Reads a secret by variable name (the OpenAI key: OPENAI_API_KEY or a model's `api_key_env`). Never stored. */
  secret(name: string): string | undefined;
  /** Reads a provider setting by variable name (OPENAI_BASE_URL, PERFLOW_BEDROCK_ENDPOINT, AWS_REGION); unset or empty: undefined. */
  setting(name: string): string | undefined;
}
