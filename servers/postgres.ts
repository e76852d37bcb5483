/**
 * A private PostgreSQL cluster for FerretDB's PostgreSQL backend (load tests and the benchmark):
 * PostgreSQL's own server binaries (Debian keeps `initdb` and `pg_ctl` in its versioned lib
 * directory, not on PATH; the package is installed when missing and we may), a free loopback
 * port, data in a temporary directory, run as the `postgres` user when we are root, stopped with
 * the run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, onPath } from './binaries';
import { freePort, startProcess, waitUntilHealthy, type ServerProcess } from './process';

export interface PostgresServer {
  /** `postgres://…/ferretdb`, the database FerretDB stores in. */
  url: string;
  stop(): Promise<void>;
}

/** The directory of PostgreSQL's server binaries: PERFLOW_PG_BIN, Debian's newest, or PATH. */
export function findPostgresBin(env: NodeJS.ProcessEnv, options: { install: boolean }): string | undefined {
  const fromEnv = env.PERFLOW_PG_BIN;
  if (fromEnv) return existsSync(join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(debian, versions[0], 'bin');
  }
  const initdb = onPath(env, 'initdb');
  if (initdb) return join(initdb, '..');
  if (options.install && process.getuid?.() === 0 && onPath(env, 'apt-get')) {
    log('installing PostgreSQL server binaries: apt-get install postgresql (first use only)');
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], { stdio: 'ignore', timeout: 300_000 });
    return findPostgresBin(env, { install: false });
  }
  return undefined;
}

/** The postgres user's IDs when we are root (PostgreSQL refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function tcpReady(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve();
    });
    socket.on('error', reject);
  });
}

/** Starts a private cluster with a `ferretdb` database. */
export async function startPostgres(env: NodeJS.ProcessEnv): Promise<PostgresServer> {
  const bin = findPostgresBin(env, { install: true });
  if (!bin) throw new Error('PostgreSQL server binaries not found: install Debian\'s postgresql package or set PERFLOW_PG_BIN to the directory of initdb');
  const user = postgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'perflow-postgres-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const dataDir = join(dir, 'data');
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'perflow', '--no-sync', '-E', 'UTF8'], { ...asUser, encoding: 'utf8', timeout: 120_000 });
  if (init.status !== 0) throw new Error(`initdb failed: ${(init.stderr || init.stdout || '').trim().split('\n').slice(-3).join(' ')}`);
  const port = await freePort();
  const args = ['-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=300'];
  const proc: ServerProcess = startProcess(join(bin, 'postgres'), args, { env, cwd: dir, user });
  await waitUntilHealthy('postgres', proc, () => tcpReady(port));
  const created = spawnSync(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'perflow', 'ferretdb'], { ...asUser, encoding: 'utf8', timeout: 30_000 });
  if (created.status !== 0) {
    await proc.stop();
    throw new Error(`createdb failed: ${(created.stderr || '').trim()}`);
  }
  log(`PostgreSQL ${bin} on 127.0.0.1:${port} (data in ${dataDir})`);
  return {
    url: `postgres://perflow@127.0.0.1:${port}/ferretdb`,
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
