/**
 * A checkout's workflow bundles, kept in perflow's cache folder (`workflow-bundles/`), so a
 * worker or a replay started from the sources bundles them once rather than at every start (an
 * installed package has its prebuilt bundle instead). A kept bundle is used only with the same
 * working directory (webpack names modules by their path from it), bundle options and
 * package-lock.json, and only while every module it holds still has the SHA-256 recorded beside
 * it; otherwise it is bundled and kept anew. The folder keeps the {@link KEPT_BUNDLES} bundles
 * used last: each checkout folder and lockfile has bundles of its own, 4–6 MB each.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { cacheDir } from '../config/cache-dir';

interface KeptBundle {
  /** SHA-256 of every module the bundle holds, by absolute path. */
  modules: Record<string, string>;
  code: string;
}

/** How many bundles the folder keeps: a checkout's plain and traced ones, and a few other checkouts' or test workflows'. */
export const KEPT_BUNDLES = 12;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const LOCKFILE = join(__dirname, '..', 'package-lock.json');

/** Where a bundle of these options is kept: named by what makes it. */
function keptFile(options: BundleOptions, env: NodeJS.ProcessEnv): string {
  const { logger: _logger, ...made } = options;
  const packages = existsSync(LOCKFILE) ? sha256(readFileSync(LOCKFILE)) : '';
  const key = sha256(JSON.stringify({ root: process.cwd(), options: made, packages })).slice(0, 16);
  return join(cacheDir(env), 'workflow-bundles', `${key}.json`);
}

/** The kept bundle's code, if it is there and none of its modules changed. */
function kept(file: string): string | undefined {
  try {
    const bundle = JSON.parse(readFileSync(file, 'utf8')) as KeptBundle;
    for (const [path, hash] of Object.entries(bundle.modules)) if (sha256(readFileSync(path)) !== hash) return undefined;
    return bundle.code;
  } catch {
    return undefined;
  }
}

/** The modules a bundle holds: webpack names each by its path from the working directory (`/***\/ "./core/text.ts"`). */
export function bundledModules(code: string): string[] {
  return [...code.matchAll(/^\/\*\*\*\/ "(\.\.?\/[^"]+)"/gm)].map((m) => resolve(m[1]!));
}

/**
 * The workflow bundle of `options`: the kept one while nothing it holds changed, else bundled
 * now and kept. `bundled` says whether it was bundled.
 */
export async function keptWorkflowBundle(options: BundleOptions, env: NodeJS.ProcessEnv = process.env): Promise<{ code: string; bundled: boolean }> {
  const file = keptFile(options, env);
  const code = kept(file);
  if (code !== undefined) {
    // Marked as used, so the folder's pruning keeps it.
    const now = new Date();
    try {
      utimesSync(file, now, now);
    } catch {
      // A read-only cache folder: the bundle is used all the same.
    }
    return { code, bundled: false };
  }
  const made = (await bundleWorkflowCode(options)).code;
  const modules = bundledModules(made);
  if (modules.length > 0) {
    const bundle: KeptBundle = { modules: Object.fromEntries(modules.map((p) => [p, sha256(readFileSync(p))])), code: made };
    mkdirSync(dirname(file), { recursive: true });
    // Written whole, then renamed: a process reading it meanwhile sees the old bundle or the new one.
    writeFileSync(`${file}.${process.pid}`, JSON.stringify(bundle));
    renameSync(`${file}.${process.pid}`, file);
    pruneKeptBundles(dirname(file));
  }
  return { code: made, bundled: true };
}

/** Removes all but the {@link KEPT_BUNDLES} bundles used last from `folder`. */
export function pruneKeptBundles(folder: string, keep = KEPT_BUNDLES): void {
  const bundles = readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ path: join(folder, name), used: statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.used - a.used);
  for (const { path } of bundles.slice(keep)) rmSync(path, { force: true });
}
