/**
 * The event log on a real MongoDB-wire server: writers in different processes (here: log
 * instances with caches of their own) append to one stream at once and the offsets neither skip
 * nor repeat; a workflow task that runs again publishes its keyed events again and they are not
 * duplicated; sealed batches hold no plaintext.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { RunEventLog } from '../../stores/run-events';
import { textSealer } from '../../codec/encryption';
import { parseEncryptionKeys } from '../../config/env';
import type { TimedEvent } from '../../core/run-events';
import { eventLiveOf } from '../../core/memory-collections';
import { connectMongo, serverEnv } from '../support/env';

jest.setTimeout(60_000);

let mongo: MongoClient;
const database = `perflow_event_log_${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  mongo = await connectMongo();
});
afterAll(async () => {
  await mongo.db(database).dropDatabase();
  await mongo.close();
});

const log = (sealed = false) => new RunEventLog(mongo.db(database).collection('perflow_events'), sealed ? textSealer(parseEncryptionKeys(`k:${Buffer.alloc(32, 7).toString('base64')}`)) : undefined);
/** The collection holding a run's live batches. */
const live = (run: string) => mongo.db(database).collection(eventLiveOf('perflow_events', run));
const delta = (writer: number, n: number, text = `w${writer}-${n}`): TimedEvent => ({ type: 'model_delta', role: 'executor', step: writer, call: `executor:${writer}:0`, text, at: new Date().toISOString() });

describe('the run event log', () => {
  it('gives concurrent writers consecutive offsets, none skipped or repeated, each writer in its order', async () => {
    const run = `log-${randomUUID()}`;
    await log().open(run, { memory_id: 'm', tenant_id: 't' });
    const WRITERS = 4;
    const BATCHES = 15;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const writer = log();
        for (let b = 0; b < BATCHES; b++) await writer.append(run, [delta(w, 2 * b), delta(w, 2 * b + 1)]);
      }),
    );
    const { events } = await log().read(run, 0, undefined, 1_000);
    expect(events.map((e) => e.offset)).toEqual(Array.from({ length: WRITERS * BATCHES * 2 }, (_, i) => i));
    for (let w = 0; w < WRITERS; w++) {
      const mine = events.flatMap((e) => (e.type === 'model_delta' && e.step === w ? [e.text] : []));
      expect(mine).toEqual(Array.from({ length: BATCHES * 2 }, (_, n) => `w${w}-${n}`));
    }
    // Every batch document carries the run's tenant, in the run's shard; the events collection holds its head alone.
    const docs = await live(run).find({ run }).toArray();
    expect(docs.length).toBeGreaterThan(1);
    expect(docs.every((d) => d.tenant_id === 't')).toBe(true);
    expect(await mongo.db(database).collection('perflow_events').find({ $or: [{ _id: run }, { run }] } as object).toArray()).toEqual([expect.objectContaining({ _id: run, live: eventLiveOf('perflow_events', run) })]);
    // Re-reading from the middle starts inside a batch.
    expect((await log().read(run, 31, undefined, 1_000)).events.map((e) => e.offset)[0]).toBe(31);
  });

  it('gives writers in one process (activities of parallel steps, the run\'s own events) consecutive offsets too', async () => {
    // One log, as a worker has: the writers share what it knows of the stream's end.
    const shared = log();
    const run = `log-${randomUUID()}`;
    await shared.open(run, { memory_id: 'm' });
    const WRITERS = 4;
    const BATCHES = 15;
    const firsts = await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const mine: number[] = [];
        for (let b = 0; b < BATCHES; b++) mine.push((await shared.append(run, [delta(w, 2 * b), delta(w, 2 * b + 1)]))!);
        return mine;
      }),
    );
    const { events } = await log().read(run, 0, undefined, 1_000);
    expect(events.map((e) => e.offset)).toEqual(Array.from({ length: WRITERS * BATCHES * 2 }, (_, i) => i));
    // Each append says where its events are.
    for (let w = 0; w < WRITERS; w++) for (const [b, first] of firsts[w].entries()) expect(events[first]).toMatchObject({ step: w, text: `w${w}-${2 * b}` });
    expect(await shared.append(run, [delta(9, 0)])).toBe(WRITERS * BATCHES * 2);
  });

  it('lets the writer that opened a stream append without reading the head or the chain', async () => {
    const monitored = await new MongoClient(serverEnv().mongoUri, { monitorCommands: true }).connect();
    const commands: string[] = [];
    monitored.on('commandStarted', (e) => commands.push(e.commandName));
    try {
      const writer = new RunEventLog(monitored.db(database).collection('perflow_events'));
      const run = `open-${randomUUID()}`;
      await writer.open(run, { memory_id: 'm', tenant_id: 't' });
      expect(await writer.append(run, [delta(0, 0)], ['k0'])).toBe(0);
      expect(await writer.append(run, [delta(0, 1)])).toBe(1);
      expect(commands.filter((c) => c !== 'createIndexes')).toEqual(['insert', 'insert', 'insert']);
      expect((await log().read(run, 0)).events).toMatchObject([{ offset: 0, text: 'w0-0' }, { offset: 1, text: 'w0-1' }]);
      expect(await live(run).countDocuments({ run, tenant_id: 't' })).toBe(2);
    } finally {
      await monitored.close();
    }
  });

  it('lets a writer new to a stream (another worker, a restart) find its end in the stream\'s shard and archive it: no read of the heads or the archive', async () => {
    const run = `new-writer-${randomUUID()}`;
    const opener = log();
    await opener.open(run, { memory_id: 'm', tenant_id: 't' });
    for (let b = 0; b < 12; b++) await opener.append(run, [delta(0, b)], [`exec-1#${b}`]);
    const monitored = await new MongoClient(serverEnv().mongoUri, { monitorCommands: true }).connect();
    const sent: string[] = [];
    monitored.on('commandStarted', (e) => sent.push(`${e.commandName} ${String(e.command[e.commandName])}`));
    const shard = eventLiveOf('perflow_events', run);
    try {
      const writer = new RunEventLog(monitored.db(database).collection('perflow_events'));
      // A workflow task run again on this worker: its keyed events are there already; the next goes after the end.
      expect(await writer.append(run, [delta(0, 11)], ['exec-1#11'])).toBeUndefined();
      expect(await writer.append(run, [delta(1, 0)], ['exec-1#12'])).toBe(12);
      expect(sent.filter((c) => !c.startsWith('createIndexes'))).toEqual([`find ${shard}`, `insert ${shard}`]);
      expect(await live(run).findOne({ _id: `${run}:12` } as never)).toMatchObject({ tenant_id: 't', keys: ['exec-1#12'] });
      // The opener, behind the end now, meets the new batch and goes after it.
      expect(await opener.append(run, [delta(0, 12)])).toBe(13);
      // The whole stream was in the shard from offset 0: no earlier run of the workflow ID to go after in the archive.
      sent.length = 0;
      await writer.archiveStream(run);
      expect(sent.filter((c) => !c.startsWith('createIndexes'))).toEqual([`find ${shard}`, 'insert perflow_events.archive', `insert ${shard}`, `delete ${shard}`]);
    } finally {
      await monitored.close();
    }
    expect((await log().readAll(run)).map((e) => e.offset)).toEqual(Array.from({ length: 14 }, (_, i) => i));
    expect(await mongo.db(database).collection('perflow_events.archive').findOne({ _id: `${run}:0` } as never)).toMatchObject({ run });
  });

  it('goes after an earlier run of the workflow ID in the archive when a new writer archives a stream whose start it did not see', async () => {
    const run = `reused-${randomUUID()}`;
    const first = log();
    await first.open(run, { memory_id: 'm' });
    await first.append(run, [delta(0, 0), delta(0, 1)]);
    await first.archiveStream(run);
    // The workflow ID used again: its copies are still in the shard, then the new run's batches after them.
    await first.append(run, [delta(1, 0)]);
    await first.append(run, [delta(1, 1)]);
    const writer = log();
    expect(await writer.append(run, [delta(1, 2)])).toBe(4);
    await writer.archiveStream(run);
    expect((await log().readAll(run)).map((e) => e.offset)).toEqual([0, 1, 2, 3, 4]);
    expect(await mongo.db(database).collection('perflow_events.archive').countDocuments({ run })).toBe(2);
  });

  it('does not append a keyed event again, also from a writer new to the stream', async () => {
    const run = `log-${randomUUID()}`;
    const first = log();
    await first.open(run, { memory_id: 'm' });
    const started: TimedEvent = { type: 'step_started', index: 0, step: 's', at: new Date().toISOString() };
    expect(await first.append(run, [started], ['exec-1#0'])).toBe(0);
    await first.append(run, [delta(0, 0)]);
    // The same task's events published again: by the same writer, and by another process's.
    expect(await first.append(run, [started], ['exec-1#0'])).toBeUndefined();
    expect(await log().append(run, [started, { ...started, index: 1 }], ['exec-1#0', 'exec-1#1'])).toBe(2);
    const { events } = await log().read(run, 0);
    expect(events.map((e) => `${e.offset}:${e.type}`)).toEqual(['0:step_started', '1:model_delta', '2:step_started']);
    expect(events[2]).toMatchObject({ index: 1 });
  });

  it('appends keyed and unkeyed events in one batch: the keyed ones once, whichever writer comes first, the unkeyed every time', async () => {
    const run = `log-${randomUUID()}`;
    const workflow = log();
    await workflow.open(run, { memory_id: 'm' });
    const finished: TimedEvent = { type: 'step_finished', index: 0, ok: true, result: 'r', at: new Date().toISOString() };
    // The workflow wrote the step's end (a write of its own after the activity took it); the activity's first write carries it too.
    expect(await workflow.append(run, [finished], ['exec-1#3'])).toBe(0);
    expect(await log().append(run, [finished, delta(0, 0, 'a')], ['exec-1#3', undefined])).toBe(1);
    // A retried attempt on another worker writes them again: the step's end is not repeated, its text is.
    expect(await log().append(run, [finished, delta(0, 1, 'b')], ['exec-1#3', undefined])).toBe(2);
    const { events } = await log().read(run, 0);
    expect(events.map((e) => `${e.offset}:${e.type === 'model_delta' ? e.text : e.type}`)).toEqual(['0:step_finished', '1:a', '2:b']);
  });

  it('moves an ended stream to the archive: it reads the same, the live collection keeps only its end (as copies, for the watchers polling it), the offsets go on', async () => {
    const run = `log-${randomUUID()}`;
    const writer = log();
    await writer.open(run, { memory_id: 'm' });
    for (let b = 0; b < 5; b++) await writer.append(run, [delta(0, 2 * b), delta(0, 2 * b + 1)]);
    const before = await log().readAll(run);
    await writer.archiveStream(run);
    await writer.archiveStream(run); // again: nothing left to move
    expect(await log().readAll(run)).toEqual(before);
    expect((await log().readAll(run, 7)).map((e) => e.offset)).toEqual([7, 8, 9]);
    // Its batches of the last seconds (here: all five) are still live, as copies: a reader polling a little behind reads the end there.
    expect((await live(run).find({ run }).toArray()).map((d) => d._id)).toEqual([0, 2, 4, 6, 8].map((n) => `${run}:${n}`));
    expect(await live(run).findOne({ _id: `${run}:copies` } as never)).toMatchObject({ copies_of: run, below: 10 });
    expect((await log().read(run, 4)).events.map((e) => e.offset)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(await mongo.db(database).collection('perflow_events.archive').countDocuments({ run })).toBe(1);
    expect((await log().head(run))?.archived).toEqual({ chunks: 1, next: 10 });
    // A keyed event the archived stream holds is not appended again by a writer new to it (a late watcher ending it).
    const ended: TimedEvent = { type: 'run_finished', status: 'terminated', response: '', at: new Date().toISOString() };
    expect(await log().append(run, [ended], ['ended-without-event'])).toBe(10);
    await log().archiveStream(run);
    expect(await log().append(run, [ended], ['ended-without-event'])).toBeUndefined();
    expect((await log().head(run))?.archived).toEqual({ chunks: 2, next: 11 });
    // A workflow ID used again: a new writer goes on after the archived offsets.
    expect(await log().append(run, [delta(1, 0)])).toBe(11);
    expect((await log().readAll(run)).map((e) => e.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('archives a stream without an update of its head: where it ends is inserted with its chunks; a stream archived before that reads the same', async () => {
    const watched = await new MongoClient(serverEnv().mongoUri, { monitorCommands: true }).connect();
    try {
      const sent: string[] = [];
      watched.on('commandStarted', (e) => sent.push(`${e.commandName} ${String(e.command[e.commandName])}`));
      const writer = new RunEventLog(watched.db(database).collection('perflow_events'));
      const run = `end-${randomUUID()}`;
      await writer.open(run, { memory_id: 'm' });
      await writer.append(run, [delta(0, 0), delta(0, 1)]);
      sent.length = 0;
      await writer.archiveStream(run);
      expect(sent.filter((c) => c.endsWith(' perflow_events') || c.includes('perflow_events.archive'))).toEqual(['insert perflow_events.archive']);
      // Nor of the shard: which batches are copies now is one document inserted there.
      expect(sent.filter((c) => c.includes('perflow_events.live.'))).toEqual(['find', 'insert', 'delete'].map((c) => `${c} ${eventLiveOf('perflow_events', run)}`));
      expect((await live(run).find({ run }).toArray()).map((d) => d._id)).toEqual([`${run}:0`]);
      expect(await live(run).findOne({ _id: `${run}:copies` } as never)).toMatchObject({ copies_of: run, below: 2 });
      // The head as written at the stream's start; readers learn the end from the archive.
      expect(await mongo.db(database).collection('perflow_events').findOne({ _id: run as never })).not.toHaveProperty('archived');
      expect((await log().head(run))?.archived).toEqual({ chunks: 1, next: 2 });
      expect(await log().append(run, [delta(1, 0)])).toBe(2);

      // Archived before ends were inserted: the head says where its archive ends.
      const old = `old-${randomUUID()}`;
      await log().open(old, { memory_id: 'm' });
      const events = [delta(0, 0), delta(0, 1), delta(0, 2)];
      await mongo.db(database).collection('perflow_events.archive').insertOne({ _id: `${old}:0` as never, run: old, batches: [{ first: 0, count: 3, events, created: new Date() }] });
      await mongo.db(database).collection('perflow_events').updateOne({ _id: old as never }, { $set: { archived: { chunks: 1, next: 3 }, next: 3 } });
      expect((await log().head(old))?.archived).toEqual({ chunks: 1, next: 3 });
      expect((await log().readAll(old)).map((e) => e.offset)).toEqual([0, 1, 2]);
      const again = log();
      expect(await again.append(old, [delta(1, 0)])).toBe(3);
      await again.archiveStream(old);
      expect((await log().head(old))?.archived).toEqual({ chunks: 2, next: 4 });
      expect((await log().readAll(old)).map((e) => e.offset)).toEqual([0, 1, 2, 3]);
    } finally {
      await watched.close();
    }
  });

  it('lets an archived stream’s live copy of its end go a minute later, when another stream of its shard ends', async () => {
    const writer = log();
    const first = `copy-${randomUUID()}`;
    let second = `copy-${randomUUID()}`;
    while (eventLiveOf('perflow_events', second) !== eventLiveOf('perflow_events', first)) second = `copy-${randomUUID()}`;
    for (const run of [first, second]) {
      await writer.open(run, { memory_id: 'm' });
      await writer.append(run, [delta(0, 0)]);
    }
    // A batch written more than ten seconds before the stream ended goes with the archiving; the last one stays.
    await writer.append(first, [delta(0, 1)]);
    await live(first).updateOne({ _id: `${first}:0` } as never, { $set: { created: new Date(Date.now() - 11_000) } });
    await writer.archiveStream(first);
    expect((await live(first).find({ run: first }).toArray()).map((d) => d._id)).toEqual([`${first}:1`]);
    await live(first).updateOne({ _id: `${first}:1` } as never, { $set: { created: new Date(Date.now() - 61_000) } });
    await live(first).updateOne({ _id: `${first}:copies` } as never, { $set: { created: new Date(Date.now() - 61_000) } });
    await writer.archiveStream(second);
    expect(await live(first).countDocuments({ $or: [{ run: first }, { copies_of: first }] })).toBe(0);
    expect(await live(second).countDocuments({ run: second })).toBe(1);
    expect((await log().readAll(first)).map((e) => e.offset)).toEqual([0, 1]);
    // Copies marked one by one by a release before go a minute later too.
    const third = `copy-${randomUUID()}`;
    await live(first).insertOne({ _id: `${third}:0`, run: third, first: 0, count: 1, events: [delta(0, 0)], archived_copy: true, created: new Date(Date.now() - 61_000) } as never);
    await writer.append(second, [delta(1, 0)]);
    await writer.archiveStream(second);
    expect(await live(first).countDocuments({ run: third })).toBe(0);
  });

  it('an archiving cut short leaves no batch archived twice: a second look finds the copies said, and a later one sweeps them', async () => {
    const run = `cut-${randomUUID()}`;
    const writer = log();
    await writer.open(run, { memory_id: 'm' });
    for (let b = 0; b < 3; b++) await writer.append(run, [delta(0, b)]);
    await live(run).updateMany({ run } as never, { $set: { created: new Date(Date.now() - 11_000) } });
    // As a worker that died between the copies' document and the delete would leave it.
    const shard = live(run);
    await writer.archiveStream(run);
    await shard.insertMany([0, 1].map((n) => ({ _id: `${run}:${n}`, run, first: n, count: 1, events: [delta(0, n)], created: new Date(Date.now() - 11_000) })) as never);
    await log().archiveStream(run);
    expect((await log().readAll(run)).map((e) => e.offset)).toEqual([0, 1, 2]);
    expect(await mongo.db(database).collection('perflow_events.archive').countDocuments({ run })).toBe(1);
    // A minute on, another stream of the shard ends: the copies go.
    await shard.updateOne({ _id: `${run}:copies` } as never, { $set: { created: new Date(Date.now() - 61_000) } });
    let other = `cut-${randomUUID()}`;
    while (eventLiveOf('perflow_events', other) !== eventLiveOf('perflow_events', run)) other = `cut-${randomUUID()}`;
    await writer.open(other, { memory_id: 'm' });
    await writer.append(other, [delta(0, 0)]);
    await writer.archiveStream(other);
    expect(await shard.countDocuments({ $or: [{ run }, { copies_of: run }] })).toBe(0);
    expect((await log().readAll(run)).map((e) => e.offset)).toEqual([0, 1, 2]);
  });

  it('seals batches with the keys: the documents hold no text of the events, the log reads them', async () => {
    const run = `log-${randomUUID()}`;
    const sealed = log(true);
    await sealed.open(run, { memory_id: 'm' });
    await sealed.append(run, [delta(0, 0, 'the secret answer')]);
    const raw = JSON.stringify(await live(run).find({ run }).toArray());
    expect(raw).toContain('sealed');
    expect(raw).not.toContain('secret');
    expect((await log(true).read(run, 0)).events[0]).toMatchObject({ text: 'the secret answer' });
    await expect(log().read(run, 0)).rejects.toThrow(/encrypted: set PERFLOW_ENCRYPTION_KEYS/);
  });

  it('reads, appends to and archives a stream begun before shards in the events collection, where its batches are', async () => {
    const run = `legacy-${randomUUID()}`;
    const events = mongo.db(database).collection('perflow_events');
    // As a worker before shards left it: a head without `live`, its batches beside it.
    await events.insertOne({ _id: run, memory_id: 'm', next: 0, created: new Date() } as never);
    await events.insertOne({ _id: `${run}:0`, run, first: 0, count: 2, events: [delta(0, 0), delta(0, 1)], created: new Date() } as never);
    expect(await log().append(run, [delta(0, 2)])).toBe(2);
    expect((await log().read(run, 1)).events.map((e) => e.offset)).toEqual([1, 2]);
    expect(await events.countDocuments({ run })).toBe(2);
    expect(await live(run).countDocuments({ run })).toBe(0);
    await log().archiveStream(run);
    expect(await events.countDocuments({ run })).toBe(0);
    expect((await log().readAll(run)).map((e) => e.offset)).toEqual([0, 1, 2]);
  });

  it('keeps each shard to the streams in flight: runs in other shards are not read, ended ones leave', async () => {
    const runs = Array.from({ length: 6 }, () => `shard-${randomUUID()}`);
    const writer = log();
    for (const run of runs) {
      await writer.open(run, { memory_id: 'm' });
      await writer.append(run, [delta(0, 0)]);
    }
    for (const run of runs) {
      expect((await live(run).distinct('run')).filter((r) => runs.includes(r)).sort()).toEqual(runs.filter((r) => eventLiveOf('perflow_events', r) === eventLiveOf('perflow_events', run)).sort());
    }
    // No writer made an index on a shard (DDL, which FerretDB makes every write wait for): a shard's range queries read the runs in flight.
    for (const run of runs) expect((await live(run).indexes()).map((i) => i.name)).toEqual(['_id_']);
    await Promise.all(runs.map((run) => writer.archiveStream(run)));
    // What stays is each stream's end, as a copy, for a minute (the tests before).
    for (const run of runs) expect(await live(run).findOne({ _id: `${run}:copies` } as never)).toMatchObject({ below: 1 });
  });
});
