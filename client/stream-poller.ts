/**
 * Many watches in one process (the console's streams, a benchmark's watchers) wait for their
 * runs' next batches together: a tick's queries fetch, for every watched run, the batches from
 * the one its watch waits for on — so a watch reads nothing on its own while it follows a run.
 * On FerretDB each query scans the live event streams, so the number of queries, not their
 * size, is what costs.
 */
import type { Collection, MongoClient } from 'mongodb';
import { batchId, type EventBatchDoc } from '../memory/run-events';

interface Waiter {
  run: string;
  first: number;
  arrived: (batches: EventBatchDoc[]) => void;
}

class StreamPoller {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly collection: Collection<EventBatchDoc>,
    private readonly intervalMs: number,
  ) {}

  /**
   * The run's batches from the one starting at offset `first` on, in order, once it exists; []
   * after `timeoutMs` (or when `signal` aborts).
   */
  wait(run: string, first: number, timeoutMs: number, signal?: AbortSignal): Promise<EventBatchDoc[]> {
    return new Promise((resolve) => {
      const done = (batches: EventBatchDoc[] = []) => {
        clearTimeout(timeout);
        this.waiters.delete(waiter);
        signal?.removeEventListener('abort', aborted);
        resolve(batches);
      };
      const waiter: Waiter = { run, first, arrived: done };
      const timeout = setTimeout(() => done(), timeoutMs);
      const aborted = () => done();
      signal?.addEventListener('abort', aborted, { once: true });
      this.waiters.add(waiter);
      this.timer ??= setTimeout(() => void this.tick(), this.intervalMs);
    });
  }

  private async tick(): Promise<void> {
    try {
      // Each watch's next batch by `_id` (FerretDB filters on `_id` in SQLite, anything else in
      // Go), then the batches after those that were there, until a round finds none.
      const chains = new Map<Waiter, EventBatchDoc[]>();
      let wanted = new Map<string, Waiter[]>();
      for (const w of this.waiters) wanted.set(batchId(w.run, w.first), [...(wanted.get(batchId(w.run, w.first)) ?? []), w]);
      for (let round = 0; round < MAX_ROUNDS && wanted.size > 0; round++) {
        const found = await this.collection.find({ _id: { $in: [...wanted.keys()] } }).toArray();
        const next = new Map<string, Waiter[]>();
        for (const doc of found) {
          const waiters = wanted.get(doc._id) ?? [];
          for (const w of waiters) chains.set(w, [...(chains.get(w) ?? []), doc]);
          next.set(batchId(doc.run, doc.first + doc.count), waiters);
        }
        wanted = next;
      }
      for (const [w, chain] of chains) w.arrived(chain);
    } catch {
      // the watches' own reads report a lost connection; the next tick tries again
    } finally {
      // Idle without waiters: nothing keeps the process alive.
      this.timer = this.waiters.size > 0 ? setTimeout(() => void this.tick(), this.intervalMs) : undefined;
    }
  }
}

/** Queries of one tick at most: a watch gets up to this many batches a tick (the rest the next). */
const MAX_ROUNDS = 8;

const pollers = new WeakMap<MongoClient, Map<string, StreamPoller>>();

/** The poller of a collection of a MongoDB client: shared by every watch through that client. */
export function streamPoller(mongo: MongoClient, collection: Collection<EventBatchDoc>, intervalMs: number): StreamPoller {
  let byName = pollers.get(mongo);
  if (!byName) pollers.set(mongo, (byName = new Map()));
  const key = `${collection.dbName}.${collection.collectionName}@${intervalMs}`;
  let poller = byName.get(key);
  if (!poller) byName.set(key, (poller = new StreamPoller(collection, intervalMs)));
  return poller;
}
