/**
 * Finds or starts the servers perflow needs (tests, demo, benchmark): a Temporal server and a
 * MongoDB-wire server. See docs/servers-and-testing.md, "How the servers are found". Every function takes the
 * environment it runs in: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and MONGODB_URI are read through
 * config/ (which owns them), the bootstrap's own variables (PERFLOW_MONGO_BACKEND,
 * TEMPORAL_CLI_PATH, PERFLOW_PG_BIN, PERFLOW_CACHE_DIR, PATH) here; started servers inherit it.
 */
import { startMongo, type MongoServer } from './mongo';
import { stopAll } from './process';
import { startTemporal, type TemporalServer, type TemporalStartOptions } from './temporal';

export { startMongo, pingMongo, type MongoServer } from './mongo';
export { startTemporal, startTemporalDevServer, checkTemporal, SEARCH_ATTRIBUTES, type TemporalServer, type TemporalStartOptions } from './temporal';
export { freePort, stopAll } from './process';
export { findTemporalCli, findMongoServer } from './binaries';

export interface Servers {
  temporal: TemporalServer;
  mongo: MongoServer;
  stop(): Promise<void>;
}

export async function startServers(env: NodeJS.ProcessEnv, options: { temporal?: TemporalStartOptions } = {}): Promise<Servers> {
  const [temporal, mongo] = await Promise.allSettled([startTemporal(env, options.temporal), startMongo(env)]);
  if (temporal.status === 'rejected' || mongo.status === 'rejected') {
    await stopAll();
    throw temporal.status === 'rejected' ? temporal.reason : (mongo as PromiseRejectedResult).reason;
  }
  return {
    temporal: temporal.value,
    mongo: mongo.value,
    stop: async () => void (await Promise.all([temporal.value.stop(), mongo.value.stop()])),
  };
}

/** Stops our servers on Ctrl-C / SIGTERM before exiting. */
export function stopServersOnSignals(): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      void stopAll().finally(() => process.exit(130));
    });
  }
}
