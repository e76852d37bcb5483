/**
 * Many watches in one process (the console's streams, a benchmark's watchers) wait for their
 * runs' next batches together: one query a tick for all of them (`_id` in the batches they wait
 * for) instead of one per watch — on FerretDB each query scans the live event streams, so the
 * number of queries, not their size, is what costs.
 */
import type { Collection, MongoClient } from 'mongodb';

interface Waiter {
  id: string;
  arrived: () => void;
}

class StreamPoller {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly collection: Collection<{ _id: string }>,
    private readonly intervalMs: number,
  ) {}

  /** Resolves when the batch `id` exists, or after `timeoutMs` (or when `signal` aborts). */
  wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiter: Waiter = { id, arrived: () => done() };
      const timeout = setTimeout(() => done(), timeoutMs);
      const done = () => {
        clearTimeout(timeout);
        this.waiters.delete(waiter);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(waiter);
      this.timer ??= setTimeout(() => void this.tick(), this.intervalMs);
    });
  }

  private async tick(): Promise<void> {
    try {
      const ids = [...new Set([...this.waiters].map((w) => w.id))];
      if (ids.length > 0) {
        const found = new Set((await this.collection.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
        for (const w of [...this.waiters]) if (found.has(w.id)) w.arrived();
      }
    } catch {
      // the watches' own reads report a lost connection; the next tick tries again
    } finally {
      // Idle without waiters: nothing keeps the process alive.
      this.timer = this.waiters.size > 0 ? setTimeout(() => void this.tick(), this.intervalMs) : undefined;
    }
  }
}

const pollers = new WeakMap<MongoClient, Map<string, StreamPoller>>();

/** The poller of a collection of a MongoDB client: shared by every watch through that client. */
export function streamPoller(mongo: MongoClient, collection: Collection<{ _id: string }>, intervalMs: number): StreamPoller {
  let byName = pollers.get(mongo);
  if (!byName) pollers.set(mongo, (byName = new Map()));
  const key = `${collection.dbName}.${collection.collectionName}@${intervalMs}`;
  let poller = byName.get(key);
  if (!poller) byName.set(key, (poller = new StreamPoller(collection, intervalMs)));
  return poller;
}
