/**
 * Reading what people hand the CLI and the client library — agent files, steps files, history
 * files, JSON options — where every problem becomes one {@link PerflowError} line naming the
 * file (or option) to fix: `not_found` for a missing file, else `invalid`.
 */
import { readFile } from 'node:fs/promises';
import { PerflowError } from './errors';

/** A text file's contents; `what` names it in the error (`agent file`, `steps file`, …). */
export async function readTextFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new PerflowError('not_found', `${what} not found: ${file}`, { cause: err });
    throw new PerflowError('invalid', `cannot read ${what} ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** Parsed JSON; `source` names where the text came from in the error (`agent file a.json`, `--input`). */
export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new PerflowError('invalid', `${source} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}

/** A JSON file's value, or a one-line error: not found, unreadable, or not JSON. */
export async function readJsonFile(file: string, what: string): Promise<unknown> {
  return parseJson(await readTextFile(file, what), `${what} ${file}`);
}

/** A JSON object given as an option's value (`--input '{"x": 1}'`). */
export function parseJsonObject(text: string, option: string): Record<string, unknown> {
  const value = parseJson(text, option);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PerflowError('invalid', `${option} must be a JSON object`);
  return value as Record<string, unknown>;
}
