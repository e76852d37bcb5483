/**
 * The seed documents the seed conformance tests compare perflow with: the folder named by
 * PERFLOW_SEEDS_DIR, else ../shared/seeds beside the checkout (as CI has it). jest.config.js
 * runs these tests only where that folder exists, or where PERFLOW_REQUIRE_SEEDS=1 (CI) says
 * they must run; then a missing document fails its suite in one line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = process.env.PERFLOW_SEEDS_DIR ? resolve(process.env.PERFLOW_SEEDS_DIR) : join(__dirname, '..', '..', '..', 'shared', 'seeds');

/** The text of seed document `file` (e.g. `002_be5fb34948a69957.txt`). */
export function seedDocument(file: string): string {
  const path = join(dir, file);
  if (!existsSync(path)) throw new Error(`seed document ${path} not found: set PERFLOW_SEEDS_DIR to the folder of the seed documents`);
  return readFileSync(path, 'utf8');
}
