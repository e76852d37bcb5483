/**
 * Watching runs' event streams as a client does (watchRun): when each model call's first token
 * arrives, and what the watchers ask of MongoDB and Temporal meanwhile.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { watchRun } from '../client/watch';
import type { PerflowClient } from '../client/connect';
import { clientConfigFromEnv, memoryCollectionsFromEnv } from '../config/env';
import type { ArchiveDoc } from '../stores/run-events';
import { eventArchiveOf } from '../core/memory-collections';

/** A model call's first token as a watcher saw it: where it is in its run's stream, when it was published (`at`) and when it arrived here (ms). */
export interface FirstToken {
  run: string;
  offset: number;
  at: number;
  arrived: number;
}

/** What the watchers have sent since they started (or were last reset). */
export interface WatcherCounts {
  mongoCommands: number;
  /** Milliseconds the watchers' `find` commands took, summed (the read time of the stream). */
  findMs: number;
  finds: number;
  /** Temporal requests: watchRun asks Temporal only whether an idle run has ended (`describe`). */
  temporalRequests: number;
}

/** Watchers sharing one monitored MongoDB client and one Temporal client, counting what they send. */
export interface Watchers {
  /** The first token of each model call of the run started by `start`, watched from right after it started. */
  firstTokens(start: () => Promise<WorkflowHandle>): Promise<FirstToken[]>;
  /** For each token, ms from its `at` to when the worker wrote its batch (the batch's `created`): its wait in the worker before the insert. */
  queuedInWorker(tokens: readonly FirstToken[]): Promise<number[]>;
  counts(): WatcherCounts;
  reset(): void;
  close(): Promise<void>;
}

/** `client` with every workflow handle's `describe` counted. */
function countingDescribes(client: Client, counted: () => void): Client {
  const getHandle = (...args: Parameters<Client['workflow']['getHandle']>) => {
    const handle = client.workflow.getHandle(...args);
    const describe = handle.describe.bind(handle);
    return Object.assign(handle, { describe: () => (counted(), describe()) });
  };
  return Object.create(client, { workflow: { value: Object.create(client.workflow, { getHandle: { value: getHandle } }) } }) as Client;
}

/** Watchers reading with `env`'s MONGODB_URI (naming the database) and asking Temporal through `client`. */
export async function startWatchers(client: Client, env: Record<string, string>): Promise<Watchers> {
  const mongo = await new MongoClient(env.MONGODB_URI, { monitorCommands: true }).connect();
  let counts: WatcherCounts = { mongoCommands: 0, findMs: 0, finds: 0, temporalRequests: 0 };
  mongo.on('commandStarted', () => counts.mongoCommands++);
  mongo.on('commandSucceeded', (e) => {
    if (e.commandName !== 'find') return;
    counts.finds++;
    counts.findMs += e.duration;
  });
  // The watchers' one MongoDB client is the one whose commands are counted.
  const perflow: PerflowClient = { client: countingDescribes(client, () => counts.temporalRequests++), config: clientConfigFromEnv(env), mongo: async () => mongo, close: async () => undefined };
  return {
    async firstTokens(start) {
      const handle = await start();
      const tokens: FirstToken[] = [];
      const seen = new Set<string>();
      for await (const event of watchRun(perflow, handle.workflowId)) {
        const arrived = Date.now();
        if (event.type !== 'model_delta' || seen.has(event.call)) continue;
        seen.add(event.call);
        tokens.push({ run: handle.workflowId, offset: event.offset, at: Date.parse(event.at), arrived });
      }
      await handle.result();
      return tokens;
    },
    async queuedInWorker(tokens) {
      // A first token is published alone: its batch starts at its offset. The runs have ended: their batches are archived.
      const archive = mongo.db().collection<ArchiveDoc>(eventArchiveOf(memoryCollectionsFromEnv(env).events));
      const created = new Map<string, number>();
      for (const run of new Set(tokens.map((t) => t.run))) {
        for (const doc of await archive.find({ run }).toArray()) for (const b of doc.batches) created.set(`${run}:${b.first}`, new Date(b.created).getTime());
      }
      return tokens.map((t) => (created.get(`${t.run}:${t.offset}`) ?? NaN) - t.at);
    },
    counts: () => ({ ...counts }),
    reset: () => (counts = { mongoCommands: 0, findMs: 0, finds: 0, temporalRequests: 0 }),
    close: () => mongo.close(),
  };
}
