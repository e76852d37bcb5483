// @ts-check
import tseslint from 'typescript-eslint';
import { importsOneWay } from './scripts/eslint-imports-one-way.mjs';

const IO_PACKAGES = ['mongodb', 'mongodb-memory-server', 'openai', '@aws-sdk/*', '@modelcontextprotocol/*', 'axios', 'undici', 'node-fetch'];
/** core/ (and the metric names) is imported by every side, the workflow sandbox included. */
const PURE = {
  builtins: true,
  packages: [...IO_PACKAGES, '@temporalio/*', '@opentelemetry/*'],
  why: 'pure code (the workflow sandbox loads it too): no Node built-ins, no I/O or runtime packages; put such code in the folder that runs it',
};
/** Workflow code is replayed: it must not do I/O or read anything that differs between runs. */
const SANDBOX = {
  builtins: true,
  packages: [...IO_PACKAGES, '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'],
  why: 'workflow code must stay deterministic: no I/O modules; do I/O in an activity',
};

const LIBRARY = ['core', 'config', 'codec', 'stores', 'telemetry', 'activities', 'workflows', 'workers', 'client'];

/**
 * What each layer's code may import besides its own layer: imports run one way, from the entry
 * points (cli, scripts) down to core/, and nothing imports cli/, scripts/ or test/ (tests may
 * import anything). `types` may be imported as types only (erased when compiled). A layer is a
 * folder, or one module (`telemetry/metric-names`) whose rule overrides its folder's; entries in
 * `may` name folders or modules alike; `packages` names the packages a layer must not load.
 * Checked for `import`, `export … from`, `require()`, `import()` and `import x = require()`
 * (scripts/eslint-imports-one-way.mjs).
 */
const LAYERS = {
  core: { may: [], packages: PURE },
  config: { may: ['core'] },
  codec: { may: ['core'] },
  stores: { may: ['core'] },
  telemetry: { may: ['core'], types: ['config'] },
  activities: { may: ['core', 'stores', 'telemetry'] },
  workflows: { may: ['core', 'telemetry/metric-names'], types: ['activities'], packages: SANDBOX },
  // The run kernel, which the agent types build on: it imports nothing of theirs (its rule overrides the folder's).
  'workflows/kernel': { files: ['workflows/kernel/**/*.ts'], may: ['core', 'telemetry/metric-names'], types: ['activities'], packages: SANDBOX },
  servers: { may: ['core', 'config'] },
  workers: { may: ['core', 'config', 'codec', 'stores', 'telemetry', 'activities', 'workflows'] },
  client: { may: ['core', 'config', 'codec', 'stores', 'telemetry', 'workflows/definitions', 'workflows/run-start'], types: ['workflows'] },
  // The web console: a server over the client library (and the event streams' store).
  console: { may: ['core', 'config', 'client', 'workflows/definitions'] },
  // perflow agents as MCP tools: a server over the client library, offering the console's folder of agent files.
  mcp: { may: ['core', 'config', 'client', 'workflows/definitions', 'console/offered-files'] },
  // perflow agents as A2A agents: a server over the client library, reusing the MCP server's runs of a folder's agents.
  a2a: { may: ['core', 'config', 'client', 'workflows/definitions', 'console/offered-files', 'console/token-scopes', 'mcp'] },
  // A shell over the client library; the worker only for `perflow worker`, which loads it lazily (cli/commands/worker.ts).
  cli: { may: ['core', 'config', 'codec', 'client', 'workers', 'console', 'mcp', 'a2a'] },
  bench: { may: [...LIBRARY, 'servers'] },
  scripts: { may: [...LIBRARY, 'console', 'servers', 'bench'] },
  // Pure constants that workflow code counts with (the workflow-side counters are workflows/kernel/metrics.ts).
  'telemetry/metric-names': { may: [], packages: PURE },
  // Test and benchmark workflows: sandbox code outside workflows/.
  'test/workflows': { files: ['test/workflows/**/!(*activities).ts'], may: ['core', 'workflows'], types: ['activities'], packages: SANDBOX },
  'bench/workflows': { may: ['core', 'workflows'], types: ['bench/activities'], packages: SANDBOX },
};

/** The files a layer governs: a folder's TypeScript, or one module. */
const filesOf = (layer) => LAYERS[layer].files ?? [layer.includes('/') ? `${layer}.ts` : `${layer}/**/*.ts`];
const SANDBOX_FILES = Object.keys(LAYERS).filter((layer) => LAYERS[layer].packages === SANDBOX).flatMap(filesOf);

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'test/fixtures/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { perflow: { rules: { 'imports-one-way': importsOneWay } } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...Object.entries(LAYERS).map(([layer, { may, types = [], packages }]) => ({
    files: filesOf(layer),
    rules: { 'perflow/imports-one-way': ['error', { layer, may, types, ...(packages ? { packages } : {}) }] },
  })),
  {
    files: SANDBOX_FILES,
    rules: { 'no-restricted-globals': ['error', { name: 'process', message: 'settings arrive as workflow arguments' }] },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'core/ is pure: settings arrive as arguments' },
        { name: 'Buffer', message: 'core/ is pure and loads in the workflow sandbox: use Uint8Array and TextEncoder' },
      ],
    },
  },
  {
    // Activities get their settings and clients from the worker (createActivities(deps)).
    files: ['activities/**/*.ts'],
    rules: { 'no-restricted-globals': ['error', { name: 'process', message: 'activities read no environment: the worker hands in what they need' }] },
  },
  {
    // config/ owns the environment; the entry points (workers, client, cli, scripts) hand it down.
    files: ['stores/**/*.ts', 'codec/**/*.ts', 'telemetry/**/*.ts', 'servers/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read variables in config/, or take the environment as an argument as servers/ does' }],
    },
  },
);
