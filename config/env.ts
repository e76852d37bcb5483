/**
 * Every environment variable perflow reads (but the server bootstrap's, in servers/), with its
 * default and validation: the worker's and the client's settings, memory collection names,
 * model providers' settings. Nothing else reads `process.env`; activities get what they need
 * from the worker.
 */
import type { ProviderConfig } from '../activities/llm/clients';
import { DEFAULT_COLLECTIONS, type MemoryCollections } from '../memory/store';

export type { ProviderConfig };

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
  taskQueue: string;
  mongoUri: string;
  /** Database for memory and the MongoDB tools: the URI's path, `perflow` when it has none. */
  database: string;
  /** LLM activities on their own task queue, rate-limited fleet-wide (PERFLOW_LLM_*). */
  llm?: LlmQueueConfig;
  /** Memory collection names (PERFLOW_MEMORIES_COLLECTION, PERFLOW_INTERACTIONS_COLLECTION, PERFLOW_PROMPTS_COLLECTION). @default DEFAULT_COLLECTIONS */
  collections?: MemoryCollections;
  /** Model providers' settings and secrets. @default from the worker process's environment */
  providers?: ProviderConfig;
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
    temporalAddress: env.TEMPORAL_ADDRESS || DEFAULTS.TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE || DEFAULTS.TEMPORAL_NAMESPACE,
    taskQueue: env.PERFLOW_TASK_QUEUE || DEFAULTS.PERFLOW_TASK_QUEUE,
    mongoUri,
    database: databaseFromUri(mongoUri),
    llm: llmQueueConfigFromEnv(env),
    collections: memoryCollectionsFromEnv(env),
    providers: providerConfigFromEnv(env),
  };
}

/** The config for logs, with the MongoDB password redacted. */
export function describeWorkerConfig(c: PerflowWorkerConfig): string {
  const llm = c.llm
    ? `; LLM calls on task queue ${c.llm.taskQueue}${c.llm.ratePerSecond ? ` at most ${c.llm.ratePerSecond}/s fleet-wide` : ''}${c.llm.concurrency ? `, ${c.llm.concurrency} at once here` : ''}`
    : '';
  return `Temporal ${c.temporalAddress} namespace ${c.namespace}, task queue ${c.taskQueue}; MongoDB ${redact(c.mongoUri)} database ${c.database}${llm}`;
}

/** A MongoDB URI with its password replaced by `***`. */
export function redact(uri: string): string {
  return uri.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/** MONGODB_URI: the database named in it holds perflow's memory. */
export function mongoUriFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.MONGODB_URI || DEFAULTS.MONGODB_URI;
}

/**
 * Memory collection names from the environment (PERFLOW_MEMORIES_COLLECTION,
 * PERFLOW_INTERACTIONS_COLLECTION), defaulting to {@link DEFAULT_COLLECTIONS}.
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
  };
  if (new Set(Object.values(collections)).size < 3) {
    throw new Error(`PERFLOW_MEMORIES_COLLECTION, PERFLOW_INTERACTIONS_COLLECTION and PERFLOW_PROMPTS_COLLECTION must differ (they are "${collections.memories}", "${collections.interactions}", "${collections.prompts}")`);
  }
  return collections;
}

export interface ClientConfig {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** Temporal UI base URL, for links. */
  uiUrl: string;
  /** Model calls of the runs this client starts go to this task queue (PERFLOW_LLM_TASK_QUEUE). */
  llmTaskQueue?: string;
  /** Tool types the workers offer besides the built-in ones (PERFLOW_EXTRA_TOOL_TYPES, comma-separated). */
  extraToolTypes: string[];
}

export function clientConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const llmTaskQueue = env.PERFLOW_LLM_TASK_QUEUE?.trim();
  return {
    temporalAddress: env.TEMPORAL_ADDRESS || DEFAULTS.TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE || DEFAULTS.TEMPORAL_NAMESPACE,
    taskQueue: env.PERFLOW_TASK_QUEUE || DEFAULTS.PERFLOW_TASK_QUEUE,
    uiUrl: (env.PERFLOW_TEMPORAL_UI_URL || DEFAULTS.PERFLOW_TEMPORAL_UI_URL).replace(/\/+$/, ''),
    ...(llmTaskQueue ? { llmTaskQueue } : {}),
    extraToolTypes: (env.PERFLOW_EXTRA_TOOL_TYPES ?? '').split(',').map((t) => t.trim()).filter((t) => t !== ''),
  };
}

/** Provider settings from the environment; secrets are read at call time, so a key set later is seen. */
export function providerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  return {
    secret: (name) => env[name] || undefined,
    get openaiBaseUrl() {
      return env.OPENAI_BASE_URL || undefined;
    },
    get bedrockEndpoint() {
      return env.PERFLOW_BEDROCK_ENDPOINT || undefined;
    },
    get awsRegion() {
      return env.AWS_REGION || undefined;
    },
  };
}
