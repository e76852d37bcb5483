#!/usr/bin/env node
'use strict';
// An installed package runs the compiled CLI (dist/, built by `npm run build` before packing);
// a checkout runs its TypeScript sources through tsx, so edits take effect without a build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
let cli;
if (existsSync(join(root, 'cli', 'main.ts'))) {
  require('tsx/cjs');
  cli = require('../cli/main.ts');
} else {
  cli = require('../dist/cli/main.js');
}
cli.main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`perflow: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
