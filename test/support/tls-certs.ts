/**
 * Test certificates made with `openssl`: a CA, a server certificate for localhost and
 * 127.0.0.1 and a client certificate signed by it, and a second CA that signed neither.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  caCert: string;
  otherCaCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

const OPENSSL = existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : 'openssl';

/** Writes the certificates and keys (PEM) into a new temporary directory (or `dir`). */
export function makeTestCerts(dir = mkdtempSync(join(tmpdir(), 'perflow-tls-'))): TestCerts {
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { cwd: dir, stdio: 'pipe', timeout: 30_000 });
  const ca = (name: string, cn: string) =>
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.pem`),
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  const leaf = (name: string, cn: string, ext: string) => {
    writeFileSync(f(`${name}.ext`), `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n${ext}\n`);
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`));
    openssl('x509', '-req', '-sha256', '-days', '2', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-extfile', f(`${name}.ext`), '-out', f(`${name}.pem`));
  };
  ca('ca', 'perflow test CA');
  ca('other-ca', 'some other CA');
  leaf('server', 'localhost', 'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1');
  leaf('client', 'perflow test client', 'extendedKeyUsage=clientAuth');
  return {
    dir,
    caCert: f('ca.pem'),
    otherCaCert: f('other-ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
  };
}
