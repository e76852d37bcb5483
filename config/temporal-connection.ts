/**
 * The connection to Temporal, configured the Temporal way: `@temporalio/envconfig` reads the
 * profile of the TOML config file the `temporal` CLI uses (TEMPORAL_CONFIG_FILE, default
 * `~/.config/temporalio/temporal.toml`; profile TEMPORAL_PROFILE, default `default`) with the
 * TEMPORAL_* variables over it (address, namespace, API key, TLS and mTLS files, gRPC metadata).
 *
 * config/env.ts calls {@link temporalSettingsFromEnv} with the environment; the client and the
 * worker call {@link temporalConnectOptions} when they connect, which reads the certificate
 * files, with one-line errors naming the setting and the path.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { platform } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { loadClientConfigProfile, toClientOptions, type ClientConfigTLS, type ConfigDataSource } from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';

/** How to connect to Temporal besides the address and namespace. @default plaintext, no API key */
export interface TemporalConnectionSettings {
  /** Sent as `Authorization: Bearer …` (TEMPORAL_API_KEY, `api_key`); turns TLS on unless TLS is disabled explicitly. */
  apiKey?: string;
  /**
   * TLS, as envconfig loads it (TEMPORAL_TLS*, the profile's `tls` table): present means on
   * (`disabled: true` means off), with the system's roots unless `serverCACert` is given, and
   * mTLS with `clientCert` and `clientKey` (file paths or PEM data).
   */
  tls?: ClientConfigTLS;
  /** gRPC metadata sent with every call (TEMPORAL_GRPC_META_*, `grpc_meta`). */
  metadata?: Record<string, string>;
  /** Where the settings came from, to name them in messages. */
  origin?: { variables: string[]; file?: string; profile: string };
}

/** What the SDK's `Connection.connect` and `NativeConnection.connect` take besides the address. */
export interface TemporalConnectOptions {
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
}

/** The user's `temporal.toml`, where the `temporal` CLI and envconfig look for it. */
function defaultConfigFile(env: Record<string, string>): string | undefined {
  const os = platform();
  if (os === 'win32') return env.APPDATA ? join(env.APPDATA, 'temporalio', 'temporal.toml') : undefined;
  if (os === 'darwin') return env.HOME ? join(env.HOME, 'Library', 'Application Support', 'temporalio', 'temporal.toml') : undefined;
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg) return isAbsolute(xdg) ? join(xdg, 'temporalio', 'temporal.toml') : undefined;
  return env.HOME ? join(env.HOME, '.config', 'temporalio', 'temporal.toml') : undefined;
}

/**
 * Address, namespace and connection settings from the config file profile and the TEMPORAL_*
 * variables (variables win; empty ones count as unset). Reads no certificate file yet.
 */
export function temporalSettingsFromEnv(env: NodeJS.ProcessEnv): { address?: string; namespace?: string; settings: TemporalConnectionSettings } {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    // An empty TEMPORAL_GRPC_META_X removes header x (envconfig's rule); other empty values are unset.
    if (v !== undefined && (v !== '' || k.startsWith('TEMPORAL_GRPC_META_'))) vars[k] = v;
  }
  for (const name of ['TEMPORAL_TLS', 'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION']) {
    const value = vars[name];
    if (value !== undefined && !['true', '1', 'false', '0'].includes(value)) throw new Error(`${name}="${value}" must be true or false`);
  }
  const explicitFile = vars.TEMPORAL_CONFIG_FILE;
  const file = explicitFile ?? defaultConfigFile(vars);
  if (explicitFile && !existsSync(explicitFile)) throw new Error(`TEMPORAL_CONFIG_FILE=${explicitFile}: no such file`);
  const fileExists = file !== undefined && existsSync(file);
  const profileName = vars.TEMPORAL_PROFILE;
  let profile;
  try {
    profile = loadClientConfigProfile({
      ...(fileExists ? { configSource: { path: file } } : { disableFile: profileName === undefined }),
      ...(profileName ? { profile: profileName } : {}),
      overrideEnvVars: vars,
    });
  } catch (err) {
    const why = String((err as Error)?.message ?? err).split('\n')[0];
    if (profileName && /not found/.test(why)) {
      throw new Error(`TEMPORAL_PROFILE=${profileName}: ${fileExists ? `no profile "${profileName}" in ${file}` : `no config file${file ? ` at ${file}` : ''} (set TEMPORAL_CONFIG_FILE)`}`, { cause: err });
    }
    throw new Error(`cannot load the Temporal connection profile${fileExists ? ` from ${file}` : ''}: ${why}`, { cause: err });
  }
  const settings: TemporalConnectionSettings = {
    ...(profile.apiKey ? { apiKey: profile.apiKey } : {}),
    ...(profile.tls ? { tls: profile.tls } : {}),
    ...(profile.grpcMeta && Object.keys(profile.grpcMeta).length > 0 ? { metadata: profile.grpcMeta } : {}),
    origin: {
      variables: Object.keys(vars).filter((k) => k.startsWith('TEMPORAL_')),
      ...(fileExists ? { file } : {}),
      profile: profileName ?? 'default',
    },
  };
  return { address: profile.address || undefined, namespace: profile.namespace || undefined, settings };
}

/** Whether the connection uses TLS, as envconfig decides: a `tls` table not disabled, or an API key. */
export function usesTls(s: TemporalConnectionSettings | undefined): boolean {
  if (s?.tls) return s.tls.disabled !== true;
  return s?.apiKey !== undefined;
}

/** `TLS`, `mTLS`, `API key` or both, or `plaintext`: for logs (never the secrets). */
export function describeTemporalConnection(s: TemporalConnectionSettings | undefined): string {
  const parts = [...(usesTls(s) ? [s?.tls?.clientCert ? 'mTLS' : 'TLS'] : []), ...(s?.apiKey ? ['API key'] : [])];
  return parts.length > 0 ? parts.join(', ') : 'plaintext';
}

type TlsField = 'clientCert' | 'clientKey' | 'serverCACert' | 'serverName';
const FIELDS: Record<TlsField, { variable: string; toml: string; what: string }> = {
  clientCert: { variable: 'TEMPORAL_TLS_CLIENT_CERT', toml: 'client_cert', what: 'client certificate' },
  clientKey: { variable: 'TEMPORAL_TLS_CLIENT_KEY', toml: 'client_key', what: 'client key' },
  serverCACert: { variable: 'TEMPORAL_TLS_SERVER_CA_CERT', toml: 'server_ca_cert', what: 'server CA certificate' },
  serverName: { variable: 'TEMPORAL_TLS_SERVER_NAME', toml: 'server_name', what: 'server name' },
};

/**
 * The variable or profile field a TLS setting came from, e.g. `TEMPORAL_TLS_CLIENT_CERT_PATH`
 * or `tls.client_cert_path of profile "prod" in /home/me/.config/temporalio/temporal.toml`.
 */
export function tlsSettingName(s: TemporalConnectionSettings | undefined, field: TlsField): string {
  const { variable, toml } = FIELDS[field];
  const value = s?.tls?.[field];
  const suffix = field === 'serverName' ? '' : typeof value === 'object' && 'data' in value ? '_DATA' : '_PATH';
  const name = `${variable}${suffix}`;
  const origin = s?.origin;
  if (value === undefined || !origin?.file || origin.variables.includes(name)) return name;
  return `tls.${toml}${suffix.toLowerCase()} of profile "${origin.profile}" in ${origin.file}`;
}

function readMaterial(s: TemporalConnectionSettings, field: Exclude<TlsField, 'serverName'>): { pem: Buffer; label: string } | undefined {
  const source: ConfigDataSource | undefined = s.tls?.[field];
  if (!source) return undefined;
  const { what } = FIELDS[field];
  const setting = tlsSettingName(s, field);
  if (!('path' in source)) return { pem: Buffer.from(source.data), label: `the ${what} (${setting})` };
  const label = `the ${what} ${source.path} (${setting})`;
  try {
    return { pem: readFileSync(source.path), label };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : String((err as Error).message).split('\n')[0];
    throw new Error(`cannot read ${label}: ${why}`, { cause: err });
  }
}

function certificate(m: { pem: Buffer; label: string }): X509Certificate {
  try {
    if (!m.pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate');
    return new X509Certificate(m.pem);
  } catch (err) {
    throw new Error(`${m.label} is not a PEM certificate`, { cause: err });
  }
}

function privateKey(m: { pem: Buffer; label: string }): KeyObject {
  try {
    if (!m.pem.includes('PRIVATE KEY-----')) throw new Error('no PEM private key');
    return createPrivateKey(m.pem);
  } catch (err) {
    throw new Error(`${m.label} is not an unencrypted PEM private key`, { cause: err });
  }
}

/**
 * The SDK connection options for these settings (envconfig's `toClientOptions` mapping), with
 * the certificates and key read and checked: a missing, unreadable or malformed file, half an
 * mTLS pair or a key that does not match its certificate throws one line naming the setting.
 */
export function temporalConnectOptions(s: TemporalConnectionSettings | undefined): TemporalConnectOptions {
  if (!s) return {};
  let tls = s.tls;
  if (tls && tls.disabled !== true) {
    const ca = readMaterial(s, 'serverCACert');
    const cert = readMaterial(s, 'clientCert');
    const key = readMaterial(s, 'clientKey');
    if (ca) certificate(ca);
    if (cert && !key) throw new Error(`mTLS needs the client key too: ${tlsSettingName(s, 'clientCert')} is set, ${tlsSettingName(s, 'clientKey')} is not`);
    if (key && !cert) throw new Error(`mTLS needs the client certificate too: ${tlsSettingName(s, 'clientKey')} is set, ${tlsSettingName(s, 'clientCert')} is not`);
    if (cert && key && !certificate(cert).checkPrivateKey(privateKey(key))) {
      throw new Error(`${key.label} does not belong to ${cert.label}`);
    }
    tls = {
      ...tls,
      ...(ca ? { serverCACert: { data: ca.pem } } : {}),
      ...(cert ? { clientCert: { data: cert.pem } } : {}),
      ...(key ? { clientKey: { data: key.pem } } : {}),
    };
  }
  const { connectionOptions: o } = toClientOptions({ ...(s.apiKey ? { apiKey: s.apiKey } : {}), ...(tls ? { tls } : {}) });
  return {
    ...(o.tls !== undefined && o.tls !== null ? { tls: o.tls } : {}),
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    ...(s.metadata ? { metadata: s.metadata } : {}),
  };
}
