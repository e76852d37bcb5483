import { randomUUID } from 'node:crypto';
import type { MongoClient } from 'mongodb';
import { createActivities } from '../../../activities';
import { builtinTools } from '../../../activities/tools/builtin';
import { toolRegistry } from '../../../activities/tools/tool';
import { connectMongo } from '../../support/env';
import { parseAgentDefinition } from '../../../core/agent';

const dbName = `perflow_tools_${randomUUID().slice(0, 8)}`;
const otherDbName = `${dbName}_other`;

const flights = [
  { flight: 'CA983', origin: 'Beijing', dest: 'Seattle', carrier: 'Air China', price: 820, aircraft: { model: 'B777' } },
  { flight: 'HU495', origin: 'Beijing', dest: 'Seattle', carrier: 'Hainan', price: 640, aircraft: { model: 'B787' } },
  { flight: 'DL128', origin: 'Beijing', dest: 'Seattle', carrier: 'Delta', price: 910, aircraft: { model: 'A350' } },
  { flight: 'CA981', origin: 'Beijing', dest: 'New York', carrier: 'Air China', price: 990, aircraft: { model: 'B747' } },
  { flight: 'AS7', origin: 'Seattle', dest: 'Beijing', carrier: 'Alaska', price: 700, aircraft: { model: 'A321' } },
  { flight: 'MU587', origin: 'Shanghai', dest: 'Seattle', carrier: 'China Eastern', price: 600, aircraft: { model: 'B777' } },
  { flight: 'DL129', origin: 'Shanghai', dest: 'Seattle', carrier: 'Delta', price: 880, aircraft: { model: 'A330' } },
  { flight: 'UA851', origin: 'Tokyo', dest: 'Seattle', carrier: 'United', price: 760, aircraft: { model: 'B787' } },
];

let mongo: MongoClient;

beforeAll(async () => {
  mongo = await connectMongo();
  const db = mongo.db(dbName);
  await db.collection('flights').insertMany(flights.map((f) => ({ ...f })));
  await db.collection('flights').createIndex({ origin: 1, dest: 1 }, { name: 'origin_dest' });
  await db.collection('perflow_memories').insertOne({ text: 'a private memory' });
  await mongo.db(otherDbName).collection('secrets').insertOne({ secret: true });
});

afterAll(async () => {
  await mongo.db(dbName).dropDatabase();
  await mongo.db(otherDbName).dropDatabase();
  await mongo.close();
});

const ids = { memory_id: 'm', parent_interaction_id: 'p', executor_agent_memory_id: 'em', executor_agent_parent_interaction_id: 'ep' };
/** Memory that keeps what callTool records, so the tools run exactly as a worker runs them. */
const recorded: unknown[] = [];
const memory = { upsertInteraction: async (doc: unknown) => void recorded.push(doc) };

/** Runs a tool through the callTool activity: validated input, errors turned into observations. */
async function call(type: string, input: Record<string, unknown>, parameters?: Record<string, unknown>) {
  const activities = createActivities({
    tools: toolRegistry(builtinTools({ mongo, defaultDb: dbName, protectedCollections: ['perflow_memories'] })),
    memory: memory as never,
  });
  return activities.callTool({ tool: { type, ...(parameters ? { parameters } : {}) }, input, place: { ids, stepIndex: 0, callIndex: 0 } });
}

/** Runs a tool that must succeed and parses its JSON output. */
async function json(type: string, input: Record<string, unknown>, parameters?: Record<string, unknown>) {
  const observation = await call(type, input, parameters);
  if (observation.is_error) throw new Error(`expected ${type} to succeed: ${observation.content}`);
  return JSON.parse(observation.content) as Record<string, unknown> & { documents: Record<string, unknown>[] };
}

describe('ListCollectionsTool', () => {
  it('lists the collections of the database with their document counts', async () => {
    const out = await json('ListCollectionsTool', {});
    expect(out.database).toBe(dbName);
    expect(out.collections).toEqual([{ name: 'flights', type: 'collection', documents: 8 }]);
  });

  it('never lists a protected memory collection', async () => {
    const observation = await call('ListCollectionsTool', {});
    expect(observation.content).not.toContain('perflow_memories');
  });

  it('rejects a database outside the allowlist', async () => {
    const observation = await call('ListCollectionsTool', { database: otherDbName });
    expect(observation).toEqual({ is_error: true, content: expect.stringContaining(`database "${otherDbName}" is not allowed`) });
  });
});

describe('CollectionSchemaTool', () => {
  it('infers field paths and types, including nested ones, and reports the indexes', async () => {
    const out = (await json('CollectionSchemaTool', { collection: 'flights' })) as unknown as {
      documents: number;
      sampled: number;
      fields: { path: string; types: Record<string, number>; in_documents: number; example?: unknown }[];
      indexes: { name: string; key: Record<string, number> }[];
    };
    expect(out.sampled).toBe(8);
    expect(out.documents).toBe(8);
    const byPath = Object.fromEntries(out.fields.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(['_id', 'aircraft', 'aircraft.model', 'carrier', 'dest', 'flight', 'origin', 'price']);
    expect(byPath['_id'].types).toEqual({ objectId: 8 });
    expect(byPath['origin']).toMatchObject({ types: { string: 8 }, in_documents: 8, example: 'Beijing' });
    expect(byPath['aircraft'].types).toEqual({ object: 8 });
    expect(byPath['aircraft.model']).toMatchObject({ types: { string: 8 }, in_documents: 8 });
    expect(byPath['price'].types).toEqual({ int: 8 });
    expect(out.indexes).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'origin_dest', key: { origin: 1, dest: 1 } })]));
  });

  it('samples only as many documents as asked', async () => {
    const out = await json('CollectionSchemaTool', { collection: 'flights', sample_size: 3 });
    expect(out.sampled).toBe(3);
  });

  it('refuses a protected collection and names the existing ones for a missing collection', async () => {
    expect((await call('CollectionSchemaTool', { collection: 'perflow_memories' })).content).toMatch(/"perflow_memories" is not available/);
    const missing = await call('CollectionSchemaTool', { collection: 'flight' });
    expect(missing).toEqual({ is_error: true, content: expect.stringMatching(/"flight" does not exist .*its collections are: flights$/) });
  });
});

describe('SearchCollectionTool', () => {
  it('answers a filtered find with exactly the matching documents', async () => {
    const out = await json('SearchCollectionTool', { collection: 'flights', filter: { origin: 'Beijing', dest: 'Seattle' }, projection: { _id: 0, flight: 1 }, sort: { flight: 1 } });
    expect(out).toMatchObject({ mode: 'find', returned: 3, has_more: false });
    expect(out.documents).toEqual([{ flight: 'CA983' }, { flight: 'DL128' }, { flight: 'HU495' }]);
  });

  it('filters on a nested field by its dotted path', async () => {
    const out = await json('SearchCollectionTool', { collection: 'flights', filter: { 'aircraft.model': 'B777' } });
    expect(out.documents.map((d) => d.flight).sort()).toEqual(['CA983', 'MU587']);
  });

  it('answers an aggregation that matches and counts per group', async () => {
    const out = await json('SearchCollectionTool', {
      collection: 'flights',
      pipeline: [{ $match: { dest: 'Seattle' } }, { $group: { _id: '$origin', flights: { $sum: 1 } } }, { $sort: { _id: 1 } }],
    });
    expect(out).toMatchObject({ mode: 'aggregate', has_more: false });
    expect(out.documents).toEqual([
      { _id: 'Beijing', flights: 3 },
      { _id: 'Shanghai', flights: 2 },
      { _id: 'Tokyo', flights: 1 },
    ]);
  });

  it('returns at most the limit, capped by max_results, and says more matched', async () => {
    expect(await json('SearchCollectionTool', { collection: 'flights', limit: 5 })).toMatchObject({ returned: 5, has_more: true });
    expect(await json('SearchCollectionTool', { collection: 'flights', limit: 50 }, { max_results: 2 })).toMatchObject({ returned: 2, has_more: true });
    expect(await json('SearchCollectionTool', { collection: 'flights', limit: 50 })).toMatchObject({ returned: 8, has_more: false });
  });

  it.each([
    ['$out', { pipeline: [{ $match: {} }, { $out: 'copied' }] }],
    ['$merge', { pipeline: [{ $merge: { into: 'copied' } }] }],
    ['$where', { filter: { $where: 'this.price > 700' } }],
    ['$function', { filter: { $expr: { $function: { body: 'function() { return true }', args: [], lang: 'js' } } } }],
    ['$accumulator', { pipeline: [{ $group: { _id: null, all: { $accumulator: { init: 'function() { return 0 }', accumulate: 'x', accumulateArgs: [], merge: 'y', lang: 'js' } } } }] }],
  ])('rejects the forbidden %s and writes nothing', async (operator, query) => {
    const observation = await call('SearchCollectionTool', { collection: 'flights', ...query });
    expect(observation.is_error).toBe(true);
    expect(observation.content).toContain(`forbidden operator ${operator}`);
    const names = (await mongo.db(dbName).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).not.toContain('copied');
  });

  it('rejects a database outside the allowlist and reads one that the parameters allow', async () => {
    const rejected = await call('SearchCollectionTool', { collection: 'secrets', database: otherDbName });
    expect(rejected).toEqual({ is_error: true, content: expect.stringContaining(`database "${otherDbName}" is not allowed; this tool may read: ${dbName}`) });
    const allowed = await json('SearchCollectionTool', { collection: 'secrets', database: otherDbName }, { allowed_databases: [dbName, otherDbName] });
    expect(allowed.documents).toEqual([expect.objectContaining({ secret: true })]);
  });

  it('reads the database named by its parameters by default', async () => {
    const out = await json('SearchCollectionTool', { collection: 'secrets' }, { database: otherDbName });
    expect(out.database).toBe(otherDbName);
  });

  it('refuses to search or look up a protected memory collection', async () => {
    expect((await call('SearchCollectionTool', { collection: 'perflow_memories' })).content).toMatch(/not available/);
    const lookup = await call('SearchCollectionTool', { collection: 'flights', pipeline: [{ $lookup: { from: 'perflow_memories', pipeline: [], as: 'm' } }] });
    expect(lookup).toEqual({ is_error: true, content: expect.stringContaining('$lookup reads collection "perflow_memories"') });
  });

  it('rejects a pipeline given together with a filter as invalid input', async () => {
    const observation = await call('SearchCollectionTool', { collection: 'flights', filter: {}, pipeline: [{ $match: {} }] });
    expect(observation).toEqual({ is_error: true, content: expect.stringContaining('give either a pipeline or filter, not both') });
  });

  it('cuts output longer than max_output_chars with a truncation marker', async () => {
    const observation = await call('SearchCollectionTool', { collection: 'flights', limit: 8 }, { max_output_chars: 200 });
    expect(observation.is_error).toBe(false);
    expect(observation.content.indexOf('\n…[truncated: the output was ')).toBe(200);
    expect(observation.content).toMatch(/over the limit of 200;/);
  });

  it('reads no further than the output can show: huge documents never come into the worker all at once', async () => {
    // 40 documents of 200 KB each (8 MB): the output holds 20,000 characters, so the tool reads one and stops.
    const big = mongo.db(dbName).collection('big');
    await big.insertMany(Array.from({ length: 40 }, (_, i) => ({ i, blob: 'x'.repeat(200_000) })));
    try {
      const observation = await call('SearchCollectionTool', { collection: 'big', limit: 40, projection: { i: 1, blob: 1 } }, { max_results: 40 });
      expect(observation.is_error).toBe(false);
      expect(observation.content).toMatch(/"returned":1,"has_more":true/);
      expect(observation.content.length).toBeLessThan(21_000);
    } finally {
      await big.drop();
    }
  });

  it("tells the server the tool's timeout (maxTimeMS), so a query that outlives the call stops there too", async () => {
    const { MongoClient: Client } = await import('mongodb');
    const watched = await new Client(process.env.MONGODB_URI!, { monitorCommands: true }).connect();
    const sent: Record<string, unknown>[] = [];
    watched.on('commandStarted', (e) => {
      if (e.commandName === 'find' || e.commandName === 'aggregate') sent.push(e.command as Record<string, unknown>);
    });
    try {
      const activities = createActivities({ tools: toolRegistry(builtinTools({ mongo: watched, defaultDb: dbName, protectedCollections: ['perflow_memories'] })), memory: memory as never });
      const run = (input: Record<string, unknown>, parameters: Record<string, unknown>) => activities.callTool({ tool: { type: 'SearchCollectionTool', parameters }, input, place: { ids, stepIndex: 0, callIndex: 0 } });
      await run({ collection: 'flights', filter: { origin: 'Beijing' } }, { timeout_seconds: 7 });
      await run({ collection: 'flights', pipeline: [{ $match: { origin: 'Beijing' } }] }, {});
      expect(sent.map((c) => c.maxTimeMS)).toEqual([7_000, 90_000]);
    } finally {
      await watched.close();
    }
  });

  it("refuses the server's own databases (local.oplog.rs holds every write) even when the parameters allow them", async () => {
    for (const database of ['local', 'admin', 'config']) {
      const observation = await call('SearchCollectionTool', { collection: 'oplog.rs', database }, { allowed_databases: [dbName, database] });
      expect(observation).toEqual({ is_error: true, content: expect.stringContaining(`database "${database}" is the server's own and never available to this tool`) });
    }
    const lookup = await call('SearchCollectionTool', { collection: 'flights', pipeline: [{ $lookup: { from: { db: 'local', coll: 'oplog.rs' }, pipeline: [], as: 'ops' } }] }, { allowed_databases: [dbName, 'local'] });
    expect(lookup).toEqual({ is_error: true, content: expect.stringContaining('database "local" is the server\'s own') });
  });

  it('accepts extended JSON values such as an ObjectId in a filter', async () => {
    const first = await mongo.db(dbName).collection('flights').findOne({ flight: 'UA851' });
    const out = await json('SearchCollectionTool', { collection: 'flights', filter: { _id: { $oid: String(first?._id) } } });
    expect(out.documents.map((d) => d.flight)).toEqual(['UA851']);
  });
});

describe('the seed OpenSearch tools', () => {
  it('are offered to the model under the seed\'s names, their descriptions naming each other so', async () => {
    const activities = createActivities({ tools: toolRegistry(builtinTools({ mongo, defaultDb: dbName, protectedCollections: ['perflow_memories'] })), memory: memory as never });
    const agent = parseAgentDefinition({ name: 'seed', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, tools: [{ type: 'ListIndexTool' }, { type: 'IndexMappingTool' }, { type: 'SearchIndexTool' }] });
    const listed = await activities.describeTools({ tools: agent.tools });
    expect(listed.map((t) => t.spec.name)).toEqual(['ListIndexTool', 'IndexMappingTool', 'SearchIndexTool']);
    const list = listed[0].spec.description;
    expect(list).toContain('then use IndexMappingTool');
    expect(list).not.toMatch(/CollectionSchemaTool|SearchCollectionTool/);
    const observation = await activities.callTool({ tool: listed[0].ref, input: {}, place: { ids, stepIndex: 0, callIndex: 1 } });
    expect(JSON.parse(observation.content).collections).toEqual([{ name: 'flights', type: 'collection', documents: 8 }]);
  });

  it('show the model the input schema of their attributes (seed 001), with strict function calling', async () => {
    const activities = createActivities({ tools: toolRegistry(builtinTools({ mongo, defaultDb: dbName, protectedCollections: [] })), memory: memory as never });
    const input_schema = { type: 'object', properties: { index: { type: 'string', description: 'the index to search' } }, required: ['index'] };
    const agent = parseAgentDefinition({ name: 'seed', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, tools: [{ type: 'SearchIndexTool', attributes: { input_schema, strict: false, note: 'kept' } }] });
    expect(agent.tools[0].attributes).toEqual({ input_schema, strict: false, note: 'kept' });
    const [tool] = await activities.describeTools({ tools: agent.tools });
    expect(tool.spec).toMatchObject({ name: 'SearchIndexTool', input_schema, strict: false });
  });
});
