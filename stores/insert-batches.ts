/**
 * Group commit for inserts: while an insert into a collection is in flight, the inserts that
 * arrive for it wait and then go together, one command for all of them (unordered, so one
 * document's failure is its caller's only). A worker running many runs at once thus sends
 * MongoDB one insert where it would send one per activity — fewer commands, each costing the
 * worker, the server and the wire about the same whatever it holds — and adds no wait when
 * nothing else is being inserted there.
 */
import type { Collection, Document } from 'mongodb';
import { mongoDriver } from './mongodb-driver';
import { DUPLICATE_KEY } from './duplicate-key';

/** Documents one command carries at most (the driver splits by bytes itself). */
const DOCS_PER_COMMAND = 500;

/** How long a command in flight holds back the inserts waiting behind it. */
const STUCK_MS = 5_000;

/** A document of an insert that failed for another reason than being there already. */
export class InsertError extends Error {
  constructor(
    readonly namespace: string,
    readonly code: number | undefined,
    message: string,
  ) {
    super(`insert into ${namespace} failed: ${message}`);
    this.name = 'InsertError';
  }
}

interface Waiting {
  docs: readonly Document[];
  done: (duplicates: number[]) => void;
  fail: (err: unknown) => void;
}

/**
 * The inserts into one collection, sent one command at a time. A command in flight longer than
 * {@link STUCK_MS} stops holding the others back: a connection that hangs delays its own callers,
 * never every insert of the collection after it.
 */
class InsertBatches {
  private waiting: Waiting[] = [];
  /** Commands in flight for less than STUCK_MS (0 or 1). */
  private holding = 0;

  constructor(
    private readonly collection: Collection<Document>,
    private readonly stuckMs: number,
  ) {}

  insert(docs: readonly Document[]): Promise<number[]> {
    if (docs.length === 0) return Promise.resolve([]);
    return new Promise((done, fail) => {
      this.waiting.push({ docs, done, fail });
      this.send();
    });
  }

  private send(): void {
    if (this.holding > 0 || this.waiting.length === 0) return;
    this.holding++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.holding--;
      this.send();
    };
    const stuck = setTimeout(release, this.stuckMs);
    stuck.unref();
    void this.insertAll(this.take()).finally(() => {
      clearTimeout(stuck);
      release();
    });
  }

  /** The waiting inserts up to one command's worth (always at least one, whatever its size). */
  private take(): Waiting[] {
    let docs = 0;
    let n = 0;
    while (n < this.waiting.length && (n === 0 || docs + this.waiting[n].docs.length <= DOCS_PER_COMMAND)) docs += this.waiting[n++].docs.length;
    return this.waiting.splice(0, n);
  }

  private async insertAll(batch: Waiting[]): Promise<void> {
    try {
      await this.collection.insertMany(
        batch.flatMap((w) => w.docs),
        { ordered: false },
      );
      batch.forEach((w) => w.done([]));
    } catch (err) {
      const { MongoBulkWriteError, MongoNetworkError, MongoServerSelectionError } = mongoDriver();
      const errors = err instanceof MongoBulkWriteError && !err.result?.getWriteConcernError() ? [err.writeErrors].flat() : [];
      if (errors.length === 0) {
        // Nothing says which documents failed. The connection or the server gone: whether any was
        // written is unknown, and every caller fails as its own insert would have (a caller that
        // sent it again now could take its own write for another writer's). Else nothing was
        // written (a document the driver refused): each caller's insert goes again on its own.
        if (batch.length > 1 && !(err instanceof MongoNetworkError || err instanceof MongoServerSelectionError)) return void (await Promise.all(batch.map((w) => this.insertAll([w]))));
        return batch.forEach((w) => w.fail(err));
      }
      let first = 0;
      for (const w of batch) {
        const own = errors.filter((e) => e.index >= first && e.index < first + w.docs.length);
        const other = own.find((e) => e.code !== DUPLICATE_KEY);
        if (other) w.fail(new InsertError(this.collection.namespace, other.code, other.errmsg ?? String(other.code)));
        else w.done(own.map((e) => e.index - first));
        first += w.docs.length;
      }
    }
  }
}

/**
 * Inserts into any of a database's collections through one {@link InsertBatches} each. Resolves
 * to the positions of the documents whose `_id` was there already (not written; the others were);
 * rejects when the command failed, or with an {@link InsertError} when one of the caller's
 * documents failed otherwise.
 */
export class Inserts {
  private readonly batches = new Map<string, InsertBatches>();

  constructor(private readonly stuckMs = STUCK_MS) {}

  insert<T extends Document>(collection: Collection<T>, docs: readonly T[]): Promise<number[]> {
    let batches = this.batches.get(collection.namespace);
    if (!batches) this.batches.set(collection.namespace, (batches = new InsertBatches(collection as unknown as Collection<Document>, this.stuckMs)));
    return batches.insert(docs);
  }
}
