/** Worker settings from the environment. */

export interface PerflowWorkerConfig {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  mongoUri: string;
  /** Database for memory and the MongoDB tools: the URI's path, `perflow` when it has none. */
  database: string;
  /** LLM activities on their own task queue, rate-limited fleet-wide (PERFLOW_LLM_*). */
  llm?: LlmQueueConfig;
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

export const DEFAULT_TASK_QUEUE = 'perflow';

/** The database named in a MongoDB URI's path, or `fallback`. */
export function databaseFromUri(uri: string, fallback = 'perflow'): string {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(uri);
  const name = m?.[1] ? decodeURIComponent(m[1]) : '';
  return name === '' ? fallback : name;
}

export function workerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PerflowWorkerConfig {
  const mongoUri = env.MONGODB_URI || 'mongodb://localhost:27017/perflow';
  return {
    temporalAddress: env.TEMPORAL_ADDRESS || 'localhost:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.PERFLOW_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    mongoUri,
    database: databaseFromUri(mongoUri),
    llm: llmQueueConfigFromEnv(env),
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
