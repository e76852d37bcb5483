/**
 * Many watches in one process (the console's streams, a benchmark's watchers) wait for their
 * runs' next batches together: one query a tick fetches, for every watched run, the batches from
 * the one its watch waits for on — so a watch reads nothing on its own while it follows a run.
 * On FerretDB each query scans the live event streams, so the number of queries, not their
 * size, is what costs.
 */
import type { Collection, MongoClient } from 'mongodb';
import type { EventBatchDoc } from '../memory/run-events';

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
      // Per run, from the earliest batch any of its watches waits for.
      const from = new Map<string, number>();
      for (const w of this.waiters) from.set(w.run, Math.min(w.first, from.get(w.run) ?? w.first));
      if (from.size > 0) {
        const found = await this.collection.find({ $or: [...from].map(([run, first]) => ({ run, first: { $gte: first } })) }).toArray();
        const byRun = new Map<string, Map<number, EventBatchDoc>>();
        for (const doc of found) (byRun.get(doc.run) ?? byRun.set(doc.run, new Map()).get(doc.run)!).set(doc.first, doc);
        for (const w of [...this.waiters]) {
          const chain = chainFrom(byRun.get(w.run), w.first);
          if (chain.length > 0) w.arrived(chain);
        }
      }
    } catch {
      // the watches' own reads report a lost connection; the next tick tries again
    } finally {
      // Idle without waiters: nothing keeps the process alive.
      this.timer = this.waiters.size > 0 ? setTimeout(() => void this.tick(), this.intervalMs) : undefined;
    }
  }
}

/** The batches that follow one another from `first` on (a stream's batches are contiguous). */
function chainFrom(batches: Map<number, EventBatchDoc> | undefined, first: number): EventBatchDoc[] {
  const chain: EventBatchDoc[] = [];
  for (let doc = batches?.get(first); doc; doc = batches?.get(doc.first + doc.count)) chain.push(doc);
  return chain;
}

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
