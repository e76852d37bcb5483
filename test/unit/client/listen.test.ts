import { request, Server } from 'node:http';
import { PerflowError } from '../../../client/errors';
import { listen, type Listening, type ListenOptions } from '../../../client/listen';

const hello = (o: ListenOptions) => listen((_req, res) => void res.end('hello'), o);
const open: Listening[] = [];
const started = async (o: ListenOptions) => {
  const l = await hello(o);
  open.push(l);
  return l;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
  jest.restoreAllMocks();
});

describe('listen: binding a perflow listener', () => {
  it('serves on host:port and gives the URL to print, an IPv6 host bracketed', async () => {
    const v4 = await started({ host: '127.0.0.1', port: 0 });
    expect(v4.url).toBe(`http://127.0.0.1:${v4.port}`);
    expect(await (await fetch(v4.url)).text()).toBe('hello');
    const v6 = await started({ host: '::1', port: 0 });
    expect(v6.url).toBe(`http://[::1]:${v6.port}`);
    expect(await (await fetch(v6.url)).text()).toBe('hello');
  });

  it('a port taken is one line naming it and the option that chooses another', async () => {
    const first = await started({ host: '127.0.0.1', port: 0 });
    const again = hello({ host: '127.0.0.1', port: first.port });
    await expect(again).rejects.toThrow(PerflowError);
    await expect(again).rejects.toMatchObject({ kind: 'unavailable', message: `port ${first.port} on 127.0.0.1 is taken: choose another with --port PORT (0 picks a free one)` });
    await expect(hello({ host: '127.0.0.1', port: first.port, portFlag: '--http' })).rejects.toThrow(/^port \d+ on 127\.0\.0\.1 is taken: choose another with --http PORT \(0 picks a free one\)$/);
  });

  it('a port this user may not bind, and a host not of this machine, are one line each', async () => {
    jest.spyOn(Server.prototype, 'listen').mockImplementationOnce(function (this: Server) {
      process.nextTick(() => this.emit('error', Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), { code: 'EACCES' })));
      return this;
    });
    await expect(hello({ host: '127.0.0.1', port: 80 })).rejects.toThrow(/^port 80 on 127\.0\.0\.1 needs privileges this user lacks \(ports below 1024 do\): choose another with --port PORT$/);
    // 192.0.2.1 is a documentation address (TEST-NET-1): no machine has it.
    await expect(hello({ host: '192.0.2.1', port: 0 })).rejects.toThrow(/^cannot listen on 192\.0\.2\.1: it is not an address of this machine: choose another with --host$/);
  });

  it('close ends open connections and frees the port; a second close is a no-op', async () => {
    const streaming = await listen((_req, res) => void res.writeHead(200).write('first part'), { host: '127.0.0.1', port: 0 });
    const ended = new Promise<string>((done) => {
      request(streaming.url, (res) => {
        res.once('data', () => void streaming.close().then(() => done('closed')));
        res.on('error', () => undefined);
      }).end();
    });
    await expect(ended).resolves.toBe('closed');
    await streaming.close();
    const reused = await started({ host: '127.0.0.1', port: streaming.port });
    expect(reused.port).toBe(streaming.port);
  });

  it('close waits for a handler still at work after its connection ended (its client may be closed next)', async () => {
    let finished = false;
    let answered!: () => void;
    const got = new Promise<void>((r) => (answered = r));
    const slow = await listen(
      async (_req, res) => {
        res.writeHead(200).write('working');
        answered();
        await new Promise((r) => setTimeout(r, 300)); // a query still running
        finished = true;
        res.end();
      },
      { host: '127.0.0.1', port: 0 },
    );
    request(slow.url, (res) => res.on('error', () => undefined).resume())
      .on('error', () => undefined)
      .end();
    await got;
    await slow.close();
    expect(finished).toBe(true);
  });
});
