/**
 * The package's own build (`npm run build`: dist/, the compiled modules and the prebuilt workflow
 * bundles) for the integration tests, made once by the global setup and again only when a source
 * it compiles changed. Tests spawn the compiled CLI ({@link BUILT_CLI}) as an installed package
 * runs it: a spawn through tsx compiles or loads every module's transform first, which took
 * ~0.4 s of CPU more per command. `npx perflow` in a checkout still runs the sources
 * (commands-as-started.test.ts checks that way too).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = join(__dirname, '..', '..');
/** The compiled CLI's entry point (what bin/perflow.js runs in an installed package). */
export const BUILT_CLI = join(root, 'dist', 'cli', 'main.js');
/** The SHA-256 of the sources dist/ was built from (outside dist/, so `npm pack` does not ship it). */
const STAMP = join(root, 'node_modules', '.perflow-dist-sources');
/** Held while one test run builds: two `jest` runs in one checkout must not write dist/ at once. */
const LOCK = join(root, 'node_modules', '.perflow-dist-lock');

/** What the build reads: the folders it compiles (and what they import), its scripts and settings. */
const SOURCE_DIRS = ['activities', 'cli', 'client', 'codec', 'config', 'console', 'core', 'mcp', 'stores', 'telemetry', 'workers', 'workflows'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', join('scripts', 'bundle-workflows.js')];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/** A hash of every file the build reads, by path and content. */
export function sourcesHash(): string {
  const hash = createHash('sha256');
  const files = [...SOURCE_DIRS.flatMap((d) => filesUnder(join(root, d))), ...SOURCE_FILES.map((f) => join(root, f))].sort();
  for (const file of files) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const built = (hash: string) => existsSync(BUILT_CLI) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash;

/** Takes the build lock, waiting for another test run's build (a lock older than 10 minutes is a crashed run's). */
async function lock(): Promise<() => void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 600_000) rmSync(LOCK, { recursive: true, force: true });
      else await sleep(500);
    }
  }
}

function npmRunBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build failed (exit ${code}):\n${output}`))));
  });
}

/** Builds the package unless dist/ was built from these very sources; returns whether it built. */
export async function ensurePackageBuilt(): Promise<boolean> {
  const hash = sourcesHash();
  if (built(hash)) return false;
  const unlock = await lock();
  try {
    if (built(hash)) return false;
    rmSync(STAMP, { force: true });
    const started = Date.now();
    await npmRunBuild();
    writeFileSync(STAMP, `${hash}\n`);
    process.stderr.write(`[perflow] built the package for the tests in ${Math.round((Date.now() - started) / 1000)} s\n`);
    return true;
  } finally {
    unlock();
  }
}
