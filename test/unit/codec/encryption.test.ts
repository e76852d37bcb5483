import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec, ENCRYPTED_ENCODING, METADATA_ENCRYPTION_KEY_ID, PayloadDecryptionError } from '../../../codec/encryption';
import { clientConfigFromEnv, encryptionKeysFromEnv, parseEncryptionKeys, workerConfigFromEnv } from '../../../config/env';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const text = (b?: Uint8Array | null) => Buffer.from(b ?? []).toString('utf8');

describe('PERFLOW_ENCRYPTION_KEYS', () => {
  it('parses comma-separated KEY_ID:BASE64 entries, the first being the current key', () => {
    const ring = parseEncryptionKeys(` B:${keyB} , A:${keyA}`);
    expect(ring.currentKeyId).toBe('B');
    expect([...ring.keys.keys()]).toEqual(['B', 'A']);
    expect(Buffer.from(ring.keys.get('A')!).toString('base64')).toBe(keyA);
  });

  it('is off when unset or blank, and reaches both the worker and the client config', () => {
    expect(encryptionKeysFromEnv({})).toBeUndefined();
    expect(encryptionKeysFromEnv({ PERFLOW_ENCRYPTION_KEYS: '  ' })).toBeUndefined();
    expect(workerConfigFromEnv({}).encryption).toBeUndefined();
    expect(clientConfigFromEnv({ PERFLOW_ENCRYPTION_KEYS: `k1:${keyA}` }).encryption?.currentKeyId).toBe('k1');
    expect(workerConfigFromEnv({ PERFLOW_ENCRYPTION_KEYS: `k1:${keyA}` }).encryption?.currentKeyId).toBe('k1');
  });

  const short = randomBytes(16).toString('base64');
  it.each([
    ['an entry without a key ID', keyA, /PERFLOW_ENCRYPTION_KEYS has no "KEY_ID:"/],
    ['an empty entry', `A:${keyA},`, /entry 2 of PERFLOW_ENCRYPTION_KEYS is empty/],
    ['a bad key ID', `bad id:${keyA}`, /PERFLOW_ENCRYPTION_KEYS has a bad key ID "bad id"/],
    ['an empty key ID', `:${keyA}`, /bad key ID ""/],
    ['a key that is not base64', 'A:not*base64!', /PERFLOW_ENCRYPTION_KEYS: the key of "A" is not base64/],
    ['an empty key', 'A:', /the key of "A" is not base64/],
    ['a key that is not 32 bytes', `A:${short}`, /PERFLOW_ENCRYPTION_KEYS: the key of "A" is 16 bytes; AES-256 needs 32/],
    ['a duplicate key ID', `A:${keyA},B:${keyB},A:${keyB}`, /PERFLOW_ENCRYPTION_KEYS lists key ID "A" twice/],
  ])('rejects %s in one line naming the variable, without the key material', (_what, value, message) => {
    let error: Error | undefined;
    try {
      parseEncryptionKeys(value);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).toContain('PERFLOW_ENCRYPTION_KEYS');
    expect(error?.message).not.toContain('\n');
    for (const secret of [keyA, keyB, short]) expect(error?.message).not.toContain(secret);
  });

  it('fails the client config at start on a malformed value', () => {
    expect(() => clientConfigFromEnv({ PERFLOW_ENCRYPTION_KEYS: 'A:short' })).toThrow(/PERFLOW_ENCRYPTION_KEYS: the key of "A"/);
  });
});

describe('EncryptionCodec', () => {
  const codecOf = (value: string) => new EncryptionCodec(parseEncryptionKeys(value));
  const plain = defaultPayloadConverter.toPayload({ question: 'Who keeps the lighthouse?', n: 42 });

  it('round-trips a payload, and its ciphertext shows none of the plaintext', async () => {
    const codec = codecOf(`A:${keyA}`);
    const [encoded] = await codec.encode([plain]);
    expect(text(encoded.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encoded.metadata?.[METADATA_ENCRYPTION_KEY_ID])).toBe('A');
    expect(Buffer.from(encoded.data!).includes('lighthouse')).toBe(false);
    expect(Buffer.from(encoded.data!).includes('json/plain')).toBe(false);
    const [decoded] = await codec.decode([encoded]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ question: 'Who keeps the lighthouse?', n: 42 });
    expect(text(decoded.metadata?.encoding)).toBe('json/plain');
  });

  it('encrypts each payload with a fresh IV', async () => {
    const [x, y] = await codecOf(`A:${keyA}`).encode([plain, plain]);
    expect(Buffer.from(x.data!).equals(Buffer.from(y.data!))).toBe(false);
  });

  it('passes payloads that are not encrypted through decode unchanged', async () => {
    const [decoded] = await codecOf(`A:${keyA}`).decode([plain]);
    expect(decoded).toBe(plain);
    expect(await new EncryptionCodec().encode([plain])).toEqual([plain]);
  });

  it('rotates: encoded under A, decodes after the keys become "B,A", and new payloads use B', async () => {
    const [underA] = await codecOf(`A:${keyA}`).encode([plain]);
    const rotated = codecOf(`B:${keyB},A:${keyA}`);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([underA]))[0])).toEqual({ question: 'Who keeps the lighthouse?', n: 42 });
    const [underB] = await rotated.encode([plain]);
    expect(text(underB.metadata?.[METADATA_ENCRYPTION_KEY_ID])).toBe('B');
  });

  it('fails in one line naming the key ID when the key is not listed', async () => {
    const [underA] = await codecOf(`A:${keyA}`).encode([plain]);
    await expect(codecOf(`B:${keyB}`).decode([underA])).rejects.toThrow(
      new PayloadDecryptionError('a payload is encrypted with key "A", which PERFLOW_ENCRYPTION_KEYS does not list (it has "B"): add that key to read it'),
    );
    await expect(new EncryptionCodec().decode([underA])).rejects.toThrow('a payload is encrypted with key "A": set PERFLOW_ENCRYPTION_KEYS with that key to read it');
  });

  it('rejects tampered ciphertext, and a different key under the same ID', async () => {
    const [encoded] = await codecOf(`A:${keyA}`).encode([plain]);
    const data = Buffer.from(encoded.data!);
    data[20] ^= 0x01;
    await expect(codecOf(`A:${keyA}`).decode([{ ...encoded, data }])).rejects.toThrow(/encrypted with key "A" does not decrypt: it was altered/);
    await expect(codecOf(`A:${keyB}`).decode([encoded])).rejects.toThrow(PayloadDecryptionError);
    await expect(codecOf(`A:${keyA}`).decode([{ ...encoded, data: data.subarray(0, 10) }])).rejects.toThrow(/too short/);
  });
});
