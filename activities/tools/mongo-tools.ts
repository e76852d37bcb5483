/**
 * Read-only MongoDB tools (the analogues of OpenSearch's ListIndexTool, IndexMappingTool and
 * SearchIndexTool): list the collections of a database, infer a collection's schema from a
 * sample, and search it with find or aggregate.
 *
 * Tool parameters (from the agent file, all optional):
 * - `database`: the database used when the input names none (default: the worker's database).
 * - `allowed_databases`: the databases an input may name (default: just `database`).
 * - `max_results` (SearchCollectionTool): the most documents one search returns (default 100).
 * - `max_output_chars` (all): longer outputs are cut with a marker (default 20000).
 *
 * perflow's own memory collections (`protectedCollections`) are never listed, described or searched.
 */
import type { MongoClient } from 'mongodb';
import type { z } from 'zod';
import type { Tool } from './tool';
import type { MongoToolsOptions } from './mongo/access';
import { CollectionSchemaInput, collectionSchemaTool } from './mongo/collection-schema';
import { ListCollectionsInput, listCollectionsTool } from './mongo/list-collections';
import { SearchCollectionInput, searchCollectionTool } from './mongo/search-collection';

export { bsonTypeName, collectFields } from './mongo/collection-schema';
export { DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_MAX_RESULTS, DEFAULT_SAMPLE_SIZE, DEFAULT_SEARCH_LIMIT, MAX_SAMPLE_SIZE, renderOutput, type MongoToolsOptions } from './mongo/access';

export interface MongoTools {
  listCollections: Tool<z.infer<typeof ListCollectionsInput>>;
  collectionSchema: Tool<z.infer<typeof CollectionSchemaInput>>;
  searchCollection: Tool<z.infer<typeof SearchCollectionInput>>;
}

/** The three read-only MongoDB tools, reading through `client`. */
export function createMongoTools(client: MongoClient, options: MongoToolsOptions): MongoTools {
  return {
    listCollections: listCollectionsTool(client, options),
    collectionSchema: collectionSchemaTool(client, options),
    searchCollection: searchCollectionTool(client, options),
  };
}
