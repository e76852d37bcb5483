#!/usr/bin/env node
'use strict';
/**
 * What `npm test` runs before Jest, side by side: the type check, ESLint, the compose file's
 * check and the package's build (scripts/build-if-changed.js, which the integration tests spawn).
 * Each is one process on one core; run one after another they took twice as long on two cores.
 * Each one's output is printed whole when it ends; any failure fails the run, after all ended.
 */
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const CHECKS = [
  ['typecheck', npm, ['run', '--silent', 'typecheck']],
  ['lint', npm, ['run', '--silent', 'lint']],
  ['compose', npm, ['run', '--silent', 'check:compose']],
  ['build', process.execPath, [join(__dirname, 'build-if-changed.js')]],
];

function run([name, command, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => {
      process.stdout.write(`\n> ${name}: could not start (${err.message})\n${output}`);
      resolve({ name, ok: false });
    });
    child.on('exit', (code) => {
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stdout.write(`\n> ${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds} s\n${output}`);
      resolve({ name, ok: code === 0 });
    });
  });
}

Promise.all(CHECKS.map(run)).then((results) => {
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  if (failed.length > 0) {
    process.stderr.write(`\nfailed: ${failed.join(', ')}\n`);
    process.exitCode = 1;
  }
});
