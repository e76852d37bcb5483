/**
 * The keys payloads are encrypted with: parsed from PERFLOW_ENCRYPTION_KEYS by config/env.ts,
 * used by the AES-256-GCM codec in codec/encryption.ts.
 */

/** AES-256 keys are 32 bytes. */
export const KEY_BYTES = 32;

export interface EncryptionKeyring {
  /** New payloads are encrypted with this key (the first of PERFLOW_ENCRYPTION_KEYS). */
  currentKeyId: string;
  /** Every key a payload may have been encrypted with, by ID (32 bytes each). */
  keys: ReadonlyMap<string, Uint8Array>;
}
