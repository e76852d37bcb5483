const { existsSync } = require('node:fs');
const { join, resolve } = require('node:path');

/** @type {import('jest').Config} */
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
  // jose (which @a2a-js/sdk requires) ships only ES modules: Node 20.19+ requires them as they
  // are, Jest's module system needs them as CommonJS.
  '/node_modules/jose/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
/** Jest transforms no package but jose. */
const transformIgnorePatterns = ['/node_modules/(?!jose/)'];

// A build (npm run build, npm pack) writes compiled copies of the sources to dist/.
const modulePathIgnorePatterns = ['<rootDir>/dist/'];

// Seed conformance: perflow compared with the seed documents, which CI has beside the checkout
// (../shared/seeds) and a clone elsewhere has only where PERFLOW_SEEDS_DIR names their folder.
// Without them the group is not run and says so in one line; PERFLOW_REQUIRE_SEEDS=1 (CI) runs
// it regardless, so missing documents fail there.
const seedsDir = process.env.PERFLOW_SEEDS_DIR ? resolve(process.env.PERFLOW_SEEDS_DIR) : join(__dirname, '..', 'shared', 'seeds');
const runSeeds = existsSync(seedsDir) || process.env.PERFLOW_REQUIRE_SEEDS === '1';
if (!runSeeds) {
  process.stderr.write(
    process.env.PERFLOW_SEEDS_DIR
      ? `seed conformance: not run, PERFLOW_SEEDS_DIR (${seedsDir}) is not a folder\n`
      : 'seed conformance: not run, the seed documents are not beside the checkout — set PERFLOW_SEEDS_DIR\n',
  );
}

module.exports = {
  verbose: true,
  // Two test files at once: integration tests mostly wait on the servers and on timers, so one
  // file at a time left half of a 2-core machine idle (14 min serial, 8.5 min so). Each file
  // shares the one Temporal and MongoDB server of the run with its own task queues and
  // databases; those that stop a server start their own. The global setup runs those servers on
  // one OS thread (GOMAXPROCS=1), which suits two workers: raise both together.
  maxWorkers: 2,
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testEnvironmentOptions: { globalsCleanup: 'off' },
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testEnvironmentOptions: { globalsCleanup: 'off' },
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/quiet-runtime.ts'],
      slowTestThreshold: 30,
    },
    ...(runSeeds
      ? [
          {
            displayName: 'seed conformance',
            testMatch: ['<rootDir>/test/seeds/**/*.test.ts'],
            transform,
      transformIgnorePatterns,
            modulePathIgnorePatterns,
            testEnvironment: 'node',
          },
        ]
      : []),
  ],
};
