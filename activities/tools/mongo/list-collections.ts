/** ListCollectionsTool (OpenSearch's ListIndexTool): the collections of a database with their document counts. */
import type { MongoClient } from 'mongodb';
import { z } from 'zod';
import type { Tool } from '../tool';
import { DatabaseInput, openDatabase, renderOutput, visibleCollections, type MongoToolsOptions } from './access';

export const ListCollectionsInput = z.object({ database: DatabaseInput });

export function listCollectionsTool(client: MongoClient, options: MongoToolsOptions): Tool<z.infer<typeof ListCollectionsInput>> {
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
      const { s, db } = openDatabase(client, input.database, parameters, options);
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
