/**
 * A checkout's kept workflow bundle (workers/bundle-cache.ts): bundled once, used while nothing
 * it holds changed, bundled anew when a module it holds changes — whatever folder the module is
 * in relative to the working directory.
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledModules, keptWorkflowBundle } from '../../../workers/bundle-cache';

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
