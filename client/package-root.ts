/** Where the perflow package lies, and its version: one level above this module in a checkout, two when compiled (dist/client/). */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export function packageRoot(): string {
  const here = __dirname;
  return existsSync(join(here, '..', 'package.json')) ? resolve(here, '..') : resolve(here, '..', '..');
}

/** The package's version (package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
