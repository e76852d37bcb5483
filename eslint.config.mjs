// @ts-check
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert', 'async_hooks', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs',
  'fs/promises', 'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream',
  'timers', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];
// Workflow code is replayed: it must not do I/O or read anything that differs between runs.
const forbiddenInWorkflows = [
  ...nodeBuiltins,
  ...nodeBuiltins.map((m) => `node:${m}`),
  'mongodb', 'openai', '@aws-sdk/*', '@modelcontextprotocol/*', '@temporalio/client', '@temporalio/worker',
  '@temporalio/activity', '@temporalio/testing', 'axios', 'undici', 'node-fetch',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'test/fixtures/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['workflows/**/*.ts', 'test/integration/support-workflows/**/!(*activities).ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: forbiddenInWorkflows.filter((m) => !m.includes('*')).map((name) => ({
            name,
            message: 'workflow code must stay deterministic: no I/O modules; do I/O in an activity',
          })),
          patterns: [
            { group: forbiddenInWorkflows.filter((m) => m.includes('*')), message: 'no I/O modules in workflow code' },
            { group: ['**/activities/**', '!**/activities/**/*types*'], message: 'import activity code as types only', allowTypeImports: true },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'settings arrive as workflow arguments' }],
    },
  },
);
