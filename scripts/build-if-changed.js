#!/usr/bin/env node
'use strict';
/**
 * The package's own build (`npm run build`: dist/, the compiled modules and the prebuilt workflow
 * bundles), made again only when a file it reads changed since the last one: `npm test` makes it
 * beside the type check and lint (scripts/checks.js), and the integration tests' global setup
 * makes sure of it, as the tests spawn the compiled CLI and worker. Plain JavaScript: it runs
 * before any TypeScript tooling.
 */
const { spawn } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
/** The compiled CLI's entry point (what bin/perflow.js runs in an installed package). */
const BUILT_CLI = join(root, 'dist', 'cli', 'main.js');
/** The SHA-256 of the sources dist/ was built from (outside dist/, so `npm pack` does not ship it). */
const STAMP = join(root, 'node_modules', '.perflow-dist-sources');
/** Held while one process builds: two test runs in one checkout must not write dist/ at once. */
const LOCK = join(root, 'node_modules', '.perflow-dist-lock');

/** What the build reads: the folders it compiles (and what they import), its scripts and settings. */
const SOURCE_DIRS = ['a2a', 'activities', 'cli', 'client', 'codec', 'config', 'console', 'core', 'mcp', 'stores', 'telemetry', 'workers', 'workflows'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', join('scripts', 'bundle-workflows.js')];

const filesUnder = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

/** A hash of every file the build reads, by path and content. */
function sourcesHash() {
  const hash = createHash('sha256');
  const files = [...SOURCE_DIRS.flatMap((d) => filesUnder(join(root, d))), ...SOURCE_FILES.map((f) => join(root, f))].sort();
  for (const file of files) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const built = (hash) => existsSync(BUILT_CLI) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the build lock, waiting for another process's build (a lock older than 10 minutes is a crashed one's). */
async function lock() {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const since = statSync(LOCK, { throwIfNoEntry: false });
      if (since && Date.now() - since.mtimeMs > 600_000) rmSync(LOCK, { recursive: true, force: true });
      else await sleep(500);
    }
  }
}

function npmRunBuild() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-8_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build failed (exit ${code}):\n${output}`))));
  });
}

/** Builds the package unless dist/ was built from these very sources; resolves whether it built. */
async function ensurePackageBuilt() {
  const hash = sourcesHash();
  if (built(hash)) return false;
  const unlock = await lock();
  try {
    if (built(hash)) return false;
    rmSync(STAMP, { force: true });
    const started = Date.now();
    await npmRunBuild();
    writeFileSync(STAMP, `${hash}\n`);
    process.stderr.write(`[perflow] built the package (dist/) in ${Math.round((Date.now() - started) / 1000)} s\n`);
    return true;
  } finally {
    unlock();
  }
}

module.exports = { BUILT_CLI, ensurePackageBuilt, sourcesHash };

if (require.main === module) {
  ensurePackageBuilt().then(
    (didBuild) => {
      if (!didBuild) process.stderr.write('[perflow] dist/ is up to date with the sources\n');
    },
    (err) => {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
