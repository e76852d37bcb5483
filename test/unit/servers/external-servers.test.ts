import { freePort, startMongo, startTemporal } from '../../../servers';

describe('servers named by the environment', () => {
  jest.setTimeout(20_000);

  it('fail fast with one line naming TEMPORAL_ADDRESS when nothing listens there', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await startTemporal({ TEMPORAL_ADDRESS: `127.0.0.1:${port}` }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(error?.message).toContain(`cannot reach Temporal at TEMPORAL_ADDRESS=127.0.0.1:${port}`);
    expect(error?.message).not.toContain('\n');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('fail with one line naming MONGODB_URI, without its password, when nothing listens there', async () => {
    const port = await freePort();
    const error = await startMongo({ MONGODB_URI: `mongodb://user:secret@127.0.0.1:${port}/perflow` }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(error?.message).toContain(`cannot reach MongoDB at MONGODB_URI=mongodb://user:***@127.0.0.1:${port}/perflow`);
    expect(error?.message).not.toContain('secret');
    expect(error?.message).not.toContain('\n');
  });
});
