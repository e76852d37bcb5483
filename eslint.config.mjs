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
    files: ['workflows/**/*.ts', 'test/workflows/**/!(*activities).ts', 'bench/workflows.ts'],
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
            { group: ['**/activities', '**/activities/**'], message: 'import activity code as types only', allowTypeImports: true },
            { group: ['**/config/**', '**/memory/*', '**/client/**', '**/workers/**', '**/servers/**'], message: 'workflow code imports core/ and workflows/ only' },
            { group: ['**/core/codec/**'], message: 'payload codecs use node:crypto and run outside the sandbox (worker and client)' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'settings arrive as workflow arguments' }],
    },
  },
  {
    // Activities get their settings and clients from the worker (createActivities(deps)).
    files: ['activities/**/*.ts'],
    rules: { 'no-restricted-globals': ['error', { name: 'process', message: 'activities read no environment: the worker hands in what they need' }] },
  },
  {
    // The client shares the workflows' definitions, never their code.
    files: ['client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)workflows(/index)?$|(^|/)workflows/(?!definitions$)', message: 'the client imports workflows/definitions only (types may come from elsewhere)', allowTypeImports: true },
            { regex: '(^|/)workers/(?!workflow-source$)', message: 'the client does not build workers (the CLI loads the worker lazily)', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
