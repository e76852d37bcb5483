/**
 * perflow's worker library (`perflow/worker`): embed a worker, with tools of your own, in your
 * application. This file is the public API; everything not exported here is internal.
 */
export { replayHistory } from './replay';
export { createWorker, defineTool, runWorker, workerTools, type CreateWorkerOptions, type PerflowWorker } from './main';
export { databaseFromUri, describeWorkerConfig, llmQueueConfigFromEnv, temporalFromEnv, workerConfigFromEnv, type LlmQueueConfig, type PerflowWorkerConfig, type TemporalConnectionSettings } from '../config/env';
export { builtinTools, type BuiltinToolDeps } from '../activities/tools/builtin';
export type { Tool } from '../activities/tools/tool';
export type { AdapterContext, ModelAdapter, ModelCall, ModelCallContext, ModelInterfaceSpec } from '../activities/llm/adapter';
export { BUILTIN_TOOL_TYPES } from '../core/tool-types';
export { EncryptionCodec, encryptionDataConverter } from '../codec/encryption';
export type { EncryptionKeyring } from '../core/encryption-keyring';
export { encryptionKeysFromEnv, parseEncryptionKeys } from '../config/env';
export { runtimeMetricsOptions, WORKFLOW_TRACING_MODULES } from '../telemetry/worker';
export { workflowBundleOptions } from './workflow-source';
export { telemetryConfigFromEnv, type MetricsConfig, type TelemetryConfig, type TracingConfig } from '../config/telemetry';
export { PERFLOW_METRICS } from '../telemetry/metric-names';
