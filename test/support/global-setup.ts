/**
 * Starts the real servers once per test run (or uses TEMPORAL_ADDRESS / MONGODB_URI) and
 * hands their addresses to the test files through the environment; builds the package the
 * tests spawn (./package-build) meanwhile.
 */
import { startServers, type Servers } from '../../servers';
import { ensurePackageBuilt } from './package-build';
import { NPM_CA_CERTS } from './run-process';

declare global {
  var __perflowServers: Servers | undefined;
}

export default async function globalSetup(): Promise<void> {
  // The Go servers (Temporal, FerretDB) on one OS thread each: the suite keeps both cores busy,
  // and with a thread per core the Temporal dev server spent ~10% more CPU on the same runs
  // (kernel.test.ts: 57 vs 51 CPU-s, the same wall time). The servers test files start inherit it.
  // One thread suits Jest's two workers (jest.config.js); more workers would want more.
  process.env.GOMAXPROCS ??= '1';
  // The build (CPU) while the servers start (mostly waiting on them).
  const [servers] = await Promise.all([startServers(process.env), ensurePackageBuilt()]);
  globalThis.__perflowServers = servers;
  process.env.TEMPORAL_ADDRESS = servers.temporal.address;
  process.env.TEMPORAL_NAMESPACE = servers.temporal.namespace;
  process.env.MONGODB_URI = servers.mongo.uri;
  if (servers.temporal.uiUrl) process.env.PERFLOW_TEMPORAL_UI_URL = servers.temporal.uiUrl;
  process.env.PERFLOW_TEST_MONGO_KIND = servers.mongo.kind;
  // The tests' processes talk to these loopback servers: extra CA certificates would cost each
  // Node start ~80 ms of CPU to load, hundreds of times a run. npm gets them back (npmEnv).
  if (process.env.NODE_EXTRA_CA_CERTS) {
    process.env[NPM_CA_CERTS] = process.env.NODE_EXTRA_CA_CERTS;
    delete process.env.NODE_EXTRA_CA_CERTS;
  }
}
