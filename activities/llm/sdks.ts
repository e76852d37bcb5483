/**
 * The providers' SDKs, each loaded when the worker first calls a model through it: a worker
 * serves every interface while most deployments use one, and each SDK costs ~0.3 s of CPU to
 * load (`openai` 154 modules, Bedrock's client 60). Types come from `import type`, which loads
 * nothing.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const openAiSdk = () => require('openai') as typeof import('openai');
export const openAiStreaming = () => require('openai/core/streaming') as typeof import('openai/core/streaming');
export const anthropicSdk = () => require('@anthropic-ai/sdk') as typeof import('@anthropic-ai/sdk');
export const anthropicSchemaTransform = () => require('@anthropic-ai/sdk/lib/transform-json-schema') as typeof import('@anthropic-ai/sdk/lib/transform-json-schema');
export const bedrockSdk = () => require('@aws-sdk/client-bedrock-runtime') as typeof import('@aws-sdk/client-bedrock-runtime');
export const googleGenAiSdk = () => require('@google/genai') as typeof import('@google/genai');
