/**
 * Duplicate-key errors: how perflow's inserts stay idempotent (a document keyed by what it records
 * is inserted once; a repeated insert finds it there).
 */
import { mongoDriver } from './mongodb-driver';

export const DUPLICATE_KEY = 11000;

/**
 * The positions of an insert's documents that were there already, or undefined when the error is
 * anything else (or holds another error besides): a single insert's duplicate is position 0.
 */
export function duplicatePositions(err: unknown): number[] | undefined {
  const { MongoBulkWriteError, MongoServerError } = mongoDriver();
  const errors = err instanceof MongoBulkWriteError ? [err.writeErrors].flat() : err instanceof MongoServerError ? [{ code: err.code, index: 0 }] : [];
  if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) return undefined;
  return errors.map((e) => e.index);
}

/** Whether an insert failed only because its documents were there already. */
export const isDuplicateKey = (err: unknown): boolean => duplicatePositions(err) !== undefined;

/** Rethrows anything but a duplicate key (for `.catch` of an insert that may repeat). */
export function ignoreDuplicates(err: unknown): void {
  if (!isDuplicateKey(err)) throw err;
}
