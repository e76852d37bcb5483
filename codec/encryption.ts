/**
 * AES-256-GCM payload encryption: a {@link PayloadCodec} for the worker, the client and the
 * codec server, with keys from PERFLOW_ENCRYPTION_KEYS (parsed in config/env.ts).
 *
 * Node only (`node:crypto`, hence outside core/): never import this from workflow code — the
 * worker applies codecs outside the workflow sandbox.
 *
 * The format is the one of Temporal's samples-typescript `encryption` sample: the whole original
 * Payload proto (metadata and data) is serialized (length-delimited) and encrypted; the new
 * payload's metadata says `encoding: binary/encrypted` and `encryption-key-id: <id>`; its data
 * is the 12-byte IV, the ciphertext and the 16-byte GCM tag. Payloads that are not encrypted
 * pass through decode unchanged, so runs recorded before encryption was turned on still read.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { EncryptionKeyring } from '../core/encryption-keyring';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A payload that cannot be decrypted: its key is not configured, or it was altered. One line. */
export class PayloadDecryptionError extends Error {
  constructor(
    message: string,
    /** The key ID the payload names, when it names one. */
    readonly keyId?: string,
  ) {
    super(message);
    this.name = 'PayloadDecryptionError';
  }
}

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

/** Whether a payload is one this codec encrypted (by its metadata). */
export function isEncrypted(payload: Payload): boolean {
  return text(payload.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING;
}

/**
 * Encrypts payloads with the keyring's current key and decrypts them with the key their
 * metadata names. Without a keyring it encrypts nothing and fails in one line on an encrypted
 * payload (so a client without the keys says why it cannot read a run).
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(readonly keyring?: EncryptionKeyring) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const ring = this.keyring;
    if (!ring) return payloads;
    const key = ring.keys.get(ring.currentKeyId);
    if (!key) throw new Error(`the current encryption key "${ring.currentKeyId}" is not in the keyring`);
    return payloads.map((payload) => ({
      metadata: {
        [METADATA_ENCODING_KEY]: utf8(ENCRYPTED_ENCODING),
        [METADATA_ENCRYPTION_KEY_ID]: utf8(ring.currentKeyId),
      },
      data: encrypt(temporal.api.common.v1.Payload.encodeDelimited(payload).finish(), key),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const keyId = text(payload.metadata?.[METADATA_ENCRYPTION_KEY_ID]);
      if (!keyId) throw new PayloadDecryptionError(`an encrypted payload has no ${METADATA_ENCRYPTION_KEY_ID} metadata: it cannot be decrypted`);
      const key = this.keyring?.keys.get(keyId);
      if (!key) throw new PayloadDecryptionError(missingKeyMessage(keyId, this.keyring), keyId);
      const plain = decrypt(payload.data ?? new Uint8Array(), key, keyId);
      try {
        return temporal.api.common.v1.Payload.decodeDelimited(plain);
      } catch (err) {
        throw new PayloadDecryptionError(`a payload decrypted with key "${keyId}" is not a Temporal payload (${(err as Error).message})`, keyId);
      }
    });
  }
}

/** Why a payload encrypted with `keyId` cannot be read with `keyring`, in one line. */
export function missingKeyMessage(keyId: string, keyring?: EncryptionKeyring): string {
  return keyring
    ? `a payload is encrypted with key "${keyId}", which PERFLOW_ENCRYPTION_KEYS does not list (it has ${[...keyring.keys.keys()].map((k) => `"${k}"`).join(', ')}): add that key to read it`
    : `a payload is encrypted with key "${keyId}": set PERFLOW_ENCRYPTION_KEYS with that key to read it`;
}

/** The key IDs of the encrypted payloads anywhere in `value` (e.g. a history), first seen first. */
export function encryptionKeyIdsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const metadata = (value as { metadata?: unknown }).metadata;
  if (metadata && typeof metadata === 'object' && isEncrypted(value as Payload)) {
    const id = text((metadata as Record<string, Uint8Array>)[METADATA_ENCRYPTION_KEY_ID]);
    if (id) found.add(id);
    return found;
  }
  for (const v of Object.values(value)) encryptionKeyIdsIn(v, found);
  return found;
}

/**
 * The module of perflow's failure converter (./failure-converter): failure messages and stack
 * traces as an encoded payload. Workers, the workflow bundles (workers/workflow-source.ts) and
 * clients all name it, with keys or without.
 */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * The data converter of perflow's workers and clients: the default payload converter, the
 * failure converter that encodes messages and stack traces, and the encryption codec.
 */
export function encryptionDataConverter(keyring?: EncryptionKeyring): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keyring)], failureConverterPath: FAILURE_CONVERTER_PATH };
}

/**
 * Seals and opens text the way payloads are (runs' event streams in MongoDB): a JSON payload
 * through the codec, stored as the Payload proto's bytes. Without keys text is sealed as a
 * plain payload (callers store it unsealed instead).
 */
export function textSealer(keyring: EncryptionKeyring): { seal(text: string): Promise<Uint8Array>; open(sealed: Uint8Array): Promise<string> } {
  const codec = new EncryptionCodec(keyring);
  const Proto = temporal.api.common.v1.Payload;
  return {
    async seal(value) {
      const [payload] = await codec.encode([{ metadata: { [METADATA_ENCODING_KEY]: utf8('json/plain') }, data: utf8(value) }]);
      return Proto.encode(payload).finish();
    },
    async open(sealed) {
      const [payload] = await codec.decode([Proto.decode(sealed)]);
      return text(payload.data) ?? '';
    },
  };
}

function encrypt(plain: Uint8Array, key: Uint8Array): Uint8Array {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
  return new Uint8Array(Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]));
}

function decrypt(data: Uint8Array, key: Uint8Array, keyId: string): Uint8Array {
  if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptionError(`an encrypted payload (key "${keyId}") is too short to be AES-256-GCM data`, keyId);
  const iv = data.subarray(0, IV_BYTES);
  const tag = data.subarray(data.length - TAG_BYTES);
  const decipher = createDecipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return new Uint8Array(Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]));
  } catch {
    throw new PayloadDecryptionError(`a payload encrypted with key "${keyId}" does not decrypt: it was altered, or the key with that ID is not the one it was encrypted with`, keyId);
  }
}
