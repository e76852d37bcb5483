/** Worker settings from the environment. */

export interface PerflowWorkerConfig {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  mongoUri: string;
  /** Database for memory and the MongoDB tools: the URI's path, `perflow` when it has none. */
  database: string;
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
  };
}

/** The config for logs, with the MongoDB password redacted. */
export function describeWorkerConfig(c: PerflowWorkerConfig): string {
  return `Temporal ${c.temporalAddress} namespace ${c.namespace}, task queue ${c.taskQueue}; MongoDB ${redact(c.mongoUri)} database ${c.database}`;
}

/** A MongoDB URI with its password replaced by `***`. */
export function redact(uri: string): string {
  return uri.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
