/**
 * Starts the real servers once per test run (or uses TEMPORAL_ADDRESS / MONGODB_URI) and
 * hands their addresses to the test files through the environment.
 */
import { startServers, type Servers } from '../../servers';

declare global {
  var __perflowServers: Servers | undefined;
}

export default async function globalSetup(): Promise<void> {
  const servers = await startServers(process.env);
  globalThis.__perflowServers = servers;
  process.env.TEMPORAL_ADDRESS = servers.temporal.address;
  process.env.TEMPORAL_NAMESPACE = servers.temporal.namespace;
  process.env.MONGODB_URI = servers.mongo.uri;
  if (servers.temporal.uiUrl) process.env.PERFLOW_TEMPORAL_UI_URL = servers.temporal.uiUrl;
  process.env.PERFLOW_TEST_MONGO_KIND = servers.mongo.kind;
}
