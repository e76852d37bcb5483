/** The tools perflow ships with, as a worker offers them to agents. */
import type { MongoClient } from 'mongodb';
import { allMemoryCollections, DEFAULT_COLLECTIONS } from '../../core/memory-collections';
import { calculatorTool } from './calculator';
import { createMongoTools } from './mongo-tools';
import type { Tool } from './tool';

export { BUILTIN_TOOL_TYPES, type BuiltinToolType } from '../../core/tool-types';

export interface BuiltinToolDeps {
  /** With a client, the read-only MongoDB tools are offered too. */
  mongo?: MongoClient;
  /** The database the MongoDB tools read by default (default `perflow`). */
  defaultDb?: string;
  /** Collections the MongoDB tools never reveal (default perflow's memory collections). */
  protectedCollections?: string[];
}

export function builtinTools(deps: BuiltinToolDeps = {}): Tool<never>[] {
  const tools: Tool<never>[] = [calculatorTool as Tool<never>];
  if (deps.mongo) {
    const mongoTools = createMongoTools(deps.mongo, {
      defaultDb: deps.defaultDb ?? 'perflow',
      protectedCollections: deps.protectedCollections ?? allMemoryCollections(DEFAULT_COLLECTIONS),
    });
    tools.push(
      mongoTools.listCollections as Tool<never>,
      mongoTools.collectionSchema as Tool<never>,
      mongoTools.searchCollection as Tool<never>,
    );
  }
  return tools;
}
