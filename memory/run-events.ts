/**
 * Runs' event streams in MongoDB, beside their memory (and kept as long as it is).
 *
 * A stream is a chain of batch documents: `<run>:<first>` holds the events at offsets `first` …
 * `first + count - 1`, so the next batch is `<run>:<first + count>`. Writers append by inserting
 * the next batch's `_id`; a writer that loses the race (duplicate key) reads the winner's batch
 * and tries after it, so offsets never skip or repeat. Readers follow the chain with point reads
 * by `_id` — the one lookup every MongoDB-wire server serves without scanning other runs' events
 * (FerretDB filters nothing else in its database). `<run>` alone is the stream's head: its
 * tenant, its memory and a hint of where the chain ends.
 *
 * With encryption keys the events of a batch are stored sealed (`sealed`), else as documents.
 */
import { Binary, MongoBulkWriteError, MongoServerError, type Collection } from 'mongodb';
import type { RunEvent, TimedEvent } from '../core/run-events';
import { eventArchiveOf } from '../core/memory-collections';

/** Seals and opens the events of a batch (the payload codec of PERFLOW_ENCRYPTION_KEYS). */
export interface EventSealer {
  seal(json: string): Promise<Uint8Array>;
  open(sealed: Uint8Array): Promise<string>;
}

export interface StreamHeadDoc {
  _id: string;
  /** The stream was moved to the archive up to offset `next` (its run ended), in `chunks` archive documents. */
  archived?: { chunks: number; next: number };
  memory_id?: string;
  tenant_id?: string;
  /** Where the chain ended when a writer last said (the chain may have grown since). */
  next: number;
  /** Where the latest run under this workflow ID begins (absent: 0). */
  start?: number;
  created: Date;
}

export interface EventBatchDoc {
  _id: string;
  run: string;
  first: number;
  count: number;
  tenant_id?: string;
  /** Keys of workflow events: a workflow task run again publishes them again, and finds them here. */
  keys?: string[];
  events?: TimedEvent[];
  sealed?: Binary;
  created: Date;
}

type StreamDoc = StreamHeadDoc | EventBatchDoc;

/** An ended stream's batches, in order, in the archive collection: `<run>:<chunk>`. */
export interface ArchiveDoc {
  _id: string;
  run: string;
  batches: Array<Omit<EventBatchDoc, '_id' | 'run'>>;
}

/** Batches per archive document (each well under MongoDB's 16 MB). */
const BATCHES_PER_ARCHIVE_DOC = 200;

const DUPLICATE_KEY = 11000;
/** How far back a writer new to a stream looks for workflow events already published. */
const KEY_LOOKBACK_BATCHES = 32;

/** A walk longer than this many batches records its end in the head. */
const HINT_AFTER_STEPS = 8;

/** The `_id` of a stream's batch starting at `first`. */
export const batchId = (run: string, first: number) => `${run}:${first}`;

/** How many workflow-event keys a writer remembers per stream (a re-run task republishes its latest events only). */
const KEYS_REMEMBERED = 512;

/** What a writer knows of a stream: where it ends, whose it is, and the keys of its latest workflow events. */
interface Tail {
  next: number;
  tenant_id?: string;
  keys: Set<string>;
}

function remember(keys: Set<string>, more: readonly string[] | undefined): void {
  for (const k of more ?? []) keys.add(k);
  for (const k of keys) {
    if (keys.size <= KEYS_REMEMBERED) break;
    keys.delete(k);
  }
}

/**
 * Inserts one command at a time: the batches appended while a command is in flight go together
 * in the next (`insertMany`, unordered, each failing or not on its own). A writer alone waits for
 * nothing; a worker streaming many runs sends a few commands instead of one per batch (on
 * FerretDB each command is a transaction of its own).
 */
class GroupInserter {
  private queue: { doc: EventBatchDoc; done: (err?: unknown) => void }[] = [];
  private busy = false;

  constructor(private readonly collection: Collection<StreamDoc>) {}

  insert(doc: EventBatchDoc): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ doc, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, MAX_GROUP);
      try {
        if (group.length === 1) await this.collection.insertOne(group[0].doc);
        else await this.collection.insertMany(group.map((g) => g.doc), { ordered: false });
        for (const g of group) g.done();
      } catch (err) {
        // Unordered: the batches not named in the write errors were inserted.
        const failed = new Map(err instanceof MongoBulkWriteError ? [err.writeErrors].flat().map((e) => [e.index, e] as const) : []);
        group.forEach((g, i) => {
          const writeError = failed.get(i);
          g.done(writeError ? new MongoServerError({ message: writeError.errmsg ?? 'write error', code: writeError.code }) : err instanceof MongoBulkWriteError ? undefined : err);
        });
      }
    }
    this.busy = false;
  }
}

/** The most batches one insert command carries. */
const MAX_GROUP = 100;

export class RunEventLog {
  private readonly tails = new Map<string, Tail>();
  private readonly inserts: GroupInserter;

  constructor(
    readonly collection: Collection<StreamDoc>,
    private readonly sealer?: EventSealer,
    /** Where ended streams are moved, so the collection of live ones stays small (FerretDB scans it on every read). */
    readonly archive: Collection<ArchiveDoc> = collection.db.collection<ArchiveDoc>(eventArchiveOf(collection.collectionName)),
  ) {
    this.inserts = new GroupInserter(collection);
  }

  /** Creates the stream's head (once; a second call keeps the first's). */
  async open(run: string, head: { memory_id: string; tenant_id?: string }): Promise<void> {
    try {
      await this.collection.insertOne({ _id: run, ...head, next: 0, created: new Date() } as StreamHeadDoc);
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
    }
  }

  /**
   * Appends events to a run's stream and returns their first offset (undefined when all were
   * there already). `keys` (one per event) make the append idempotent: events whose key the
   * stream already holds are not appended again.
   */
  async append(run: string, events: TimedEvent[], keys?: string[]): Promise<number | undefined> {
    let tail = this.tails.get(run) ?? (await this.findTail(run, keys !== undefined));
    let pending = events;
    let pendingKeys = keys;
    for (;;) {
      if (pendingKeys) {
        const fresh = pendingKeys.map((k, i) => [k, i] as const).filter(([k]) => !tail.keys.has(k));
        pending = fresh.map(([, i]) => pending[i]);
        pendingKeys = fresh.map(([k]) => k);
        if (pending.length === 0) return undefined;
      }
      const doc: EventBatchDoc = {
        _id: batchId(run, tail.next),
        run,
        first: tail.next,
        count: pending.length,
        ...(tail.tenant_id !== undefined ? { tenant_id: tail.tenant_id } : {}),
        ...(pendingKeys ? { keys: pendingKeys } : {}),
        ...(await this.store(pending)),
        created: new Date(),
      };
      try {
        await this.inserts.insert(doc);
        const first = tail.next;
        tail.next = first + pending.length;
        remember(tail.keys, pendingKeys);
        return first;
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
        // Another writer took this place: go on after its batch.
        tail = await this.walk(run, tail);
      }
    }
  }

  /**
   * Marks where the latest run under this workflow ID begins (a workflow ID used again after its
   * run closed continues the stream): watching without an offset starts there.
   */
  async markStart(run: string, offset: number): Promise<void> {
    await this.collection.updateOne({ _id: run }, { $set: { start: offset } });
  }

  /** Forgets a finished stream's tail (the process keeps no state of ended runs). */
  forget(run: string): void {
    this.tails.delete(run);
  }

  /** The stream's head; undefined when the run has no stream. */
  async head(run: string): Promise<StreamHeadDoc | undefined> {
    const doc = await this.collection.findOne({ _id: run });
    return (doc as StreamHeadDoc | null) ?? undefined;
  }

  /**
   * The events from `offset` on that are there now, in order, from at most `limit` batches, and
   * where the next read goes on (`batch`: the start of the next batch; `more`: the limit cut the
   * read, read again). A reader passes `batch` back; without it the batch holding `offset` is
   * looked up.
   */
  async read(run: string, offset: number, batch?: number, limit = 64): Promise<{ events: RunEvent[]; batch?: number; more?: true }> {
    const events: RunEvent[] = [];
    let start = batch ?? (offset === 0 ? 0 : await this.batchStartOf(run, offset));
    if (start === undefined) return { events };
    for (let i = 0; i < limit; i++) {
      const doc = (await this.collection.findOne({ _id: batchId(run, start) })) as EventBatchDoc | null;
      if (!doc) return { events, batch: start };
      events.push(...(await this.batchEvents(doc, offset)));
      start = doc.first + doc.count;
    }
    return { events, batch: start, more: true };
  }

  /** The events of a stored batch from `offset` on (a batch read here, or fetched for many watches at once). */
  async batchEvents(doc: EventBatchDoc, offset: number): Promise<RunEvent[]> {
    return (await this.eventsOf(doc)).flatMap((e, j) => (doc.first + j >= offset ? [{ offset: doc.first + j, ...e } as RunEvent] : []));
  }

  /**
   * Moves an ended stream's batches to the archive (idempotent: a second call finds them moved).
   * Writers and readers of live streams then scan only the runs in flight.
   */
  async archiveStream(run: string): Promise<void> {
    const batches = ((await this.collection.find({ run } as object).toArray()) as EventBatchDoc[]).sort((a, b) => a.first - b.first);
    if (batches.length === 0) return;
    const head = await this.head(run);
    const chunks = Math.ceil(batches.length / BATCHES_PER_ARCHIVE_DOC);
    const earlier = head?.archived?.chunks ?? 0; // a workflow ID used again: its earlier runs' chunks come first
    for (let k = 0; k < chunks; k++) {
      const part = batches.slice(k * BATCHES_PER_ARCHIVE_DOC, (k + 1) * BATCHES_PER_ARCHIVE_DOC).map(({ _id: _i, run: _r, ...b }) => b);
      await this.archive.replaceOne({ _id: batchId(run, earlier + k) }, { run, batches: part }, { upsert: true });
    }
    const end = batches.at(-1)!.first + batches.at(-1)!.count;
    // A workflow ID used again goes on after the archived offsets.
    await this.collection.updateOne({ _id: run }, { $set: { archived: { chunks: earlier + chunks, next: end } }, $max: { next: end } });
    await this.collection.deleteMany({ _id: { $in: batches.map((b) => b._id) } });
    this.tails.delete(run);
  }

  /** Every event there is now from `offset` on, archived and live (a finished run's, a test's look). */
  async readAll(run: string, offset = 0): Promise<RunEvent[]> {
    const head = await this.head(run);
    const archived = head?.archived && offset < head.archived.next ? await this.readArchived(run, offset) : [];
    const from = Math.max(offset, head?.archived?.next ?? 0);
    return [...archived, ...(await this.read(run, from, undefined, 100_000)).events];
  }

  /** The events from `offset` on of an archived stream (all of them: it has ended). */
  async readArchived(run: string, offset: number): Promise<RunEvent[]> {
    const chunks = (await this.head(run))?.archived?.chunks ?? 0;
    const events: RunEvent[] = [];
    for (let k = 0; k < chunks; k++) {
      const doc = await this.archive.findOne({ _id: batchId(run, k) });
      for (const batch of doc?.batches ?? []) {
        if (batch.first + batch.count > offset) events.push(...(await this.batchEvents({ _id: '', run, ...batch }, offset)));
      }
    }
    return events;
  }

  /** The start of the batch holding `offset` (a reader re-attaching mid-stream); undefined when no batch holds it yet. */
  private async batchStartOf(run: string, offset: number): Promise<number | undefined> {
    const doc = await this.collection.findOne({ run, first: { $lte: offset } } as object, { sort: { first: -1 }, projection: { first: 1, count: 1 } });
    if (!doc) return undefined;
    const { first, count } = doc as EventBatchDoc;
    return offset < first + count ? first : first + count;
  }

  private async store(events: TimedEvent[]): Promise<Pick<EventBatchDoc, 'events' | 'sealed'>> {
    if (!this.sealer) return { events };
    return { sealed: new Binary(await this.sealer.seal(JSON.stringify(events))) };
  }

  private async eventsOf(doc: EventBatchDoc): Promise<TimedEvent[]> {
    if (doc.sealed) {
      if (!this.sealer) throw new Error(`the events of run ${doc.run} are encrypted: set PERFLOW_ENCRYPTION_KEYS to read them`);
      return JSON.parse(await this.sealer.open(doc.sealed.buffer)) as TimedEvent[];
    }
    return doc.events ?? [];
  }

  /**
   * A writer's first look at a stream: the head's hint, then the chain from there; a writer of
   * workflow events also reads the keys of the batches before the hint.
   */
  private async findTail(run: string, lookBack: boolean): Promise<Tail> {
    const head = await this.head(run);
    const start: Tail = { next: head?.next ?? 0, ...(head?.tenant_id !== undefined ? { tenant_id: head.tenant_id } : {}), keys: new Set() };
    if (lookBack && start.next > 0) {
      const earlier = await this.collection
        .find({ run, first: { $lt: start.next } } as object, { sort: { first: -1 }, limit: KEY_LOOKBACK_BATCHES, projection: { keys: 1 } })
        .toArray();
      for (const d of earlier.reverse()) remember(start.keys, (d as EventBatchDoc).keys);
    }
    const tail = await this.walk(run, start);
    this.tails.set(run, tail);
    return tail;
  }

  /**
   * Follows the chain from `tail.next` to its end, remembering the workflow events it passes. A
   * long walk records where it ended in the head, so the next writer new to the stream starts
   * near it (writers that know the stream never read the head: on FerretDB every write by `_id`
   * is a scan of the collection).
   */
  private async walk(run: string, tail: Tail): Promise<Tail> {
    for (let steps = 0; ; steps++) {
      const doc = (await this.collection.findOne({ _id: batchId(run, tail.next) }, { projection: { first: 1, count: 1, keys: 1 } })) as EventBatchDoc | null;
      if (!doc) {
        if (steps > HINT_AFTER_STEPS) await this.collection.updateOne({ _id: run }, { $max: { next: tail.next } });
        return tail;
      }
      remember(tail.keys, doc.keys);
      tail.next = doc.first + doc.count;
    }
  }
}
