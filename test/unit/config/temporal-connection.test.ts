import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientConfigFromEnv, describeWorkerConfig, temporalFromEnv, workerConfigFromEnv } from '../../../config/env';
import { temporalConnectOptions } from '../../../config/temporal-connection';
import { makeTestCerts, type TestCerts } from '../../support/tls-certs';

let certs: TestCerts;
let pem: (path: string) => Uint8Array;

beforeAll(() => {
  certs = makeTestCerts();
  pem = (path) => Uint8Array.from(readFileSync(path));
});
afterAll(() => rmSync(certs.dir, { recursive: true, force: true }));

/** The SDK options the client and the worker connect with, for an environment. */
function optionsFor(env: NodeJS.ProcessEnv) {
  const c = temporalFromEnv(env);
  return { address: c.temporalAddress, namespace: c.namespace, ...temporalConnectOptions(c.temporal) };
}

describe('the Temporal connection from the environment', () => {
  it('keeps perflow defaults and plaintext when nothing is set', () => {
    expect(optionsFor({})).toEqual({ address: 'localhost:7233', namespace: 'default' });
    expect(optionsFor({ TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: '' })).toEqual({ address: 'localhost:7233', namespace: 'default' });
    expect(workerConfigFromEnv({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'prod' })).toMatchObject({ temporalAddress: 'temporal:7233', namespace: 'prod' });
  });

  it('maps TEMPORAL_TLS_* files to mTLS options with the certificates read', () => {
    const o = optionsFor({
      TEMPORAL_ADDRESS: 'temporal.example:7233',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
      TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
      TEMPORAL_TLS_SERVER_NAME: 'frontend.internal',
    });
    expect(o).toEqual({
      address: 'temporal.example:7233',
      namespace: 'default',
      tls: { serverNameOverride: 'frontend.internal', serverRootCACertificate: pem(certs.caCert), clientCertPair: { crt: pem(certs.clientCert), key: pem(certs.clientKey) } },
    });
  });

  it('turns TLS on with the system roots for TEMPORAL_TLS=true, and off for false', () => {
    expect(optionsFor({ TEMPORAL_TLS: 'true' }).tls).toEqual({});
    expect(optionsFor({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert }).tls).toBe(false);
  });

  it('sends an API key as apiKey, with TLS on unless TLS is disabled', () => {
    expect(optionsFor({ TEMPORAL_API_KEY: 'secret-key' })).toMatchObject({ apiKey: 'secret-key', tls: true });
    expect(optionsFor({ TEMPORAL_API_KEY: 'secret-key', TEMPORAL_TLS: 'false' })).toMatchObject({ apiKey: 'secret-key', tls: false });
    expect(optionsFor({ TEMPORAL_GRPC_META_X_TENANT: 'acme' })).toMatchObject({ metadata: { 'x-tenant': 'acme' } });
  });

  it('reads a profile of a TOML config file (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE), variables over it', () => {
    const file = join(certs.dir, 'temporal.toml');
    writeFileSync(
      file,
      [
        '[profile.default]',
        'address = "localhost:9999"',
        '[profile.prod]',
        'address = "prod.tmprl.cloud:7233"',
        'namespace = "prod.acct"',
        'api_key = "profile-key"',
        '[profile.prod.tls]',
        `server_ca_cert_path = "${certs.caCert}"`,
        `client_cert_path = "${certs.clientCert}"`,
        `client_key_path = "${certs.clientKey}"`,
        '[profile.prod.grpc_meta]',
        'x-team = "agents"',
      ].join('\n'),
    );
    const env = { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' };
    expect(optionsFor(env)).toEqual({
      address: 'prod.tmprl.cloud:7233',
      namespace: 'prod.acct',
      apiKey: 'profile-key',
      metadata: { 'x-team': 'agents' },
      tls: { serverRootCACertificate: pem(certs.caCert), clientCertPair: { crt: pem(certs.clientCert), key: pem(certs.clientKey) } },
    });
    expect(optionsFor({ ...env, TEMPORAL_NAMESPACE: 'other', TEMPORAL_API_KEY: 'env-key' })).toMatchObject({ namespace: 'other', apiKey: 'env-key' });
    expect(optionsFor({ TEMPORAL_CONFIG_FILE: file })).toEqual({ address: 'localhost:9999', namespace: 'default' });
    const config = clientConfigFromEnv(env);
    expect(describeWorkerConfig({ ...workerConfigFromEnv(env), mongoUri: 'mongodb://h/db' })).toContain('Temporal prod.tmprl.cloud:7233 (mTLS, API key) namespace prod.acct');
    expect(describeWorkerConfig(workerConfigFromEnv(env))).not.toContain('profile-key');
    expect(config.temporalAddress).toBe('prod.tmprl.cloud:7233');
  });

  it('finds the temporal CLI config file where the CLI keeps it', () => {
    const home = join(certs.dir, 'xdg');
    mkdirSync(join(home, 'temporalio'), { recursive: true });
    writeFileSync(join(home, 'temporalio', 'temporal.toml'), '[profile.default]\naddress = "from-cli-profile:7233"\nnamespace = "cli-ns"\n');
    expect(optionsFor({ XDG_CONFIG_HOME: home })).toEqual({ address: 'from-cli-profile:7233', namespace: 'cli-ns' });
  });

  it('names the variable or the profile field and the path of a missing file, in one line', () => {
    const missing = join(certs.dir, 'missing.pem');
    expect(() => optionsFor({ TEMPORAL_TLS_CLIENT_CERT_PATH: missing, TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey })).toThrow(
      `cannot read the client certificate ${missing} (TEMPORAL_TLS_CLIENT_CERT_PATH): no such file`,
    );
    const file = join(certs.dir, 'broken.toml');
    writeFileSync(file, `[profile.staging.tls]\nserver_ca_cert_path = "${missing}"\n`);
    expect(() => optionsFor({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' })).toThrow(
      `cannot read the server CA certificate ${missing} (tls.server_ca_cert_path of profile "staging" in ${file}): no such file`,
    );
    expect(() => optionsFor({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.clientKey })).toThrow(`the server CA certificate ${certs.clientKey} (TEMPORAL_TLS_SERVER_CA_CERT_PATH) is not a PEM certificate`);
    expect(() => optionsFor({ TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert })).toThrow('mTLS needs the client key too: TEMPORAL_TLS_CLIENT_CERT_PATH is set, TEMPORAL_TLS_CLIENT_KEY_PATH is not');
    expect(() => optionsFor({ TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert, TEMPORAL_TLS_CLIENT_KEY_PATH: certs.serverKey })).toThrow(
      `the client key ${certs.serverKey} (TEMPORAL_TLS_CLIENT_KEY_PATH) does not belong to the client certificate ${certs.clientCert} (TEMPORAL_TLS_CLIENT_CERT_PATH)`,
    );
  });

  it('rejects a missing config file or profile and a bad TEMPORAL_TLS in one line', () => {
    const file = join(certs.dir, 'nowhere.toml');
    expect(() => temporalFromEnv({ TEMPORAL_CONFIG_FILE: file })).toThrow(`TEMPORAL_CONFIG_FILE=${file}: no such file`);
    const real = join(certs.dir, 'one.toml');
    writeFileSync(real, '[profile.default]\naddress = "x:1"\n');
    expect(() => temporalFromEnv({ TEMPORAL_CONFIG_FILE: real, TEMPORAL_PROFILE: 'prod' })).toThrow(`TEMPORAL_PROFILE=prod: no profile "prod" in ${real}`);
    expect(() => temporalFromEnv({ TEMPORAL_TLS: 'yes' })).toThrow('TEMPORAL_TLS="yes" must be true or false');
  });
});
