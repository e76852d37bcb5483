/**
 * TLS and mTLS the Temporal way: a TLS-terminating proxy in front of the dev server that
 * requires a client certificate signed by a test CA; a worker and the `perflow` CLI reach
 * Temporal only through it, configured by TEMPORAL_TLS_* variables, and run an agent end to
 * end. Wrong CAs, missing files and missing client certificates fail in one line.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { workerConfigFromEnv } from '../../config/env';
import { createWorker, type PerflowWorker } from '../../workers/main';
import { nonEmptyLines, useCli } from '../support/cli';
import { final, plan, scriptedAgent } from '../support/harness';
import { serverEnv, uniqueTaskQueue } from '../support/env';
import { makeTestCerts, type TestCerts } from '../support/tls-certs';
import type { ProcessResult } from '../support/run-process';
import { workflowBundle } from '../support/workflow-bundles';

jest.setTimeout(120_000);

const fixture = useCli('tls');

const AGENT = scriptedAgent({ planner: [plan('step A'), final('the answer over mTLS')], executor: [[{ content: 'result A' }]] }, { name: 'tls-agent' });

/** A TLS-terminating proxy to the dev server, and what it saw: handshakes it accepted (with the client certificate's CN) and refused. */
interface MtlsProxy {
  address: string;
  accepted: Array<{ authorized: boolean; cn: string | undefined }>;
  refused: string[];
  close(): Promise<void>;
}

/** A proxy that requires a client certificate signed by the test CA. */
async function startMtlsProxy(certs: TestCerts): Promise<MtlsProxy> {
  const upstream = /^(.*):(\d+)$/.exec(serverEnv().temporalAddress)!;
  const accepted: MtlsProxy['accepted'] = [];
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const proxy = createTlsServer(
    {
      key: readFileSync(certs.serverKey),
      cert: readFileSync(certs.serverCert),
      ca: readFileSync(certs.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'], // gRPC is HTTP/2
    },
    (socket: TLSSocket) => {
      const cn = socket.getPeerCertificate().subject?.CN;
      accepted.push({ authorized: socket.authorized, cn: Array.isArray(cn) ? cn.join(',') : cn });
      const up = netConnect(Number(upstream[2]), upstream[1]!.replace(/^\[|\]$/g, ''));
      for (const s of [socket, up]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      }
      socket.on('error', () => up.destroy());
      up.on('error', () => socket.destroy());
      socket.pipe(up).pipe(socket);
    },
  );
  proxy.on('tlsClientError', (err: NodeJS.ErrnoException) => refused.push(err.code ?? err.message));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    // A host name the server certificate holds (an IP address works too, but makes grpc-js warn).
    address: `localhost:${(proxy.address() as AddressInfo).port}`,
    accepted,
    refused,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

let certs: TestCerts;
let proxy: MtlsProxy;
let tlsEnv: Record<string, string>;
const taskQueue = uniqueTaskQueue('perflow-tls');
const database = `perflow_tls_${randomUUID().slice(0, 8)}`;
let worker: PerflowWorker | undefined;
let running: Promise<void> | undefined;
let agentFile: string;

/** A worker configured from `env` (plus the test servers' namespace and MongoDB). */
async function tlsWorker(env: Record<string, string>): Promise<PerflowWorker> {
  const config = workerConfigFromEnv({ TEMPORAL_NAMESPACE: serverEnv().namespace, MONGODB_URI: serverEnv().mongoUri, PERFLOW_TASK_QUEUE: taskQueue, ...env });
  return createWorker({ ...config, database, workflows: { workflowBundle: await workflowBundle('plain') } });
}

/** The misconfigured connections the failure cases make, each to a proxy of its own (so each proxy's log is that case's alone). */
type Misconfigured = 'wrongCa' | 'noClientCert' | 'plaintext';
const MISCONFIGURED_ENV: Record<Misconfigured, (address: string) => Record<string, string>> = {
  wrongCa: (address) => ({ ...tlsEnv, TEMPORAL_ADDRESS: address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert }),
  noClientCert: (address) => ({ TEMPORAL_ADDRESS: address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert }),
  plaintext: (address) => ({ TEMPORAL_ADDRESS: address }),
};
const failureProxies: MtlsProxy[] = [];
let misconfigured: Promise<Record<Misconfigured, { proxy: MtlsProxy; env: Record<string, string>; cli: Promise<ProcessResult> }>> | undefined;

/**
 * A failure case's proxy, environment and `perflow list` result. A failing CLI waits out its
 * 5 s connect timeout, so the first case to ask starts the CLI of every case at once: together
 * they wait it once.
 */
async function misconfiguredCase(name: Misconfigured) {
  misconfigured ??= (async () => {
    const cases = await Promise.all(
      (Object.keys(MISCONFIGURED_ENV) as Misconfigured[]).map(async (key) => {
        const caseProxy = await startMtlsProxy(certs);
        failureProxies.push(caseProxy);
        const env = MISCONFIGURED_ENV[key](caseProxy.address);
        const cli = fixture.perflow(['list'], env);
        cli.catch(() => undefined); // awaited by its own test
        return [key, { proxy: caseProxy, env, cli }] as const;
      }),
    );
    return Object.fromEntries(cases) as Awaited<NonNullable<typeof misconfigured>>;
  })();
  const c = (await misconfigured)[name];
  return { ...c, cli: await c.cli };
}

beforeAll(async () => {
  certs = makeTestCerts();
  proxy = await startMtlsProxy(certs);
  tlsEnv = {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
  };
  agentFile = join(certs.dir, 'agent.json');
  writeFileSync(agentFile, JSON.stringify(AGENT));
  worker = await tlsWorker(tlsEnv);
  running = worker.run();
});

afterAll(async () => {
  if (worker) {
    await worker.mongo.db(database).dropDatabase().catch(() => undefined);
    worker.shutdown();
    await running;
  }
  for (const p of [proxy, ...failureProxies]) await p?.close();
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
});

describe('Temporal over mTLS', () => {
  it('runs an agent end to end with a worker and the CLI that reach Temporal only through the mTLS proxy', async () => {
    expect(worker?.config.temporalAddress).toBe(proxy.address);
    const before = proxy.accepted.length;
    expect(before).toBeGreaterThan(0); // the worker's connection
    const r = await fixture.perflow(['run', '--agent', agentFile, '--question', 'over TLS?', '--wait', '--json'], { ...tlsEnv, PERFLOW_TASK_QUEUE: taskQueue });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const output = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(output.response).toBe('the answer over mTLS');
    expect(output.steps_executed).toBe(1);
    // The CLI connected through the proxy too, and every connection showed the verified client certificate.
    expect(proxy.accepted.length).toBeGreaterThan(before);
    expect(proxy.accepted.every((c) => c.authorized && c.cn === 'perflow test client')).toBe(true);
  });

  it('sends an API key along over mTLS (the dev server accepts any)', async () => {
    const r = await fixture.perflow(['list', '--json'], { ...tlsEnv, TEMPORAL_API_KEY: 'test-api-key' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
  });

  it('a wrong CA fails in one line naming the problem and the variable, for the CLI and the worker', async () => {
    const { proxy: wrong, env, cli: r } = await misconfiguredCase('wrongCa');
    expect(r.code).toBe(1);
    const problem = `cannot reach the Temporal server at ${wrong.address} over TLS \\(certificate verify failed: [^)]+\\): check TEMPORAL_TLS_SERVER_CA_CERT_PATH`;
    expect(nonEmptyLines(r.stderr)).toEqual([expect.stringMatching(new RegExp(`^perflow: ${problem}$`))]);
    await expect(tlsWorker(env)).rejects.toThrow(new RegExp(`^${problem}$`));
  });

  it('a missing certificate file fails in one line naming the file and the variable', async () => {
    const missing = join(certs.dir, 'no-such-client.pem');
    const env = { ...tlsEnv, TEMPORAL_TLS_CLIENT_CERT_PATH: missing };
    const message = `cannot read the client certificate ${missing} (TEMPORAL_TLS_CLIENT_CERT_PATH): no such file`;
    const r = await fixture.perflow(['list'], env);
    expect(r.code).toBe(1);
    expect(nonEmptyLines(r.stderr)).toEqual([`perflow: ${message}`]);
    await expect(tlsWorker(env)).rejects.toThrow(message);
  });

  it('a client without a client certificate is refused by the server, and told what to set', async () => {
    const { proxy: refusing, env, cli: r } = await misconfiguredCase('noClientCert');
    expect(r.code).toBe(1);
    expect(nonEmptyLines(r.stderr)).toEqual([
      `perflow: cannot reach the Temporal server at ${refusing.address} over TLS (the server requires a client certificate: tlsv13 alert certificate required): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH`,
    ]);
    expect(refusing.refused).toContain('ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE');
    await expect(tlsWorker(env)).rejects.toThrow(/over TLS \(the server requires a client certificate: .*\): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH$/);
  });

  it('a plaintext client is told that the server speaks TLS', async () => {
    const { proxy: tls, cli: r } = await misconfiguredCase('plaintext');
    expect(r.code).toBe(1);
    expect(nonEmptyLines(r.stderr)).toEqual([
      `perflow: cannot reach the Temporal server at ${tls.address} in plaintext (the server speaks TLS): set TEMPORAL_TLS=true, and TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA`,
    ]);
  });
});
