/** PERFLOW_ENCRYPTION_KEYS: the payload codec's keyring (part of config/env.ts's variables; it re-exports these). */
import { KEY_BYTES, type EncryptionKeyring } from '../core/encryption-keyring';

const KEYS_VAR = 'PERFLOW_ENCRYPTION_KEYS';
const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/**
 * PERFLOW_ENCRYPTION_KEYS: comma-separated `KEY_ID:BASE64_32_BYTES` (AES-256 keys, e.g. from
 * `openssl rand -base64 32`); the first is the current key, the others still decrypt. Errors are
 * one line naming the variable and what is wrong, never the key material.
 */
export function parseEncryptionKeys(value: string): EncryptionKeyring {
  const entries = value.split(',').map((e) => e.trim());
  const keys = new Map<string, Uint8Array>();
  entries.forEach((entry, i) => {
    const where = entries.length > 1 ? `entry ${i + 1} of ${KEYS_VAR}` : KEYS_VAR;
    if (entry === '') throw new Error(`${where} is empty: use KEY_ID:BASE64_32_BYTES, comma-separated, the current key first`);
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`${where} has no "KEY_ID:" before its key: use KEY_ID:BASE64_32_BYTES, comma-separated, the current key first`);
    const id = entry.slice(0, colon).trim();
    const encoded = entry.slice(colon + 1).trim();
    if (!KEY_ID.test(id)) throw new Error(`${where} has a bad key ID "${id.slice(0, 64)}": use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
    if (keys.has(id)) throw new Error(`${KEYS_VAR} lists key ID "${id}" twice: each key needs an ID of its own`);
    if (encoded === '' || !BASE64.test(encoded)) throw new Error(`${KEYS_VAR}: the key of "${id}" is not base64 (make one with: openssl rand -base64 32)`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`${KEYS_VAR}: the key of "${id}" is ${key.length} bytes; AES-256 needs ${KEY_BYTES} (make one with: openssl rand -base64 32)`);
    keys.set(id, new Uint8Array(key));
  });
  return { currentKeyId: keys.keys().next().value as string, keys };
}

/** The keyring of PERFLOW_ENCRYPTION_KEYS; undefined when it is unset or blank (no encryption). */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKeyring | undefined {
  const value = env[KEYS_VAR]?.trim();
  return value ? parseEncryptionKeys(value) : undefined;
}

/** The client's or worker's `encryption`, when the environment gives keys. */
export function withEncryption(env: NodeJS.ProcessEnv): { encryption?: EncryptionKeyring } {
  const encryption = encryptionKeysFromEnv(env);
  return encryption ? { encryption } : {};
}
