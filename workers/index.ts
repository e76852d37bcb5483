/**
 * perflow's worker library (`perflow/worker`): embed a worker, with tools of your own, in your
 * application. This file is the public API; everything not exported here is internal.
 */
export { createWorker, defineTool, runWorker, workerTools, type CreateWorkerOptions, type PerflowWorker } from './main';
export { databaseFromUri, describeWorkerConfig, llmQueueConfigFromEnv, workerConfigFromEnv, type LlmQueueConfig, type PerflowWorkerConfig } from '../config/env';
export { builtinTools, type BuiltinToolDeps } from '../activities/tools/builtin';
export type { Tool } from '../activities/tools/tool';
export { BUILTIN_TOOL_TYPES } from '../core/tool-types';
