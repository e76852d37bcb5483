/**
 * What the model adapters need from the worker's environment: read by config/env.ts, handed to
 * the activities' SDK clients by the worker.
 */
export interface ProviderConfig {
  /** Reads a secret by variable name (the OpenAI key: OPENAI_API_KEY or a model's `api_key_env`). Never stored. */
  secret(name: string): string | undefined;
  /** OPENAI_BASE_URL: any OpenAI-compatible server; a model's `base_url` wins. */
  readonly openaiBaseUrl?: string;
  /** PERFLOW_BEDROCK_ENDPOINT: a Bedrock runtime endpoint override; a model's `base_url` wins. */
  readonly bedrockEndpoint?: string;
  /** AWS_REGION; a model's `region` wins. The rest of the AWS credential chain is the SDK's. */
  readonly awsRegion?: string;
}
