#!/usr/bin/env node
'use strict';
// An installed package runs the compiled CLI (dist/, built by `npm run build` before packing);
// a checkout runs its TypeScript sources through tsx, so edits take effect without a build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// Node 22.1+: V8's compile cache (in the OS temp folder) spares later starts parsing and compiling
// every module again; older Node: perflow's own, for CommonJS modules (bin/code-cache.js).
const nodeModule = require('node:module');
if (nodeModule.enableCompileCache) nodeModule.enableCompileCache();
else require('./code-cache').useCodeCache();

const root = join(__dirname, '..');
/** Usage lines only: cli/main.ts answers them before it imports anything. */
const asksForUsage = (args) => args.length === 0 || ['--help', '-h', 'help'].includes(args[0]) || (args.length === 2 && ['--help', '-h'].includes(args[1]));

/** The CLI module: the compiled one in a package, the sources through tsx's loaders in a checkout. */
async function loadCli(args) {
  if (!existsSync(join(root, 'cli', 'main.ts'))) return require('../dist/cli/main.js');
  // Both of Node's loaders: `require` and `import()` (commands load heavy modules lazily). The
  // ESM loader's hooks take ~350 ms to register: not for usage lines, which import nothing.
  require('tsx/cjs');
  if (!asksForUsage(args)) await import('tsx/esm');
  return require('../cli/main.ts');
}

const args = process.argv.slice(2);
loadCli(args)
  .then((cli) => cli.main(args))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`perflow: ${err && err.message ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
