/** @type {import('jest').Config} */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

// A build (npm run build, npm pack) writes compiled copies of the sources to dist/.
const modulePathIgnorePatterns = ['<rootDir>/dist/'];

module.exports = {
  verbose: true,
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testEnvironmentOptions: { globalsCleanup: 'off' },
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testEnvironmentOptions: { globalsCleanup: 'off' },
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/quiet-runtime.ts'],
      slowTestThreshold: 30,
    },
  ],
};
