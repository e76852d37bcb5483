#!/usr/bin/env node
'use strict';
// An installed package runs the compiled CLI (dist/, built by `npm run build` before packing);
// a checkout runs its TypeScript sources through tsx, so edits take effect without a build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// Node 22.1+: V8's compile cache (in the OS temp folder) spares later starts parsing and compiling every module again.
require('node:module').enableCompileCache?.();

const root = join(__dirname, '..');
/** The CLI module: the compiled one in a package, the sources through tsx's loaders in a checkout. */
async function loadCli() {
  if (!existsSync(join(root, 'cli', 'main.ts'))) return require('../dist/cli/main.js');
  // Both of Node's loaders: `require` and `import()` (commands load heavy modules lazily).
  require('tsx/cjs');
  await import('tsx/esm');
  return require('../cli/main.ts');
}

loadCli()
  .then((cli) => cli.main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`perflow: ${err && err.message ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
