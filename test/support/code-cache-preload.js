'use strict';
// Preloaded (`node --require`) by the compiled CLI and workers the tests spawn, which then start
// as bin/perflow.js starts an installed package's CLI: with Node's compile cache (22.1+) or
// perflow's own (Node 20). Without it each of the suite's hundreds of commands compiles its
// modules afresh.
const nodeModule = require('node:module');
if (nodeModule.enableCompileCache) nodeModule.enableCompileCache();
else require('../../bin/code-cache').useCodeCache();
