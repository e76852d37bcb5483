'use strict';
// Preloaded (`node --require`) by the compiled CLI and workers the tests spawn: bin/perflow.js
// starts an installed package's CLI with this code cache, and without it each of the suite's
// hundreds of commands compiles its modules afresh.
require('../../bin/code-cache').useCodeCache();
