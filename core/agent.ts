/**
 * The agent file: a zod schema that mirrors the seed's register-agent body (name, type,
 * description, llm, memory, parameters, tools), plus run-time parameter resolution.
 *
 * Parse once where a definition enters (client and worker) with {@link parseAgentDefinition};
 * every error names its field path. Pure module: safe to import from workflow code.
 *
 * @module
 */
export * from './agent-file/model';
export * from './agent-file/parameters';
export * from './agent-file/resolve-parameters';
export * from './agent-file/agent-types';
export * from './agent-file/known-agent-types';
export * from './agent-file/parameter-defaults';
export * from './agent-file/definition';
export * from './agent-file/errors';
export * from './agent-file/sub-agents';
