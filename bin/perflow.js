#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI through tsx, so no build step is needed.
require('tsx/cjs');
const { main } = require('../client/cli.ts');
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`perflow: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
