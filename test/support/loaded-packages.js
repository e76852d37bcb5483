'use strict';
// Preloaded with `node -r` by test/integration/cli/what-commands-load.test.ts: at exit, writes the
// npm packages the process loaded (by name, from require's cache) to PERFLOW_LOADED_PACKAGES_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const names = new Set();
  for (const file of Object.keys(require.cache)) {
    const m = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file.slice(file.lastIndexOf('node_modules')));
    if (m) names.add(m[1].replace(/\\/g, '/'));
  }
  writeFileSync(process.env.PERFLOW_LOADED_PACKAGES_FILE, JSON.stringify([...names].sort()));
});
