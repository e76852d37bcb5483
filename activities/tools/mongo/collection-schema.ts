/** CollectionSchemaTool (OpenSearch's IndexMappingTool): field paths and BSON types from a sample, counts and indexes. */
import type { Document, MongoClient } from 'mongodb';
import { z } from 'zod';
import type { Tool } from '../tool';
import { checkCollection, DatabaseInput, DEFAULT_SAMPLE_SIZE, MAX_SAMPLE_SIZE, openDatabase, readBounded, renderOutput, type MongoToolsOptions } from './access';

/** The most EJSON text a schema sample reads (then it stops sampling). */
const SAMPLE_CHARS = 8_000_000;

export const CollectionSchemaInput = z.object({
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

export function collectionSchemaTool(client: MongoClient, options: MongoToolsOptions): Tool<z.infer<typeof CollectionSchemaInput>> {
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
      const { s, db } = openDatabase(client, input.database, parameters, options);
      await checkCollection(db, input.collection, options);
      const collection = db.collection(input.collection);
      const sampleSize = input.sample_size ?? DEFAULT_SAMPLE_SIZE;
      // At most SAMPLE_BYTES of documents, however large each is.
      const { documents: sample } = await readBounded(collection.find({}, { limit: sampleSize, promoteValues: false, maxTimeMS: s.maxTimeMS, batchSize: 10 }), sampleSize, SAMPLE_CHARS);
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
