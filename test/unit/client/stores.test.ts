import { createServer } from 'node:net';
import { clientConfigFromEnv } from '../../../config/env';
import { PerflowError } from '../../../client/errors';
import { mongoHandle, openStores } from '../../../client/stores';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe("a client's one MongoDB client", () => {
  it('fails with one unavailable line naming MONGODB_URI without its password, and tries again on the next call', async () => {
    const uri = `mongodb://reader:s3cret@127.0.0.1:${await closedPort()}/perflow`;
    const handle = mongoHandle(uri);
    const first = await handle.mongo(300).catch((err: unknown) => err);
    expect(first).toBeInstanceOf(PerflowError);
    expect((first as PerflowError).kind).toBe('unavailable');
    expect((first as PerflowError).message).toMatch(/^cannot reach MongoDB at mongodb:\/\/reader:\*+@127\.0\.0\.1:\d+\/perflow \(.*\): start it or set MONGODB_URI$/);
    expect((first as PerflowError).message).not.toContain('s3cret');
    // A failed connect is not kept: the next call connects again (and fails again here).
    const second = await handle.mongo(300).catch((err: unknown) => err);
    expect(second).not.toBe(first);
    await handle.close();
  });

  it('stores opened from the environment read its MONGODB_URI and collection names', async () => {
    const stores = openStores(clientConfigFromEnv({ MONGODB_URI: 'mongodb://127.0.0.1:1/other', PERFLOW_EVENTS_COLLECTION: 'my_events' }));
    expect(stores.config.mongoUri).toBe('mongodb://127.0.0.1:1/other');
    expect(stores.config.collections.events).toBe('my_events');
    // Nothing was connected, so closing does nothing and does not throw.
    await stores.close();
  });
});
