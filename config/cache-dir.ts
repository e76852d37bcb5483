/** perflow's cache folder: obtained server binaries, a checkout's workflow bundles. */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** PERFLOW_CACHE_DIR, else `$XDG_CACHE_HOME/perflow`, else `~/.cache/perflow`; made when missing. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.PERFLOW_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'perflow');
  mkdirSync(dir, { recursive: true });
  return dir;
}
