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
import { BSON, type Db, type Document, type MongoClient } from 'mongodb';
import { z } from 'zod';
import { assertReadOnly, referencedCollections } from './mongo-guard';
import type { Tool } from './tool';

const { EJSON } = BSON;

export interface MongoToolsOptions {
  /** The database used when neither the input nor the tool parameters name one. */
  defaultDb: string;
  /** Collections the tools never reveal (perflow's memory). */
  protectedCollections: string[];
}

export const DEFAULT_MAX_RESULTS = 100;
export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;
export const DEFAULT_SAMPLE_SIZE = 100;
export const MAX_SAMPLE_SIZE = 1000;

const Parameters = z.object({
  database: z.string().min(1).optional(),
  allowed_databases: z.array(z.string().min(1)).optional(),
  max_results: z.number().int().positive().optional(),
  max_output_chars: z.number().int().positive().optional(),
});

interface Settings {
  database: string;
  allowedDatabases: string[];
  maxResults: number;
  maxOutputChars: number;
}

function settings(parameters: Record<string, unknown>, options: MongoToolsOptions): Settings {
  const parsed = Parameters.safeParse(parameters);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid tool parameters: ${problems}`);
  }
  const database = parsed.data.database ?? options.defaultDb;
  return {
    database,
    allowedDatabases: parsed.data.allowed_databases ?? [database],
    maxResults: parsed.data.max_results ?? DEFAULT_MAX_RESULTS,
    maxOutputChars: parsed.data.max_output_chars ?? DEFAULT_MAX_OUTPUT_CHARS,
  };
}

function checkDatabase(name: string, s: Settings): void {
  if (!s.allowedDatabases.includes(name)) {
    throw new Error(`database "${name}" is not allowed; this tool may read: ${s.allowedDatabases.join(', ')}`);
  }
}

/** The database an input names (checked against the allowlist), or the default one. */
function database(client: MongoClient, requested: string | undefined, s: Settings): Db {
  const name = requested ?? s.database;
  checkDatabase(name, s);
  return client.db(name);
}

function isHidden(name: string, options: MongoToolsOptions): boolean {
  return options.protectedCollections.includes(name) || name.startsWith('system.');
}

async function visibleCollections(db: Db, options: MongoToolsOptions): Promise<{ name: string; type: string }[]> {
  const infos = await db.listCollections({}, { nameOnly: false }).toArray();
  return infos
    .filter((c) => !isHidden(c.name, options))
    .map((c) => ({ name: c.name, type: (c as { type?: string }).type ?? 'collection' }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Throws a helpful error when the collection is protected or does not exist. */
async function checkCollection(db: Db, name: string, options: MongoToolsOptions): Promise<void> {
  if (isHidden(name, options)) throw new Error(`collection "${name}" is not available to this tool`);
  const visible = await visibleCollections(db, options);
  if (!visible.some((c) => c.name === name)) {
    const names = visible.map((c) => c.name);
    throw new Error(
      `collection "${name}" does not exist in database "${db.databaseName}"; its collections are: ${names.join(', ') || '(none)'}`,
    );
  }
}

/** EJSON (relaxed) text, cut at `maxChars` with a marker saying how long it was. */
export function renderOutput(value: unknown, maxChars: number): string {
  const text = EJSON.stringify(value as Document, { relaxed: true });
  if (text.length <= maxChars) return text;
  return (
    text.slice(0, maxChars) +
    `\n…[truncated: the output was ${text.length} characters, over the limit of ${maxChars}; ask for fewer documents (limit), fewer fields (projection or $project) or an aggregate ($group/$count)]`
  );
}

const DatabaseInput = z
  .string()
  .min(1)
  .optional()
  .describe('Database to read; omit it to use the default database. Only the databases this tool is configured for are allowed.');

// ---------------------------------------------------------------------------------------------
// ListCollectionsTool

const ListCollectionsInput = z.object({ database: DatabaseInput });

function listCollectionsTool(client: MongoClient, options: MongoToolsOptions): Tool<z.infer<typeof ListCollectionsInput>> {
  return {
    type: 'ListCollectionsTool',
    description:
      'Lists the collections of the MongoDB database (the tables of the data you can query), each with its type ' +
      '(collection or view) and approximate number of documents. Use it FIRST when you do not yet know which ' +
      'collection holds the data a question is about, or to check that a collection name exists. It returns ' +
      'names and counts only, no fields or documents: then use CollectionSchemaTool to learn a collection\'s ' +
      'fields and SearchCollectionTool to query it. Output: JSON {"database", "collections": [{"name", "type", "documents"}]}.',
    input: ListCollectionsInput,
    async run(input, parameters) {
      const s = settings(parameters, options);
      const db = database(client, input.database, s);
      const collections = await visibleCollections(db, options);
      const listed = await Promise.all(
        collections.map(async (c) => {
          let documents: number | null = null;
          try {
            documents = await db.collection(c.name).estimatedDocumentCount();
          } catch {
            try {
              documents = await db.collection(c.name).countDocuments();
            } catch {
              documents = null;
            }
          }
          return { name: c.name, type: c.type, documents };
        }),
      );
      return renderOutput({ database: db.databaseName, collections: listed }, s.maxOutputChars);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CollectionSchemaTool

const CollectionSchemaInput = z.object({
  collection: z.string().min(1).describe('Name of the collection, as ListCollectionsTool lists it.'),
  sample_size: z
    .number()
    .int()
    .min(1)
    .max(MAX_SAMPLE_SIZE)
    .optional()
    .describe(`How many documents to inspect (default ${DEFAULT_SAMPLE_SIZE}, at most ${MAX_SAMPLE_SIZE}).`),
  database: DatabaseInput,
});

/** The BSON type name of a value (as `$type` names it), for documents read with `promoteValues: false`. */
export function bsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regex';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'double';
    case 'bigint':
      return 'long';
    case 'object': {
      const bsonType = (value as { _bsontype?: string })._bsontype;
      if (bsonType === undefined) return 'object';
      const names: Record<string, string> = {
        ObjectId: 'objectId',
        Int32: 'int',
        Double: 'double',
        Long: 'long',
        Decimal128: 'decimal',
        Binary: 'binData',
        BSONRegExp: 'regex',
        Timestamp: 'timestamp',
        Code: 'javascript',
        MinKey: 'minKey',
        MaxKey: 'maxKey',
        BSONSymbol: 'symbol',
        DBRef: 'dbPointer',
      };
      return names[bsonType] ?? bsonType;
    }
    default:
      return typeof value;
  }
}

interface FieldStats {
  /** BSON type -> how many sampled documents had the field with that type. */
  types: Map<string, number>;
  /** For arrays of scalars: element type -> how many sampled documents had such elements. */
  elementTypes?: Map<string, number>;
  /** How many sampled documents have the field at all. */
  documents: number;
  example?: unknown;
}

/**
 * Adds one document's fields to `fields`: nested objects as dotted paths, fields of objects
 * inside arrays under the array's path (as MongoDB queries address them). Each document counts
 * at most once per path and type.
 */
export function collectFields(doc: Document, fields: Map<string, FieldStats>): void {
  const seen = new Set<string>();
  const once = (key: string): boolean => {
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  const statsOf = (path: string): FieldStats => {
    let stats = fields.get(path);
    if (!stats) {
      stats = { types: new Map(), documents: 0 };
      fields.set(path, stats);
    }
    return stats;
  };
  const visitObject = (prefix: string, object: Document) => {
    for (const [key, value] of Object.entries(object)) visit(prefix ? `${prefix}.${key}` : key, value);
  };
  const visit = (path: string, value: unknown) => {
    const type = bsonTypeName(value);
    const stats = statsOf(path);
    if (once(path)) stats.documents++;
    if (once(`${path}\u0000${type}`)) stats.types.set(type, (stats.types.get(type) ?? 0) + 1);
    if (stats.example === undefined && type !== 'object' && type !== 'array' && type !== 'null') {
      stats.example = typeof value === 'string' && value.length > 60 ? `${value.slice(0, 60)}…` : value;
    }
    if (type === 'object') visitObject(path, value as Document);
    if (type !== 'array') return;
    for (const element of value as unknown[]) {
      const elementType = bsonTypeName(element);
      if (elementType === 'object') visitObject(path, element as Document);
      else if (once(`${path}[]\u0000${elementType}`)) {
        stats.elementTypes ??= new Map();
        stats.elementTypes.set(elementType, (stats.elementTypes.get(elementType) ?? 0) + 1);
      }
    }
  };
  visitObject('', doc);
}

function collectionSchemaTool(client: MongoClient, options: MongoToolsOptions): Tool<z.infer<typeof CollectionSchemaInput>> {
  return {
    type: 'CollectionSchemaTool',
    description:
      'Describes the fields of one MongoDB collection, inferred from a sample of its documents (MongoDB has no fixed ' +
      'schema), and lists its indexes. For each field it gives the dotted path (nested objects as "aircraft.model"; ' +
      'fields of objects inside arrays as "legs.airport"), the BSON types seen (string, int, double, long, decimal, bool, ' +
      'date, objectId, object, array, null, ...) with how many sampled documents had each, how many sampled documents ' +
      'have the field at all, and one example value. Use it after ListCollectionsTool and BEFORE writing a ' +
      'SearchCollectionTool filter or pipeline, so you use the exact field names, nesting and types (e.g. a date stored as ' +
      'a string must be compared as a string). Fields that are rare may be missed by a small sample; raise sample_size ' +
      `(default ${DEFAULT_SAMPLE_SIZE}, max ${MAX_SAMPLE_SIZE}) if needed. Output: JSON {"database", "collection", ` +
      '"documents" (approximate total), "sampled", "fields": [{"path", "types": {type: count}, "in_documents", "example"}], ' +
      '"indexes": [{"name", "key", "unique"?}]}.',
    input: CollectionSchemaInput,
    async run(input, parameters) {
      const s = settings(parameters, options);
      const db = database(client, input.database, s);
      await checkCollection(db, input.collection, options);
      const collection = db.collection(input.collection);
      const sampleSize = input.sample_size ?? DEFAULT_SAMPLE_SIZE;
      const sample = await collection.find({}, { limit: sampleSize, promoteValues: false }).toArray();
      const fields = new Map<string, FieldStats>();
      for (const doc of sample) collectFields(doc, fields);
      let documents: number | null = null;
      try {
        documents = await collection.estimatedDocumentCount();
      } catch {
        documents = null;
      }
      let indexes: Document[] = [];
      try {
        indexes = (await collection.indexes()).map((ix) => ({
          name: ix.name,
          key: ix.key,
          ...(ix.unique ? { unique: true } : {}),
          ...(ix.sparse ? { sparse: true } : {}),
        }));
      } catch {
        indexes = [];
      }
      const described = [...fields.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([path, stats]) => ({
          path,
          types: Object.fromEntries(stats.types),
          ...(stats.elementTypes ? { element_types: Object.fromEntries(stats.elementTypes) } : {}),
          in_documents: stats.documents,
          ...(stats.example !== undefined ? { example: stats.example } : {}),
        }));
      return renderOutput(
        { database: db.databaseName, collection: input.collection, documents, sampled: sample.length, fields: described, indexes },
        s.maxOutputChars,
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------
// SearchCollectionTool

const SearchCollectionInput = z
  .object({
    collection: z.string().min(1).describe('Name of the collection to search, as ListCollectionsTool lists it.'),
    filter: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('find mode: a MongoDB query filter, e.g. {"origin": "Beijing", "price": {"$lt": 500}}. Omit it to match every document.'),
    projection: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('find mode: the fields to return, e.g. {"origin": 1, "dest": 1, "_id": 0}.'),
    sort: z
      .record(z.string(), z.union([z.literal(1), z.literal(-1)]))
      .optional()
      .describe('find mode: sort order, e.g. {"price": -1} for the most expensive first.'),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`The most documents to return (default ${DEFAULT_SEARCH_LIMIT}; capped by the tool's max_results, default ${DEFAULT_MAX_RESULTS}).`),
    pipeline: z
      .array(z.record(z.string(), z.unknown()))
      .min(1)
      .optional()
      .describe(
        'aggregate mode (instead of filter/projection/sort): an aggregation pipeline, e.g. ' +
          '[{"$match": {"dest": "Seattle"}}, {"$group": {"_id": "$carrier", "flights": {"$sum": 1}}}, {"$sort": {"flights": -1}}].',
      ),
    database: DatabaseInput,
  })
  .superRefine((input, ctx) => {
    if (input.pipeline === undefined) return;
    for (const key of ['filter', 'projection', 'sort'] as const) {
      if (input[key] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `give either a pipeline or ${key}, not both; in a pipeline use a $match, $project or $sort stage`,
        });
      }
    }
  });

function searchCollectionTool(client: MongoClient, options: MongoToolsOptions): Tool<z.infer<typeof SearchCollectionInput>> {
  return {
    type: 'SearchCollectionTool',
    description:
      'Queries one MongoDB collection, read-only, and returns the matching documents as JSON (MongoDB Extended JSON, ' +
      'relaxed: dates as {"$date": ...}, ids as {"$oid": ...}). Two modes: (1) find: give "filter" (a MongoDB query, e.g. ' +
      '{"origin": "Beijing", "dest": "Seattle"}; nested fields by dotted path, e.g. {"aircraft.model": "A320"}; operators ' +
      'such as $eq $ne $gt $gte $lt $lte $in $nin $exists $regex $and $or $elemMatch), and optionally "projection", "sort" and ' +
      '"limit"; (2) aggregate: give "pipeline", a list of stages ($match $group $project $sort $limit $skip $unwind $count ' +
      '$lookup $facet ...), best for counting, grouping, sums and averages — e.g. to COUNT matching documents use ' +
      '[{"$match": {...}}, {"$count": "n"}] rather than fetching them. ' +
      `At most "limit" documents are returned (default ${DEFAULT_SEARCH_LIMIT}, capped at max_results, default ${DEFAULT_MAX_RESULTS}); ` +
      '"has_more": true says more matched than were returned — then aggregate or narrow the filter instead of paging. ' +
      'Writes and server-side JavaScript are rejected: $out, $merge, $where, $function, $accumulator. Learn the field ' +
      'names and types with CollectionSchemaTool first. Output: JSON {"database", "collection", "mode", "returned", ' +
      '"has_more", "documents": [...]}; very long outputs are cut with a marker.',
    input: SearchCollectionInput,
    async run(input, parameters) {
      const s = settings(parameters, options);
      const db = database(client, input.database, s);
      assertReadOnly({ filter: input.filter, projection: input.projection, sort: input.sort, pipeline: input.pipeline });
      for (const ref of referencedCollections(input.pipeline)) {
        if (ref.database !== undefined) checkDatabase(ref.database, s);
        if (isHidden(ref.collection, options)) throw new Error(`${ref.stage} reads collection "${ref.collection}", which is not available to this tool`);
      }
      await checkCollection(db, input.collection, options);
      const collection = db.collection(input.collection);
      const limit = Math.min(input.limit ?? DEFAULT_SEARCH_LIMIT, s.maxResults);
      // EJSON input ({"$oid": ...}, {"$date": ...}) becomes real BSON values.
      const fromEjson = <T>(value: T | undefined): T | undefined =>
        value === undefined ? undefined : (EJSON.deserialize(value as Document, { relaxed: true }) as T);
      let documents: Document[];
      if (input.pipeline) {
        const pipeline = fromEjson(input.pipeline) as Document[];
        documents = await collection.aggregate([...pipeline, { $limit: limit + 1 }]).toArray();
      } else {
        documents = await collection
          .find(fromEjson(input.filter) ?? {}, {
            limit: limit + 1,
            ...(input.projection ? { projection: fromEjson(input.projection) } : {}),
            ...(input.sort ? { sort: input.sort } : {}),
          })
          .toArray();
      }
      const hasMore = documents.length > limit;
      if (hasMore) documents = documents.slice(0, limit);
      return renderOutput(
        {
          database: db.databaseName,
          collection: input.collection,
          mode: input.pipeline ? 'aggregate' : 'find',
          returned: documents.length,
          has_more: hasMore,
          documents,
        },
        s.maxOutputChars,
      );
    },
  };
}

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
