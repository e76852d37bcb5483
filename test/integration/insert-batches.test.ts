/**
 * Group commit on a real MongoDB-wire server: inserts into one collection that arrive while one
 * is in flight go in one command; each caller learns of its own documents only (which were
 * there already, which failed); a caller whose document the driver refuses fails alone.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient, type Collection } from 'mongodb';
import { Inserts, InsertError } from '../../stores/insert-batches';
import { serverEnv } from '../support/env';

jest.setTimeout(60_000);

let mongo: MongoClient;
const sent: string[] = [];
const database = `perflow_insert_batches_${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  mongo = await new MongoClient(serverEnv().mongoUri, { monitorCommands: true, serverSelectionTimeoutMS: 2_000 }).connect();
  mongo.on('commandStarted', (e) => {
    if (e.commandName === 'insert') sent.push(`${String(e.command.insert)} ${(e.command.documents as unknown[]).length}`);
  });
});
afterAll(async () => {
  await mongo.db(database).dropDatabase();
  await mongo.close();
});

type Doc = { _id: string; n?: number; blob?: string };
const fresh = (): Collection<Doc> => mongo.db(database).collection<Doc>(`c_${randomUUID().slice(0, 8)}`);

describe('inserts of many callers into one collection', () => {
  it('go together while one is in flight: 30 callers, 2 commands, every document written', async () => {
    const c = fresh();
    const inserts = new Inserts();
    sent.length = 0;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => inserts.insert(c, [{ _id: `d${i}`, n: i }])));
    expect(results).toEqual(Array.from({ length: 30 }, () => []));
    // The first alone (nothing was in flight), the 29 that waited behind it in one.
    expect(sent).toEqual([`${c.collectionName} 1`, `${c.collectionName} 29`]);
    expect((await c.find().sort({ n: 1 }).toArray()).map((d) => d._id)).toEqual(Array.from({ length: 30 }, (_, i) => `d${i}`));
  });

  it('keep collections apart: one command per collection, no caller waits on another collection', async () => {
    const [a, b] = [fresh(), fresh()];
    const inserts = new Inserts();
    sent.length = 0;
    await Promise.all([inserts.insert(a, [{ _id: 'x' }]), inserts.insert(b, [{ _id: 'y' }])]);
    expect(sent.sort()).toEqual([`${a.collectionName} 1`, `${b.collectionName} 1`].sort());
  });

  it('tell each caller which of its own documents were there already, and write the rest', async () => {
    const c = fresh();
    await c.insertMany([{ _id: 'a2' }, { _id: 'b1' }]);
    const inserts = new Inserts();
    sent.length = 0;
    const [first, a, b, none] = await Promise.all([
      inserts.insert(c, [{ _id: 'first' }]),
      inserts.insert(c, [{ _id: 'a1' }, { _id: 'a2', n: 2 }, { _id: 'a3' }]),
      inserts.insert(c, [{ _id: 'b1', n: 1 }, { _id: 'b2' }]),
      inserts.insert(c, [{ _id: 'c1' }]),
    ]);
    expect(sent).toEqual([`${c.collectionName} 1`, `${c.collectionName} 6`]);
    expect([first, a, b, none]).toEqual([[], [1], [0], []]);
    expect((await c.find().toArray()).map((d) => d._id).sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'c1', 'first']);
    // What was there stays as it was.
    expect(await c.findOne({ _id: 'a2' })).toEqual({ _id: 'a2' });
  });

  it('a duplicate of another caller in the same command: the later one learns it was there (two writers racing for a place)', async () => {
    const c = fresh();
    const inserts = new Inserts();
    const [, one, two] = await Promise.all([inserts.insert(c, [{ _id: 'warm' }]), inserts.insert(c, [{ _id: 'same', n: 1 }]), inserts.insert(c, [{ _id: 'same', n: 2 }])]);
    expect([one, two]).toEqual([[], [0]]);
    expect(await c.findOne({ _id: 'same' })).toEqual({ _id: 'same', n: 1 });
  });

  it('fail the caller whose document is refused, alone: the others in its command are written', async () => {
    const c = fresh();
    const inserts = new Inserts();
    // Over MongoDB's 16 MB a document: the driver refuses it before anything is sent.
    const huge = 'x'.repeat(17 * 1024 * 1024);
    const outcomes = await Promise.allSettled([inserts.insert(c, [{ _id: 'warm' }]), inserts.insert(c, [{ _id: 'ok1' }]), inserts.insert(c, [{ _id: 'huge', blob: huge }]), inserts.insert(c, [{ _id: 'ok2' }])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((await c.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort()).toEqual(['ok1', 'ok2', 'warm']);
  });

  it('fail the caller whose document the server refuses, alone, naming the collection and why', async () => {
    const c = fresh();
    const inserts = new Inserts();
    sent.length = 0;
    const outcomes = await Promise.allSettled([inserts.insert(c, [{ _id: 'warm' }]), inserts.insert(c, [{ _id: 'ok1' }]), inserts.insert(c, [{ _id: 'ok2' }, { _id: 'bad', $bad: 1 } as Doc]), inserts.insert(c, [{ _id: 'ok3' }])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const { reason } = outcomes[2] as PromiseRejectedResult;
    expect(reason).toBeInstanceOf(InsertError);
    expect(reason).toMatchObject({ namespace: `${database}.${c.collectionName}`, code: 2 });
    expect((reason as Error).message).toMatch(new RegExp(`^insert into ${database}\\.${c.collectionName} failed: .*\\$bad`));
    // One command for the three that waited, the refused document's only failing.
    expect(sent).toEqual([`${c.collectionName} 1`, `${c.collectionName} 4`]);
    expect((await c.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort()).toEqual(['ok1', 'ok2', 'ok3', 'warm']);
  });
});
