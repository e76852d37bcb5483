/**
 * Runs' event streams in MongoDB, beside their memory (and kept as long as it is).
 *
 * A stream is a chain of batch documents: `<run>:<first>` holds the events at offsets `first` …
 * `first + count - 1`, so the next batch is `<run>:<first + count>`. Writers append by inserting
 * the next batch's `_id`; a writer that loses the race (duplicate key) reads the winner's batch
 * and tries after it, so offsets never skip or repeat. Readers follow the chain with point reads
 * by `_id`.
 *
 * While a run is in flight its batches live in one of a few hundred shard collections
 * (`<events>.live.<xx>`, core/memory-collections.ts); when it ends they move to the archive
 * (`<events>.archive`) and leave the shard. Every read of a live stream thus touches the events of
 * the few runs in its shard only: FerretDB answers a query by scanning the collection (even by
 * `_id`), so a single collection of every run's batches made each read cost all runs' events. The
 * events collection itself holds the streams' heads (`<run>`: tenant, memory, where the chain
 * ended, where its live batches are) and the batches of streams begun before shards; the archive
 * holds, beside an ended stream's chunks, where they end (`<run>:end`), inserted with them: no
 * head is updated when a run ends.
 *
 * With encryption keys the events of a batch are stored sealed (`sealed`), else as documents.
 *
 * Over 300 lines on purpose: one idea, the chain's layout, which its writers, readers and archive
 * must read alike (offsets never skip or repeat, wherever a batch is).
 */
import type { Binary, Collection } from 'mongodb';
import { mongoDriver } from './mongodb-driver';
import { isDuplicateKey } from './duplicate-key';
import { Inserts } from './insert-batches';
import type { RunEvent, StreamHead, TimedEvent } from '../core/run-events';
import { eventArchiveOf, eventLiveOf } from '../core/memory-collections';

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
  /** The collection holding the stream's live batches (absent: the events collection, for streams begun before shards). */
  live?: string;
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
  /** Marked by releases before {@link CopiesDoc}: the stream was archived, this batch is a copy kept a minute. */
  archived_copy?: true;
  created: Date;
}

type StreamDoc = StreamHeadDoc | EventBatchDoc;

/**
 * In a live shard, which batches of an archived stream are copies kept a minute for the watchers
 * polling it (`<run>:copies`, never a batch's `_id`): those below offset `below`. Inserted when
 * the stream is archived, rather than an update marking each batch: FerretDB finds each
 * document an update names by scanning the collection.
 */
export interface CopiesDoc {
  _id: string;
  copies_of: string;
  below: number;
  created: Date;
}

type ShardDoc = EventBatchDoc | CopiesDoc;
const isCopies = (d: ShardDoc): d is CopiesDoc => 'copies_of' in d;

/** The `_id` of a stream's {@link CopiesDoc}. */
const copiesId = (run: string) => `${run}:copies`;

/** An ended stream's batches, in order, in the archive collection: `<run>:<chunk>`. */
export interface ArchiveDoc {
  _id: string;
  run: string;
  batches: Array<Omit<EventBatchDoc, '_id' | 'run'>>;
}

/**
 * Where an ended stream's archive ends, beside its chunks (`<run>:end`, never a chunk's `_id`):
 * inserted with them, so archiving updates no head — FerretDB finds the document an update
 * names by scanning its collection, and the heads are one per run ever.
 */
export interface ArchiveEndDoc {
  _id: string;
  archived: { chunks: number; next: number };
}

/** The `_id` of a stream's {@link ArchiveEndDoc}. */
const archiveEndId = (run: string) => `${run}:end`;

/** How long an archived stream's latest batches stay live for the watchers polling it. */
const ARCHIVED_COPY_MS = 60_000;
/** Which batches stay: those written this long before the stream ended (and always its last). */
const ARCHIVED_COPY_RECENT_MS = 10_000;

/** Batches per archive document (each well under MongoDB's 16 MB). */
const BATCHES_PER_ARCHIVE_DOC = 200;

/** How far back a writer new to a stream looks for workflow events already published. */
const KEY_LOOKBACK_BATCHES = 32;

/** How many streams' live collections a log remembers (beyond, the oldest is read from its head again). */
const LIVES_REMEMBERED = 4_096;

/** A walk longer than this many batches records its end in the head. */
const HINT_AFTER_STEPS = 8;

/** The `_id` of a stream's batch starting at `first`. */
export const batchId = (run: string, first: number) => `${run}:${first}`;

/** How many workflow-event keys a writer remembers per stream (a re-run task republishes its latest events only). */
const KEYS_REMEMBERED = 512;

/** What a writer knows of a stream: where its batches are, where it ends, whose it is, and the keys of its latest workflow events. */
interface Tail {
  batches: Collection<EventBatchDoc>;
  next: number;
  tenant_id?: string;
  keys: Set<string>;
  /** How many archive documents the stream's earlier runs filled, as its head said (a workflow ID used again); undefined: not read (archiving reads the head). */
  archivedChunks?: number;
}

function remember(keys: Set<string>, more: readonly string[] | undefined): void {
  for (const k of more ?? []) keys.add(k);
  for (const k of keys) {
    if (keys.size <= KEYS_REMEMBERED) break;
    keys.delete(k);
  }
}

export class RunEventLog {
  private readonly tails = new Map<string, Tail>();
  /** Where each stream read or written here keeps its live batches (from its head). */
  private readonly lives = new Map<string, Collection<EventBatchDoc>>();

  constructor(
    /** The streams' heads (and the batches of streams begun before shards). */
    readonly collection: Collection<StreamDoc>,
    private readonly sealer?: EventSealer,
    /** Where ended streams are moved, so the live shards hold the runs in flight only. */
    readonly archive: Collection<ArchiveDoc> = collection.db.collection<ArchiveDoc>(eventArchiveOf(collection.collectionName)),
    /** Inserts of many writers into a collection go together (shared with the memory store's). */
    private readonly inserts: Inserts = new Inserts(),
  ) {}

  /** The archive collection as it holds the ends of archived streams beside their chunks. */
  private get archiveEnds(): Collection<ArchiveDoc | ArchiveEndDoc> {
    return this.archive as Collection<ArchiveDoc | ArchiveEndDoc>;
  }

  /** Creates the stream's head (once; a second call keeps the first's). */
  async open(run: string, head: { memory_id: string; tenant_id?: string }): Promise<void> {
    const live = eventLiveOf(this.collection.collectionName, run);
    const [there] = await this.inserts.insert(this.collection, [{ _id: run, ...head, live, next: 0, created: new Date() } as StreamHeadDoc]);
    if (there !== undefined) return;
    // A new stream: its writer here knows where it ends without reading the head or the chain.
    this.tails.set(run, await this.startTail(run, { live, next: 0, ...head }));
  }

  /**
   * Writes a run's own events: with `head`, its stream's first (the head, then them — where a
   * workflow ID used again begins its new run, see {@link markStart}); archiving the stream once
   * they end the run (`run_finished`).
   */
  async publish(run: string, events: TimedEvent[], keys: readonly (string | undefined)[], head?: StreamHead): Promise<void> {
    if (head) await this.open(run, head);
    const first = await this.append(run, events, keys);
    if (head && first !== undefined && first > 0) await this.markStart(run, first);
    if (events.some((e) => e.type === 'run_finished')) await this.archiveStream(run);
  }

  /**
   * Appends events to a run's stream and returns their first offset (undefined when all were
   * there already). `keys` (one per event; undefined for an event without one) make the append
   * idempotent: events whose key the stream already holds are not appended again.
   */
  async append(run: string, events: TimedEvent[], keys?: readonly (string | undefined)[]): Promise<number | undefined> {
    let tail = this.tails.get(run) ?? (await this.findTail(run, keys !== undefined));
    let pending = events;
    let pendingKeys = keys;
    for (;;) {
      if (pendingKeys) {
        const fresh = pendingKeys.map((k, i) => [k, i] as const).filter(([k]) => k === undefined || !tail.keys.has(k));
        pending = fresh.map(([, i]) => pending[i]);
        pendingKeys = fresh.map(([k]) => k);
        if (pending.length === 0) return undefined;
      }
      const keyed = pendingKeys?.filter((k) => k !== undefined);
      const doc: EventBatchDoc = {
        _id: batchId(run, tail.next),
        run,
        first: tail.next,
        count: pending.length,
        ...(tail.tenant_id !== undefined ? { tenant_id: tail.tenant_id } : {}),
        ...(keyed?.length ? { keys: keyed } : {}),
        ...(await this.store(pending)),
        created: new Date(),
      };
      const [there] = await this.inserts.insert(tail.batches, [doc]);
      if (there === undefined) {
        // The tail is shared by the process's writers of the stream (parallel steps, the run's own
        // events): another may have moved it meanwhile. Where this batch went is its own `first`.
        tail.next = Math.max(tail.next, doc.first + doc.count);
        remember(tail.keys, keyed);
        return doc.first;
      }
      // Another writer took this place: go on after its batch.
      tail = await this.walk(run, tail);
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
    this.lives.delete(run);
  }

  /** The stream's head, with where its archive ends (streams archived before ends were kept apart say it in the head); undefined when the run has no stream. */
  async head(run: string): Promise<StreamHeadDoc | undefined> {
    const [doc, end] = await Promise.all([this.collection.findOne({ _id: run }) as Promise<StreamHeadDoc | null>, this.archiveEnds.findOne({ _id: archiveEndId(run) }) as Promise<ArchiveEndDoc | null>]);
    if (!doc || !end) return doc ?? undefined;
    const archived = doc.archived && doc.archived.chunks > end.archived.chunks ? doc.archived : end.archived;
    return { ...doc, archived, next: Math.max(doc.next, archived.next) };
  }

  /**
   * The events from `offset` on that are there now, in order, from at most `limit` batches, and
   * where the next read goes on (`batch`: the start of the next batch; `more`: the limit cut the
   * read, read again). A reader passes `batch` back; without it the batch holding `offset` is
   * looked up.
   */
  async read(run: string, offset: number, batch?: number, limit = 64): Promise<{ events: RunEvent[]; batch?: number; more?: true }> {
    const events: RunEvent[] = [];
    const batches = await this.liveOf(run);
    const found = batch ?? (offset === 0 ? 0 : await this.batchStartOf(batches, run, offset));
    if (found === undefined) return { events };
    let start = found;
    for (let i = 0; i < limit; i++) {
      const doc: EventBatchDoc | null = await batches.findOne({ _id: batchId(run, start) });
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
    const batches = await this.liveOf(run);
    const sharded = batches.collectionName !== this.collection.collectionName;
    const shard = batches as unknown as Collection<ShardDoc>;
    const expiredBefore = new Date(Date.now() - ARCHIVED_COPY_MS);
    // One look at the shard (FerretDB scans it for any filter; it holds the runs in flight): the
    // stream's batches, how far they were archived already, and other streams' copies past their minute.
    const found = await shard.find(sharded ? { $or: [{ run }, { _id: copiesId(run) }, { copies_of: { $exists: true }, created: { $lt: expiredBefore } }] } : { run }).toArray();
    const copies = found.filter(isCopies);
    const archivedBelow = copies.find((c) => c._id === copiesId(run))?.below ?? 0;
    const docs = found
      .filter((d): d is EventBatchDoc => !isCopies(d) && d.run === run && !d.archived_copy && d.first >= archivedBelow)
      .sort((a, b) => a.first - b.first);
    if (docs.length === 0) return;
    const chunks = Math.ceil(docs.length / BATCHES_PER_ARCHIVE_DOC);
    // A workflow ID used again: its earlier runs' chunks come first (a writer of the stream knows how many from its head).
    const earlier = this.tails.get(run)?.archivedChunks ?? (await this.head(run))?.archived?.chunks ?? 0;
    const end = docs.at(-1)!.first + docs.at(-1)!.count;
    const written: Array<ArchiveDoc | ArchiveEndDoc> = Array.from({ length: chunks }, (_, k) => ({
      _id: batchId(run, earlier + k),
      run,
      batches: docs.slice(k * BATCHES_PER_ARCHIVE_DOC, (k + 1) * BATCHES_PER_ARCHIVE_DOC).map(({ _id: _i, run: _r, ...b }) => b),
    }));
    // Where it ends, in the same insert (a workflow ID used again goes on after the archived offsets: see `head`).
    written.push({ _id: archiveEndId(run), archived: { chunks: earlier + chunks, next: end } });
    // Inserted (the archive only grows); what an archive cut short, or a workflow ID's earlier run, left there is written again.
    for (const i of await this.inserts.insert(this.archiveEnds, written)) await this.archiveEnds.replaceOne({ _id: written[i]._id }, written[i]);
    if (!sharded) {
      // A stream begun before shards: its batches sit beside every head, and go at once.
      await batches.deleteMany({ run, first: { $lt: end } });
    } else {
      // The archive holds them all: from here the shard's batches below `end` are copies. Said
      // before any goes, so an archiving cut short here leaves copies for the sweep below, never a
      // batch archived twice.
      const marker: CopiesDoc = { _id: copiesId(run), copies_of: run, below: end, created: new Date() };
      await shard.insertOne(marker).catch(async (err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
        await shard.replaceOne({ _id: marker._id }, marker);
      });
      // Its latest batches (the run's end, and what came in the seconds before it) stay live a
      // minute: a watcher polling the stream, even a little behind, reads the end where it looks
      // rather than noticing the move at its next check of the run seconds later. A batch stays
      // where it is until the archive holds it, so a writer behind the stream's end meets it
      // (duplicate key) rather than taking its offset. The copies of streams archived over a
      // minute ago go in the same command.
      const recent = Date.now() - ARCHIVED_COPY_RECENT_MS;
      const kept = docs.findIndex((d, i) => i === docs.length - 1 || d.created.getTime() >= recent);
      const expired = copies.filter((c) => c.copies_of !== run);
      await shard.deleteMany({
        $or: [
          { run, first: { $lt: docs[kept].first } },
          ...expired.map((c) => ({ run: c.copies_of, first: { $lt: c.below } })),
          ...(expired.length > 0 ? [{ _id: { $in: expired.map((c) => c._id) } }] : []),
          // Copies marked by releases before.
          { archived_copy: true, created: { $lt: expiredBefore } },
        ],
      });
    }
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
  private async batchStartOf(batches: Collection<EventBatchDoc>, run: string, offset: number): Promise<number | undefined> {
    const doc = await batches.findOne({ run, first: { $lte: offset } }, { sort: { first: -1 }, projection: { first: 1, count: 1 } });
    if (!doc) return undefined;
    const { first, count } = doc;
    return offset < first + count ? first : first + count;
  }

  /** The collection of a stream's live batches, as its head says (one head read per stream and process). */
  private async liveOf(run: string): Promise<Collection<EventBatchDoc>> {
    return this.lives.get(run) ?? this.liveFrom(run, await this.head(run));
  }

  /** The live batches' collection a head names: before shards the events collection; a stream not opened yet, its shard. */
  private liveFrom(run: string, head: Pick<StreamHeadDoc, 'live'> | undefined): Collection<EventBatchDoc> {
    const name = head ? (head.live ?? this.collection.collectionName) : eventLiveOf(this.collection.collectionName, run);
    const batches = this.collection.db.collection<EventBatchDoc>(name);
    if (head) {
      // A server watching runs for days keeps the latest streams' only.
      if (this.lives.size >= LIVES_REMEMBERED) this.lives.delete(this.lives.keys().next().value as string);
      this.lives.set(run, batches);
    }
    return batches;
  }

  private async store(events: TimedEvent[]): Promise<Pick<EventBatchDoc, 'events' | 'sealed'>> {
    if (!this.sealer) return { events };
    return { sealed: new (mongoDriver().Binary)(await this.sealer.seal(JSON.stringify(events))) };
  }

  private async eventsOf(doc: EventBatchDoc): Promise<TimedEvent[]> {
    if (doc.sealed) {
      if (!this.sealer) throw new Error(`the events of run ${doc.run} are encrypted: set PERFLOW_ENCRYPTION_KEYS to read them`);
      return JSON.parse(await this.sealer.open(doc.sealed.buffer)) as TimedEvent[];
    }
    return doc.events ?? [];
  }

  /** What a head says of where a stream's batches are, where it ends and whose it is (its shard's index made sure of). */
  private async startTail(run: string, head: Pick<StreamHeadDoc, 'live' | 'next' | 'tenant_id' | 'archived'> | undefined): Promise<Tail> {
    // A shard has no index of its own: it holds the runs in flight only, which its range queries
    // (re-attaching, a writer's look back, the archive's `{run}`) read whole cheaply anywhere, while
    // creating one (once per shard and process) is DDL, which FerretDB makes every write wait for.
    const batches = this.liveFrom(run, head);
    return { batches, next: head?.next ?? 0, ...(head?.tenant_id !== undefined ? { tenant_id: head.tenant_id } : {}), keys: new Set(), archivedChunks: head?.archived?.chunks ?? 0 };
  }

  /**
   * A writer's first look at a stream (another worker's, or this one's after a restart): its
   * latest batches in its shard, else its head.
   */
  private async findTail(run: string, lookBack: boolean): Promise<Tail> {
    const tail = (await this.tailInShard(run)) ?? (await this.tailFromHead(run, lookBack));
    this.tails.set(run, tail);
    return tail;
  }

  /**
   * A stream in flight from its latest batches in the shard its workflow ID hashes to, in one
   * query over the runs in flight there: no read of the heads or the archive, which hold every
   * run ever (FerretDB scans them even for an `_id`). Where the shard holds none of the stream
   * (not written yet, archived a minute ago, begun before shards or under another shard count),
   * undefined. The keys of the latest batches come with it (a workflow task run again publishes
   * its latest events again); a writer behind the end meets the next batch when it appends
   * (duplicate key) and walks on from there. When the whole stream is there from offset 0, none
   * of it a copy, no earlier run under the workflow ID was archived: archiving it reads no head.
   */
  private async tailInShard(run: string): Promise<Tail | undefined> {
    const shard = this.collection.db.collection<ShardDoc>(eventLiveOf(this.collection.collectionName, run));
    const found = await shard
      .find({ $or: [{ run }, { _id: copiesId(run) }] }, { sort: { first: -1 }, limit: KEY_LOOKBACK_BATCHES + 1, projection: { first: 1, count: 1, keys: 1, tenant_id: 1, archived_copy: 1, copies_of: 1 } })
      .toArray();
    const latest = found.filter((d): d is EventBatchDoc => !isCopies(d)).reverse();
    if (latest.length === 0) return undefined;
    const keys = new Set<string>();
    for (const d of latest) remember(keys, d.keys);
    const end = latest.at(-1)!;
    const whole = found.length <= KEY_LOOKBACK_BATCHES && latest.length === found.length && latest[0].first === 0 && !latest.some((d) => d.archived_copy);
    const batches = this.liveFrom(run, { live: shard.collectionName });
    return { batches, next: end.first + end.count, ...(end.tenant_id !== undefined ? { tenant_id: end.tenant_id } : {}), keys, ...(whole ? { archivedChunks: 0 } : {}) };
  }

  /** The head's hint, then the chain from there; a writer of workflow events also reads the keys of the batches before the hint. */
  private async tailFromHead(run: string, lookBack: boolean): Promise<Tail> {
    const head = await this.head(run);
    const start = await this.startTail(run, head);
    const { batches } = start;
    if (lookBack && start.next > 0) {
      // An archived stream's latest keys are in its last archive document (a writer new to it: a late watcher, a workflow ID used again).
      if (head?.archived) {
        const last = await this.archive.findOne({ _id: batchId(run, head.archived.chunks - 1) }, { projection: { batches: 1 } });
        for (const b of (last?.batches ?? []).slice(-KEY_LOOKBACK_BATCHES)) remember(start.keys, b.keys);
      }
      const earlier = await batches.find({ run, first: { $lt: start.next } }, { sort: { first: -1 }, limit: KEY_LOOKBACK_BATCHES, projection: { keys: 1 } }).toArray();
      for (const d of earlier.reverse()) remember(start.keys, d.keys);
    }
    return this.walk(run, start);
  }

  /**
   * Follows the chain from `tail.next` to its end, remembering the workflow events it passes. A
   * long walk records where it ended in the head, so the next writer new to the stream starts
   * near it (writers that know the stream never read the head: on FerretDB every write by `_id`
   * is a scan of the collection).
   */
  private async walk(run: string, tail: Tail): Promise<Tail> {
    for (let steps = 0; ; steps++) {
      const doc = await tail.batches.findOne({ _id: batchId(run, tail.next) }, { projection: { first: 1, count: 1, keys: 1 } });
      if (!doc) {
        if (steps > HINT_AFTER_STEPS) await this.collection.updateOne({ _id: run }, { $max: { next: tail.next } });
        return tail;
      }
      remember(tail.keys, doc.keys);
      tail.next = Math.max(tail.next, doc.first + doc.count);
    }
  }
}
