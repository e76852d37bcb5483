/**
 * Every environment variable perflow reads (but the server bootstrap's, in servers/), with its
 * default and validation: the worker's and the client's settings, memory collection names,
 * model providers' settings. Nothing else reads `process.env`; activities get what they need
 * from the worker, and the model adapters read the provider variables they name (OPENAI_BASE_URL,
 * AWS_REGION, …) through providerConfigFromEnv. The Temporal connection (TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE…)
 * is read the Temporal way, by `@temporalio/envconfig` (config/temporal-connection.ts), handed
 * this environment.
 * Traces and metrics (OTEL_*, PERFLOW_METRICS_*) are read by config/telemetry.ts; the worker
 * policy and the operator's endpoints and prices by config/operator-env.ts, the encryption keys
 * by config/encryption-env.ts (both re-exported here).
 */
import type { EncryptionKeyring } from '../core/encryption-keyring';
import { DEFAULT_COLLECTIONS, type MemoryCollections } from '../core/memory-collections';
import type { ProviderConfig } from '../core/provider-config';
import { describePolicy, type OperatorEndpoints, type WorkerPolicy } from '../core/worker-policy';
import { LIMITS_VARIABLE, parameterLimits, type ParameterLimits } from '../core/agent-file/limits';
import { parseNamedAgentTypes } from '../core/agent-file/known-agent-types';
import type { ModelPrice } from '../core/agent-file/model';
import type { AgentTypeSpec } from '../core/agent-file/agent-types';
import { redact } from './redact';
import { encryptionKeysFromEnv, parseEncryptionKeys, withEncryption } from './encryption-env';

export { encryptionKeysFromEnv, parseEncryptionKeys };
import { commaList, declaresWorkerPolicy, modelPricesFromEnv, operatorEndpointsFromEnv, workerPolicyFromEnv } from './operator-env';

export { declaresWorkerPolicy, modelPricesFromEnv, operatorEndpointsFromEnv, workerPolicyFromEnv };
import { telemetryConfigFromEnv, type TelemetryConfig } from './telemetry';
import { describeTemporalConnection, temporalSettingsFromEnv, usesTls, type TemporalConnectionSettings } from './temporal-connection';

export { redact, redactUrls } from './redact';

export type { ProviderConfig, EncryptionKeyring, TemporalConnectionSettings };

export const DEFAULTS = {
  TEMPORAL_ADDRESS: 'localhost:7233',
  TEMPORAL_NAMESPACE: 'default',
  PERFLOW_TASK_QUEUE: 'perflow',
  MONGODB_URI: 'mongodb://localhost:27017/perflow',
  PERFLOW_TEMPORAL_UI_URL: 'http://localhost:8233',
} as const;


export interface PerflowWorkerConfig {
  temporalAddress: string;
  namespace: string;
  /** TLS, mTLS, API key and gRPC metadata of the Temporal connection. @default plaintext */
  temporal?: TemporalConnectionSettings;
  taskQueue: string;
  mongoUri: string;
  /** Database for memory and the MongoDB tools: the URI's path, `perflow` when it has none. */
  database: string;
  /** LLM activities on their own task queue, rate-limited fleet-wide (PERFLOW_LLM_*). */
  llm?: LlmQueueConfig;
  /** Memory collection names (PERFLOW_MEMORIES_COLLECTION, PERFLOW_INTERACTIONS_COLLECTION, PERFLOW_PROMPTS_COLLECTION, PERFLOW_EVENTS_COLLECTION, PERFLOW_EVALS_COLLECTION). @default DEFAULT_COLLECTIONS */
  collections?: MemoryCollections;
  /** Model providers' settings and secrets. @default from the worker process's environment */
  providers?: ProviderConfig;
  /** What agent files may make the worker do (core/worker-policy.ts). @default PERFLOW_ALLOW_* of the worker process's environment: nothing unless they allow it */
  policy?: WorkerPolicy;
  /** Encrypt every payload with these keys (PERFLOW_ENCRYPTION_KEYS). @default off: payloads in plain JSON */
  encryption?: EncryptionKeyring;
  /** Traces (OTEL_EXPORTER_OTLP_*) and metrics (PERFLOW_METRICS_*), see config/telemetry.ts. @default off */
  telemetry?: TelemetryConfig;
  /** The operator's model prices, by model name, over the price table's (PERFLOW_MODEL_PRICES). @default none */
  modelPrices?: Record<string, ModelPrice>;
  /**
   * The Worker Deployment version this worker belongs to (PERFLOW_DEPLOYMENT and
   * PERFLOW_BUILD_ID): its runs are pinned to it, and move to the deployment's current version
   * at a step boundary once it changes. @default unversioned: any worker of the task queue takes any run
   */
  deployment?: WorkerDeploymentVersionConfig;
}

export interface WorkerDeploymentVersionConfig {
  name: string;
  buildId: string;
}

export interface LlmQueueConfig {
  taskQueue: string;
  /** Activities per second across every worker of the queue (`maxTaskQueueActivitiesPerSecond`). */
  ratePerSecond?: number;
  /** LLM calls at once on this worker (`maxConcurrentActivityTaskExecutions`). */
  concurrency?: number;
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, integer: boolean): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`${name}="${raw}" must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return n;
}

/** PERFLOW_LLM_TASK_QUEUE, PERFLOW_LLM_RATE_LIMIT, PERFLOW_LLM_CONCURRENCY; undefined without a queue. */
export function llmQueueConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmQueueConfig | undefined {
  const taskQueue = env.PERFLOW_LLM_TASK_QUEUE?.trim();
  const ratePerSecond = positiveNumber(env, 'PERFLOW_LLM_RATE_LIMIT', false);
  const concurrency = positiveNumber(env, 'PERFLOW_LLM_CONCURRENCY', true);
  if (!taskQueue) {
    if (ratePerSecond !== undefined || concurrency !== undefined) {
      throw new Error('PERFLOW_LLM_RATE_LIMIT and PERFLOW_LLM_CONCURRENCY need PERFLOW_LLM_TASK_QUEUE (the queue they limit)');
    }
    return undefined;
  }
  return { taskQueue, ...(ratePerSecond !== undefined ? { ratePerSecond } : {}), ...(concurrency !== undefined ? { concurrency } : {}) };
}

export const DEFAULT_TASK_QUEUE = DEFAULTS.PERFLOW_TASK_QUEUE;

/** The database named in a MongoDB URI's path, or `fallback`. */
export function databaseFromUri(uri: string, fallback = 'perflow'): string {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(uri);
  const name = m?.[1] ? decodeURIComponent(m[1]) : '';
  return name === '' ? fallback : name;
}

export function workerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PerflowWorkerConfig {
  const mongoUri = mongoUriFromEnv(env);
  return {
    ...temporalFromEnv(env),
    taskQueue: env.PERFLOW_TASK_QUEUE || DEFAULTS.PERFLOW_TASK_QUEUE,
    mongoUri,
    database: databaseFromUri(mongoUri),
    llm: llmQueueConfigFromEnv(env),
    collections: memoryCollectionsFromEnv(env),
    providers: providerConfigFromEnv(env),
    policy: workerPolicyFromEnv(env),
    ...withEncryption(env),
    telemetry: telemetryConfigFromEnv(env, 'worker'),
    modelPrices: modelPricesFromEnv(env),
    ...deploymentFromEnv(env),
  };
}

/** PERFLOW_DEPLOYMENT and PERFLOW_BUILD_ID, both or neither (a one-line error naming the one missing). */
export function deploymentFromEnv(env: NodeJS.ProcessEnv): { deployment?: WorkerDeploymentVersionConfig } {
  const name = env.PERFLOW_DEPLOYMENT?.trim() || undefined;
  const buildId = env.PERFLOW_BUILD_ID?.trim() || undefined;
  if (name === undefined && buildId === undefined) return {};
  if (name === undefined || buildId === undefined) {
    throw new Error(`${name === undefined ? 'PERFLOW_BUILD_ID is set without PERFLOW_DEPLOYMENT' : 'PERFLOW_DEPLOYMENT is set without PERFLOW_BUILD_ID'}: a versioned worker needs both (its Worker Deployment and its build), an unversioned one neither`);
  }
  return { deployment: { name, buildId } };
}




/** The servers the environment names; servers/ starts its own where one is not named. */
export interface NamedServers {
  /** TEMPORAL_ADDRESS, when set. */
  temporalAddress?: string;
  /** TEMPORAL_NAMESPACE. @default 'default' */
  namespace: string;
  /** MONGODB_URI, when set. */
  mongoUri?: string;
}

/** TEMPORAL_ADDRESS and MONGODB_URI as set (no defaults: an unset one means "start one"), and the namespace. */
export function namedServersFromEnv(env: NodeJS.ProcessEnv = process.env): NamedServers {
  return {
    ...(env.TEMPORAL_ADDRESS ? { temporalAddress: env.TEMPORAL_ADDRESS } : {}),
    namespace: env.TEMPORAL_NAMESPACE ?? DEFAULTS.TEMPORAL_NAMESPACE,
    ...(env.MONGODB_URI ? { mongoUri: env.MONGODB_URI } : {}),
  };
}

/** The config for logs, with the MongoDB password redacted. */
export function describeWorkerConfig(c: PerflowWorkerConfig): string {
  const llm = c.llm
    ? `; LLM calls on task queue ${c.llm.taskQueue}${c.llm.ratePerSecond ? ` at most ${c.llm.ratePerSecond}/s fleet-wide` : ''}${c.llm.concurrency ? `, ${c.llm.concurrency} at once here` : ''}`
    : '';
  const encryption = c.encryption ? `; payloads encrypted with key "${c.encryption.currentKeyId}"${c.encryption.keys.size > 1 ? ` (${c.encryption.keys.size - 1} older key${c.encryption.keys.size > 2 ? 's' : ''} for decrypting)` : ''}` : '';
  const connection = usesTls(c.temporal) || c.temporal?.apiKey ? ` (${describeTemporalConnection(c.temporal)})` : '';
  const policy = `; ${describePolicy(c.policy ?? workerPolicyFromEnv())}`;
  const deployment = c.deployment ? ` (Worker Deployment ${c.deployment.name}, build ${c.deployment.buildId})` : '';
  return `Temporal ${c.temporalAddress}${connection} namespace ${c.namespace}, task queue ${c.taskQueue}${deployment}; MongoDB ${redact(c.mongoUri)} database ${c.database}${llm}${encryption}${policy}`;
}


/** MONGODB_URI: the database named in it holds perflow's memory. */
export function mongoUriFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.MONGODB_URI || DEFAULTS.MONGODB_URI;
}

/**
 * Memory collection names from the environment (PERFLOW_MEMORIES_COLLECTION,
 * PERFLOW_INTERACTIONS_COLLECTION, PERFLOW_PROMPTS_COLLECTION, PERFLOW_EVENTS_COLLECTION, PERFLOW_EVALS_COLLECTION), defaulting to {@link DEFAULT_COLLECTIONS}.
 */
export function memoryCollectionsFromEnv(env: NodeJS.ProcessEnv = process.env): MemoryCollections {
  const name = (variable: string, fallback: string): string => {
    const value = env[variable]?.trim() || fallback;
    if (!/^[A-Za-z_][A-Za-z0-9_.-]{0,119}$/.test(value) || value.startsWith('system.')) {
      throw new Error(`${variable}="${value}" is not a usable collection name: use letters, digits, "_", "-" or "." (not starting with "system.")`);
    }
    return value;
  };
  const collections = {
    memories: name('PERFLOW_MEMORIES_COLLECTION', DEFAULT_COLLECTIONS.memories),
    interactions: name('PERFLOW_INTERACTIONS_COLLECTION', DEFAULT_COLLECTIONS.interactions),
    prompts: name('PERFLOW_PROMPTS_COLLECTION', DEFAULT_COLLECTIONS.prompts),
    events: name('PERFLOW_EVENTS_COLLECTION', DEFAULT_COLLECTIONS.events),
    evals: name('PERFLOW_EVALS_COLLECTION', DEFAULT_COLLECTIONS.evals),
  };
  if (new Set(Object.values(collections)).size < Object.keys(collections).length) {
    throw new Error(`PERFLOW_MEMORIES_COLLECTION, PERFLOW_INTERACTIONS_COLLECTION, PERFLOW_PROMPTS_COLLECTION, PERFLOW_EVENTS_COLLECTION and PERFLOW_EVALS_COLLECTION must differ (they are "${collections.memories}", "${collections.interactions}", "${collections.prompts}", "${collections.events}", "${collections.evals}")`);
  }
  return collections;
}

export interface ClientConfig {
  temporalAddress: string;
  namespace: string;
  /** TLS, mTLS, API key and gRPC metadata of the Temporal connection. @default plaintext */
  temporal?: TemporalConnectionSettings;
  taskQueue: string;
  /** Temporal UI base URL, for links. */
  uiUrl: string;
  /** Model calls of the runs this client starts go to this task queue (PERFLOW_LLM_TASK_QUEUE). */
  llmTaskQueue?: string;
  /** Tool types the workers offer besides the built-in ones (PERFLOW_EXTRA_TOOL_TYPES, comma-separated). */
  extraToolTypes: string[];
  /** Model interfaces the workers serve besides the built-in ones, with model adapters of their own (PERFLOW_EXTRA_MODEL_INTERFACES, comma-separated). */
  extraModelInterfaces: string[];
  /** Agent types the workers run besides the built-in ones, with workflows of their own (PERFLOW_EXTRA_AGENT_TYPES, comma-separated `TYPE=workflowType`). */
  extraAgentTypes: AgentTypeSpec[];
  /** The upper bounds of run parameters (PERFLOW_PARAMETER_LIMITS raises them). @default core/agent-file/limits.ts */
  limits?: ParameterLimits;
  /** Encrypt the payloads this client writes and decrypt those it reads (PERFLOW_ENCRYPTION_KEYS). @default off */
  encryption?: EncryptionKeyring;
  /** The client's spans (OTEL_EXPORTER_OTLP_*), see config/telemetry.ts. @default off */
  telemetry?: TelemetryConfig;
  /** MongoDB (MONGODB_URI): its database holds the memory, event streams, evals and tenant spend the client reads. */
  mongoUri: string;
  /** The stores' collection names (PERFLOW_*_COLLECTION). */
  collections: MemoryCollections;
  /** The workers' policy, when this environment declares it (PERFLOW_ALLOW_*): agent files are checked before a run starts. */
  workerPolicy?: DeclaredWorkerPolicy;
}

/** A worker policy the client's environment declares, with the operator's own model endpoints (which it always allows). */
export interface DeclaredWorkerPolicy {
  policy: WorkerPolicy;
  endpoints: OperatorEndpoints;
}

/**
 * The Temporal address, namespace and connection settings: the `temporal` CLI's config file
 * profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) with the TEMPORAL_* variables over it, and
 * perflow's defaults (localhost:7233, namespace default). Certificate files are read at connect time.
 */
export function temporalFromEnv(env: NodeJS.ProcessEnv = process.env): { temporalAddress: string; namespace: string; temporal: TemporalConnectionSettings } {
  const { address, namespace, settings } = temporalSettingsFromEnv(env);
  return { temporalAddress: address ?? DEFAULTS.TEMPORAL_ADDRESS, namespace: namespace ?? DEFAULTS.TEMPORAL_NAMESPACE, temporal: settings };
}

export function clientConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const llmTaskQueue = env.PERFLOW_LLM_TASK_QUEUE?.trim();
  return {
    ...temporalFromEnv(env),
    taskQueue: env.PERFLOW_TASK_QUEUE || DEFAULTS.PERFLOW_TASK_QUEUE,
    uiUrl: (env.PERFLOW_TEMPORAL_UI_URL || DEFAULTS.PERFLOW_TEMPORAL_UI_URL).replace(/\/+$/, ''),
    ...(llmTaskQueue ? { llmTaskQueue } : {}),
    extraToolTypes: commaList(env.PERFLOW_EXTRA_TOOL_TYPES),
    extraModelInterfaces: commaList(env.PERFLOW_EXTRA_MODEL_INTERFACES).map((name) => name.toLowerCase()),
    extraAgentTypes: extraAgentTypesFromEnv(env),
    limits: parameterLimits(env[LIMITS_VARIABLE]),
    ...withEncryption(env),
    telemetry: telemetryConfigFromEnv(env, 'client'),
    mongoUri: mongoUriFromEnv(env),
    collections: memoryCollectionsFromEnv(env),
    ...(declaresWorkerPolicy(env) ? { workerPolicy: { policy: workerPolicyFromEnv(env), endpoints: operatorEndpointsFromEnv(env) } } : {}),
  };
}

function extraAgentTypesFromEnv(env: NodeJS.ProcessEnv): AgentTypeSpec[] {
  try {
    return parseNamedAgentTypes(env.PERFLOW_EXTRA_AGENT_TYPES);
  } catch (err) {
    throw new Error(`PERFLOW_EXTRA_AGENT_TYPES: ${(err as Error).message}`);
  }
}



/** PERFLOW_CODEC_TOKEN: the bearer token `perflow codec-server` requires (its --token wins). */
export function codecTokenFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.PERFLOW_CODEC_TOKEN?.trim() || undefined;
}

/** Provider settings and secrets from the environment, read when an adapter asks, so a key set later is seen. */
export function providerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  const read = (name: string) => env[name] || undefined;
  return { secret: read, setting: read };
}
