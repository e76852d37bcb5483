/**
 * One line for a failed connection to Temporal that names the problem. The Node client only
 * says "Failed to connect before the deadline" and the worker's core speaks rustls, so when a
 * connection fails this repeats the TLS handshake with Node's `tls` (same certificates, ALPN
 * h2, then an HTTP/2 preface so a server's rejection of the client certificate shows) and names
 * what went wrong: an unknown CA, a host name mismatch, a refused or missing client certificate,
 * a server without TLS, or a TLS server reached in plaintext.
 */
import { isIP } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { firstLine } from '../core/text';
import { tlsSettingName, usesTls, type TemporalConnectOptions, type TemporalConnectionSettings } from './temporal-connection';

/** What a TLS handshake with the server showed: ok, or the stage it failed at and why. */
export type TlsProbe = { ok: true } | { ok: false; stage: 'tcp' | 'handshake' | 'after-handshake' | 'timeout'; code?: string; message: string };

function hostAndPort(address: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address);
  return m ? { host: m[1]!, port: Number(m[2]) } : { host: address, port: 7233 };
}

// HTTP/2 connection preface and an empty SETTINGS frame: an HTTP/2 server answers with its SETTINGS.
const H2_PREFACE = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

/** Connects with TLS as the SDK would and reports how far it got. */
export function probeTls(address: string, tls: TemporalConnectOptions['tls'], timeoutMs = 5_000, verify = true): Promise<TlsProbe> {
  const { host, port } = hostAndPort(address);
  const t = typeof tls === 'object' ? tls : {};
  // The certificate is checked against the server name (the override, else the host).
  const servername = t.serverNameOverride ?? (isIP(host) ? undefined : host);
  const options: ConnectionOptions = {
    host,
    port,
    ALPNProtocols: ['h2'],
    rejectUnauthorized: verify,
    ...(servername ? { servername } : {}),
    ...(t.serverRootCACertificate ? { ca: Buffer.from(t.serverRootCACertificate) } : {}),
    ...(t.clientCertPair ? { cert: Buffer.from(t.clientCertPair.crt), key: Buffer.from(t.clientCertPair.key) } : {}),
  };
  return new Promise((resolve) => {
    let stage: 'tcp' | 'handshake' | 'after-handshake' = 'tcp';
    let done = false;
    const finish = (result: TlsProbe) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, stage: 'timeout', message: `no TLS handshake within ${timeoutMs} ms` }), timeoutMs);
    let socket: ReturnType<typeof tlsConnect>;
    try {
      socket = tlsConnect(options);
    } catch (err) {
      clearTimeout(timer);
      resolve({ ok: false, stage: 'handshake', code: (err as NodeJS.ErrnoException).code, message: reason(err) });
      return;
    }
    socket.once('connect', () => (stage = 'handshake'));
    socket.once('secureConnect', () => {
      stage = 'after-handshake';
      socket.write(H2_PREFACE);
    });
    socket.once('data', () => finish({ ok: true }));
    socket.once('error', (err: NodeJS.ErrnoException) => finish({ ok: false, stage, ...(err.code ? { code: err.code } : {}), message: reason(err) }));
    socket.once('close', () => finish({ ok: false, stage, message: 'the server closed the connection' }));
  });
}

/** The first line of an error's message; of OpenSSL's `…:SSL routines:function:reason:file:line:`, the reason. */
function reason(err: unknown): string {
  const line = firstLine(err).trim();
  return /^[0-9A-F]+:error:[0-9A-F]+:[^:]+:[^:]*:([^:]+)/.exec(line)?.[1] ?? line;
}

const VERIFY_FAILED = /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|CERT_REJECTED|INVALID_CA)$/;
const NOT_TLS = /WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL|RECORD_LAYER_FAILURE|HTTP_REQUEST/;
const CLIENT_CERT_REFUSED = /ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|CERTIFICATE_REQUIRED|ACCESS_DENIED|UNSUPPORTED_CERTIFICATE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|HANDSHAKE_FAILURE|DECRYPT_ERROR)/;

/**
 * The one-line message for a failed connect: names the TLS problem when there is one, else the
 * plain "cannot reach the Temporal server at … : start it or set TEMPORAL_ADDRESS".
 */
export async function connectFailureMessage(
  address: string,
  settings: TemporalConnectionSettings | undefined,
  options: TemporalConnectOptions,
  err: unknown,
  probeTimeoutMs = 5_000,
): Promise<string> {
  const why = reason(err);
  const unreachable = `cannot reach the Temporal server at ${address} (${why}): start it or set TEMPORAL_ADDRESS`;
  if ((err as { code?: unknown })?.code === 16) {
    return `the Temporal server at ${address} refused the credentials (${why}): ${settings?.apiKey ? 'check' : 'set'} TEMPORAL_API_KEY`;
  }
  if (!usesTls(settings)) {
    // A TLS server reached in plaintext accepts a TLS handshake (a short look: the connect already waited).
    const probe = await probeTls(address, true, Math.min(probeTimeoutMs, 2_000), false);
    const speaksTls = probe.ok || probe.stage === 'after-handshake' || CLIENT_CERT_REFUSED.test(probe.code ?? '');
    return speaksTls
      ? `cannot reach the Temporal server at ${address} in plaintext (the server speaks TLS): set TEMPORAL_TLS=true, and TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA`
      : unreachable;
  }
  const probe = await probeTls(address, options.tls, probeTimeoutMs);
  if (probe.ok || probe.stage === 'tcp' || probe.stage === 'timeout') return unreachable;
  const overTls = (problem: string, hint: string) => `cannot reach the Temporal server at ${address} over TLS (${problem}): ${hint}`;
  const code = probe.code ?? '';
  const ca = tlsSettingName(settings, 'serverCACert');
  if (VERIFY_FAILED.test(code)) {
    return overTls(`certificate verify failed: ${probe.message}`, settings?.tls?.serverCACert ? `check ${ca}` : `set ${ca} to the CA that signed the server's certificate`);
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return overTls(`host name mismatch: ${probe.message}`, `check ${tlsSettingName(settings, 'serverName')} (a name the server's certificate holds)`);
  }
  if (NOT_TLS.test(code)) {
    return overTls(`the server does not speak TLS: ${probe.message}`, 'unset the TLS settings or set TEMPORAL_TLS=false, or check TEMPORAL_ADDRESS');
  }
  if (CLIENT_CERT_REFUSED.test(code) || probe.stage === 'after-handshake') {
    const alert = /(?:ssl|tls)v[\d.]* alert [a-z ]+/i.exec(probe.message)?.[0] ?? probe.message;
    return settings?.tls?.clientCert
      ? overTls(`the server refused the client certificate: ${alert}`, `check ${tlsSettingName(settings, 'clientCert')} and ${tlsSettingName(settings, 'clientKey')} (a certificate the server's CA signed)`)
      : overTls(`the server requires a client certificate: ${alert}`, 'set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH');
  }
  return overTls(`TLS handshake failed: ${probe.message}`, `check ${ca} and the other TEMPORAL_TLS_* settings`);
}
