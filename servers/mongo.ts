/** A MongoDB-wire server: the environment's MONGODB_URI, else mongod, else FerretDB (SQLite, or PostgreSQL with PERFLOW_MONGO_BACKEND), else mongodb-memory-server. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { findMongoServer, log } from './binaries';
import { freePort, startProcess, waitUntilHealthy, type ServerProcess } from './process';
import { startPostgres } from './postgres';
import { namedServersFromEnv, redact } from '../config/env';
import { firstLine } from '../core/text';

export interface MongoServer {
  uri: string;
  /** What serves it: `external`, `mongod`, `ferretdb` or `mongodb-memory-server`. */
  kind: string;
  /** Stops the server and deletes its data (if we started it). */
  stop(): Promise<void>;
  /** Stops the server but keeps port and data, for outage tests. Resolves when it is down. */
  pause?(): Promise<void>;
  /** Starts a paused server again on the same port and data. */
  resume?(): Promise<void>;
}

export async function pingMongo(uri: string, timeoutMs = 3_000): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}

/**
 * FerretDB's PostgreSQL connections (its default is 50). Under a worker's 100 concurrent
 * MongoDB requests a pool of 50 stalled every request at 200 concurrent runs (connections
 * idle in PostgreSQL, requests waiting in FerretDB); the private cluster allows 300.
 */
const FERRETDB_PG_POOL = 250;

/**
 * FerretDB on SQLite writes one transaction at a time. Under many concurrent runs writers
 * queued past FerretDB's 10 s busy timeout and failed with SQLITE_BUSY (then retried, adding
 * load), so they wait up to a minute for the lock; commits skip the per-transaction fsync (WAL
 * with synchronous=NORMAL: safe if the process dies, the last commits may be lost if the
 * machine does — this is the development backend).
 */
const SQLITE_OPTIONS = '_pragma=busy_timeout(60000)&_pragma=synchronous(normal)';

export async function startMongo(env: NodeJS.ProcessEnv): Promise<MongoServer> {
  const external = namedServersFromEnv(env).mongoUri;
  if (external) {
    try {
      await pingMongo(external);
    } catch (err) {
      throw new Error(`cannot reach MongoDB at MONGODB_URI=${redact(external)}: ${firstLine(err)}`);
    }
    log(`using MongoDB at ${redact(external)} (MONGODB_URI)`);
    return { uri: external, kind: 'external', stop: async () => undefined };
  }
  const found = findMongoServer(env, { install: true });
  if (!found) return startMemoryServer();
  const backend = mongoBackend(env);
  if (backend === 'postgresql' && found.kind !== 'ferretdb') throw new Error('PERFLOW_MONGO_BACKEND=postgresql needs FerretDB (found mongod); unset it or remove mongod from PATH');
  const postgres = backend === 'postgresql' ? await startPostgres(env) : undefined;
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `perflow-${found.kind}-`));
  const args =
    found.kind === 'mongod'
      ? ['--bind_ip', '127.0.0.1', '--port', String(port), '--dbpath', dataDir, '--quiet']
      : [
          ...(postgres ? ['--handler=postgresql', `--postgresql-url=${postgres.url}?pool_max_conns=${FERRETDB_PG_POOL}`] : ['--handler=sqlite', `--sqlite-url=file:${join(dataDir, 'data')}/?${SQLITE_OPTIONS}`]),
          `--state-dir=${dataDir}`,
          `--listen-addr=127.0.0.1:${port}`,
          '--telemetry=disable',
          '--debug-addr=-',
          '--log-level=error',
        ];
  if (found.kind === 'ferretdb') mkdirSync(join(dataDir, 'data'));
  const uri = `mongodb://127.0.0.1:${port}/`;
  let proc: ServerProcess | undefined;
  const launch = async () => {
    proc = startProcess(found.path, args, { env, cwd: dataDir });
    await waitUntilHealthy(found.kind, proc, () => pingMongo(uri, 1_000));
  };
  try {
    await launch();
  } catch (err) {
    await postgres?.stop();
    throw err;
  }
  log(`${found.kind} ${found.path} on ${redact(uri)} (${postgres ? `PostgreSQL backend ${redact(postgres.url)}` : `data in ${dataDir}`})`);
  return {
    uri,
    kind: postgres ? `${found.kind}-postgresql` : found.kind,
    async stop() {
      await proc?.stop();
      await postgres?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    pause: async () => proc?.stop(),
    resume: launch,
  };
}

/** PERFLOW_MONGO_BACKEND: `sqlite` (default) or `postgresql` (FerretDB on a private PostgreSQL cluster). */
export function mongoBackend(env: NodeJS.ProcessEnv): 'sqlite' | 'postgresql' {
  const value = (env.PERFLOW_MONGO_BACKEND ?? 'sqlite').trim().toLowerCase();
  if (value === 'sqlite' || value === '') return 'sqlite';
  if (value === 'postgresql' || value === 'postgres') return 'postgresql';
  throw new Error(`PERFLOW_MONGO_BACKEND="${env.PERFLOW_MONGO_BACKEND}" must be sqlite or postgresql`);
}

async function startMemoryServer(): Promise<MongoServer> {
  let mms: { MongoMemoryServer: { create(): Promise<{ getUri(): string; stop(): Promise<boolean> }> } };
  try {
    // Optional: downloads a real mongod, so it only helps where the internet is reachable.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mms = require('mongodb-memory-server');
  } catch {
    throw new Error(
      'no MongoDB-wire server found: set MONGODB_URI, put mongod or ferretdb on PATH, install Go (FerretDB is built from the module proxy), or `npm install mongodb-memory-server`',
    );
  }
  log('no mongod/ferretdb found; starting mongodb-memory-server');
  const server = await mms.MongoMemoryServer.create();
  return { uri: server.getUri(), kind: 'mongodb-memory-server', stop: async () => void (await server.stop()) };
}
