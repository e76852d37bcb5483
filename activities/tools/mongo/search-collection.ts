/** SearchCollectionTool (OpenSearch's SearchIndexTool): a read-only find or aggregate over one collection. */
import type { Document, MongoClient } from 'mongodb';
import { z } from 'zod';
import { assertReadOnly, referencedCollections } from '../mongo-guard';
import type { Tool } from '../tool';
import { checkCollection, checkDatabase, DatabaseInput, DEFAULT_MAX_RESULTS, DEFAULT_SEARCH_LIMIT, EJSON, isHidden, openDatabase, readBounded, renderOutput, type MongoToolsOptions } from './access';

export const SearchCollectionInput = z
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

export function searchCollectionTool(client: MongoClient, options: MongoToolsOptions): Tool<z.infer<typeof SearchCollectionInput>> {
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
      const { s, db } = openDatabase(client, input.database, parameters, options);
      assertReadOnly({ filter: input.filter, projection: input.projection, sort: input.sort, pipeline: input.pipeline });
      for (const ref of referencedCollections(input.pipeline)) {
        if (ref.database !== undefined) checkDatabase(ref.database, s);
        if (isHidden(ref.collection, options)) throw new Error(`${ref.stage} reads collection "${ref.collection}", which is not available to this tool`);
        // Not a view either (one may read a protected collection): the referenced collection must be one the tools may read.
        await checkCollection(ref.database !== undefined ? client.db(ref.database) : db, ref.collection, options).catch((err: Error) => {
          throw new Error(`${ref.stage}: ${err.message}`);
        });
      }
      await checkCollection(db, input.collection, options);
      const collection = db.collection(input.collection);
      const limit = Math.min(input.limit ?? DEFAULT_SEARCH_LIMIT, s.maxResults);
      // EJSON input ({"$oid": ...}, {"$date": ...}) becomes real BSON values.
      const fromEjson = <T>(value: T | undefined): T | undefined =>
        value === undefined ? undefined : (EJSON.deserialize(value as Document, { relaxed: true }) as T);
      // Bounded in time on the server (maxTimeMS) and in size here (read until the output is full).
      const cursor = input.pipeline
        ? collection.aggregate([...(fromEjson(input.pipeline) as Document[]), { $limit: limit + 1 }], { maxTimeMS: s.maxTimeMS, batchSize: 10 })
        : collection.find(fromEjson(input.filter) ?? {}, {
            limit: limit + 1,
            maxTimeMS: s.maxTimeMS,
            batchSize: 10,
            ...(input.projection ? { projection: fromEjson(input.projection) } : {}),
            ...(input.sort ? { sort: input.sort } : {}),
          });
      const { documents, more: hasMore } = await readBounded(cursor, limit, s.maxOutputChars);
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
