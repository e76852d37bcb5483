#!/usr/bin/env node
'use strict';
/**
 * Installs the locked npm dependencies when `node_modules` is missing or was installed from
 * another package-lock.json, so `npm run demo` and `npm test` work first thing on a bare clone.
 * Plain JavaScript on purpose: it runs before TypeScript tooling is installed.
 *
 * The install is remembered by the lockfile's hash in node_modules/.perflow-lock-hash; an
 * install made by hand (npm ci / npm install) after the last lockfile change counts too.
 */
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const lockfile = join(root, 'package-lock.json');
const modules = join(root, 'node_modules');
const stamp = join(modules, '.perflow-lock-hash');
const npmLock = join(modules, '.package-lock.json');

const lockHash = () => createHash('sha256').update(readFileSync(lockfile)).digest('hex');

function upToDate(hash) {
  if (!existsSync(modules)) return false;
  if (existsSync(stamp)) return readFileSync(stamp, 'utf8').trim() === hash;
  // Installed by hand: npm rewrites its hidden lockfile on every install.
  return existsSync(npmLock) && statSync(npmLock).mtimeMs >= statSync(lockfile).mtimeMs;
}

function npm(args) {
  const command = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return spawnSync(command, [...args, '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] }).status === 0;
}

function main() {
  const hash = lockHash();
  if (upToDate(hash)) {
    if (!existsSync(stamp)) writeFileSync(stamp, `${hash}\n`);
    return 0;
  }
  process.stderr.write('[perflow] installing the npm dependencies from package-lock.json (first use; about 20 s on a fast network)\n');
  const started = Date.now();
  // `npm ci` only: it installs exactly the lockfile and never rewrites it. When it refuses, the
  // lockfile and package.json disagree; say so rather than let `npm install` rewrite the lockfile.
  if (!npm(['ci'])) {
    process.stderr.write('[perflow] `npm ci` could not install package-lock.json (see the npm output above). If it says the lockfile is out of sync, run `npm install` and commit package-lock.json with the package.json change that needs it\n');
    return 1;
  }
  writeFileSync(stamp, `${lockHash()}\n`);
  process.stderr.write(`[perflow] dependencies installed in ${Math.round((Date.now() - started) / 1000)} s\n`);
  return 0;
}

process.exitCode = main();
