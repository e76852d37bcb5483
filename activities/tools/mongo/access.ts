/**
 * What the MongoDB tools share: their parameters, the database allowlist, the collections they
 * never reveal (perflow's memory, `system.*`, views, the server's own databases), reads bounded
 * in time (`maxTimeMS` from the tool's timeout, so a timed-out query stops on the server) and
 * in size (a cursor read until the output would pass `max_output_chars`), and the output cut.
 */
import { BSON, type AbstractCursor, type Db, type Document, type MongoClient } from 'mongodb';
import { z } from 'zod';
import { toolTimeoutSeconds } from '../../../core/tool-types';

export const { EJSON } = BSON;

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

export interface Settings {
  database: string;
  allowedDatabases: string[];
  maxResults: number;
  maxOutputChars: number;
  /** The tool's timeout: the server stops a query that takes longer. */
  maxTimeMS: number;
}

/** The server's own databases: `local` holds the oplog (every write, perflow's memory included), `admin` and `config` its users and sharding. */
export const SERVER_DATABASES = ['local', 'admin', 'config'] as const;

export function settings(parameters: Record<string, unknown>, options: MongoToolsOptions): Settings {
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
    maxTimeMS: toolTimeoutSeconds(parameters) * 1000,
  };
}

export function checkDatabase(name: string, s: Settings): void {
  if ((SERVER_DATABASES as readonly string[]).includes(name)) throw new Error(`database "${name}" is the server's own and never available to this tool`);
  if (!s.allowedDatabases.includes(name)) {
    throw new Error(`database "${name}" is not allowed; this tool may read: ${s.allowedDatabases.join(', ')}`);
  }
}

/** The database an input names (checked against the allowlist), or the default one. */
export function database(client: MongoClient, requested: string | undefined, s: Settings): Db {
  const name = requested ?? s.database;
  checkDatabase(name, s);
  return client.db(name);
}

export function isHidden(name: string, options: MongoToolsOptions): boolean {
  // perflow_events.archive and perflow_events.live.* are named after the events collection.
  return options.protectedCollections.some((p) => name === p || name.startsWith(`${p}.`)) || name.startsWith('system.');
}

/** The collections the tools may read: not hidden, and not views (a view can read any collection of its database, perflow's memory included). */
export async function visibleCollections(db: Pick<Db, 'listCollections'>, options: MongoToolsOptions): Promise<{ name: string; type: string }[]> {
  const infos = await db.listCollections({}, { nameOnly: false }).toArray();
  return infos
    .filter((c) => !isHidden(c.name, options) && (c as { type?: string }).type !== 'view')
    .map((c) => ({ name: c.name, type: (c as { type?: string }).type ?? 'collection' }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Throws a helpful error when the collection is protected or does not exist. */
export async function checkCollection(db: Pick<Db, 'listCollections' | 'databaseName'>, name: string, options: MongoToolsOptions): Promise<void> {
  if (isHidden(name, options)) throw new Error(`collection "${name}" is not available to this tool`);
  const visible = await visibleCollections(db, options);
  if (!visible.some((c) => c.name === name)) {
    const views = await db.listCollections({ name, type: 'view' }, { nameOnly: true }).toArray();
    if (views.length > 0) throw new Error(`"${name}" is a view, which this tool does not read (a view can read any collection); read the collection it is built on`);
    const names = visible.map((c) => c.name);
    throw new Error(
      `collection "${name}" does not exist in database "${db.databaseName}"; its collections are: ${names.join(', ') || '(none)'}`,
    );
  }
}

/**
 * Up to `limit` documents of a cursor, read one at a time and no further than `maxChars` of their
 * EJSON text: a query whose documents are huge never brings them all into the worker. Closes the
 * cursor. `more` says whether documents were left unread.
 */
export async function readBounded(cursor: AbstractCursor<Document>, limit: number, maxChars: number): Promise<{ documents: Document[]; more: boolean }> {
  const documents: Document[] = [];
  let chars = 0;
  try {
    for await (const doc of cursor) {
      if (documents.length === limit || chars > maxChars) return { documents, more: true };
      documents.push(doc);
      chars += EJSON.stringify(doc, { relaxed: true }).length;
    }
    return { documents, more: false };
  } finally {
    await cursor.close();
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

export const DatabaseInput = z
  .string()
  .min(1)
  .optional()
  .describe('Database to read; omit it to use the default database. Only the databases this tool is configured for are allowed.');


/** A tool call's settings and the database it reads (checked against the allowlist). */
export function openDatabase(client: MongoClient, requested: string | undefined, parameters: Record<string, unknown>, options: MongoToolsOptions): { s: Settings; db: Db } {
  const s = settings(parameters, options);
  return { s, db: database(client, requested, s) };
}
