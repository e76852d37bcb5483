/**
 * A checkout's kept workflow bundle (workers/bundle-cache.ts): bundled once, used while nothing
 * it holds changed, bundled anew when a module it holds changes — whatever folder the module is
 * in relative to the working directory; the folder keeps only the bundles used last.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledModules, KEPT_BUNDLES, keptWorkflowBundle } from '../../../workers/bundle-cache';

jest.setTimeout(120_000);

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-bundle-cache-'));
  // The bundler resolves the Temporal workflow package from the workflows module's folder.
  symlinkSync(join(__dirname, '../../../node_modules'), join(dir, 'node_modules'));
  env = { PERFLOW_CACHE_DIR: join(dir, 'cache') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('bundles once, then uses the kept bundle until a module it holds changes', async () => {
  const helper = join(dir, 'answer.ts');
  const workflows = join(dir, 'workflows.ts');
  writeFileSync(helper, 'export const ANSWER = 41;\n');
  writeFileSync(workflows, "import { ANSWER } from './answer';\nexport async function answer(): Promise<number> { return ANSWER; }\n");
  const options = { workflowsPath: workflows, logger: quiet };

  const first = await keptWorkflowBundle(options, env);
  expect(first.bundled).toBe(true);
  expect(first.code).toContain('ANSWER = 41');
  // The modules are named from the working directory, which the temporary folder is not under.
  expect(bundledModules(first.code)).toEqual(expect.arrayContaining([helper, workflows]));
  expect(readdirSync(join(dir, 'cache', 'workflow-bundles'))).toHaveLength(1);

  expect(await keptWorkflowBundle(options, env)).toEqual({ code: first.code, bundled: false });

  writeFileSync(helper, 'export const ANSWER = 42;\n');
  const changed = await keptWorkflowBundle(options, env);
  expect(changed.bundled).toBe(true);
  expect(changed.code).toContain('ANSWER = 42');
  expect(await keptWorkflowBundle(options, env)).toEqual({ code: changed.code, bundled: false });
});

it('keeps the bundles used last: a new one replaces the one unused longest, and a used one stays', async () => {
  const cache = join(dir, 'pruned');
  const folder = join(cache, 'workflow-bundles');
  mkdirSync(folder, { recursive: true });
  const workflows = join(dir, 'pruned-workflows.ts');
  writeFileSync(workflows, 'export async function pruned(): Promise<number> { return 7; }\n');
  const options = { workflowsPath: workflows, logger: quiet };
  const prunedEnv = { PERFLOW_CACHE_DIR: cache };
  await keptWorkflowBundle(options, prunedEnv);
  const [own] = readdirSync(folder);
  // Other checkouts' bundles, used an hour ago and earlier (old-0 the longest ago); this one's, longer ago than all of them.
  const hourAgo = Date.now() / 1000 - 3_600;
  for (let i = 0; i < KEPT_BUNDLES; i++) {
    writeFileSync(join(folder, `old-${i}.json`), '{}');
    utimesSync(join(folder, `old-${i}.json`), hourAgo + i, hourAgo + i);
  }
  utimesSync(join(folder, own!), hourAgo - 60, hourAgo - 60);

  // Used again, it becomes the latest: nothing is bundled, nothing removed.
  expect((await keptWorkflowBundle(options, prunedEnv)).bundled).toBe(false);
  expect(readdirSync(folder)).toHaveLength(KEPT_BUNDLES + 1);

  // A new bundle: the folder keeps KEPT_BUNDLES, and old-0 and old-1, unused longest, are gone.
  writeFileSync(workflows, 'export async function pruned(): Promise<number> { return 8; }\n');
  await keptWorkflowBundle({ ...options, workflowInterceptorModules: [] }, prunedEnv);
  const left = readdirSync(folder);
  expect(left).toHaveLength(KEPT_BUNDLES);
  expect(left).toContain(own);
  expect(left).not.toContain('old-0.json');
  expect(left).not.toContain('old-1.json');
  expect(left).toContain('old-2.json');
});
