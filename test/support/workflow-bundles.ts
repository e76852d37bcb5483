/**
 * The workflow code bundled as workers bundle it, plain and traced (with the OpenTelemetry
 * workflow interceptors), for the replay suites and the harness's workers; perflow's workflows
 * unless a test names a workflows module of its own (test/workflows/).
 *
 * Both bundles are made in one go by whichever test asks first and kept in perflow's cache
 * directory (~/.cache/perflow/workflow-bundles), so a test run bundles the workflow code once,
 * and a later run not at all while nothing bundled has changed: a kept bundle is used only with
 * the same package-lock.json and if every module it holds (perflow's and node_modules') still
 * has the SHA-256 recorded beside it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { cacheDir } from '../../servers/binaries';
import { WORKFLOW_TRACING_MODULES } from '../../telemetry/worker';
import { workflowBundleOptions } from '../../workers/workflow-source';

export type BundleKind = 'plain' | 'traced';

/** perflow's workflows module, which workers run unless given another. */
const PERFLOW_WORKFLOWS = require.resolve('../../workflows');

const INTERCEPTOR_MODULES: Record<BundleKind, readonly string[]> = { plain: [], traced: WORKFLOW_TRACING_MODULES };
const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

function bundleOptions(kind: BundleKind, workflowsPath: string) {
  return workflowBundleOptions(workflowsPath, INTERCEPTOR_MODULES[kind]);
}

/** Where a kind of bundle is kept: named by what makes it (this checkout, the options with the workflows module, the installed packages). */
function keptFile(kind: BundleKind, workflowsPath: string): string {
  const packages = sha256(readFileSync(resolve(__dirname, '..', '..', 'package-lock.json')));
  const key = sha256(JSON.stringify({ root: process.cwd(), options: bundleOptions(kind, workflowsPath), packages })).slice(0, 16);
  return join(cacheDir(process.env), 'workflow-bundles', `${key}.${kind}.json`);
}

interface KeptBundle {
  /** SHA-256 of every module the bundle holds, by absolute path. */
  modules: Record<string, string>;
  code: string;
}

function keptBundle(kind: BundleKind, workflowsPath: string): string | undefined {
  let kept: KeptBundle;
  try {
    kept = JSON.parse(readFileSync(keptFile(kind, workflowsPath), 'utf8')) as KeptBundle;
    for (const [path, hash] of Object.entries(kept.modules)) if (sha256(readFileSync(path)) !== hash) return undefined;
  } catch {
    return undefined;
  }
  return kept.code;
}

async function bundleAndKeep(kind: BundleKind, workflowsPath: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ ...bundleOptions(kind, workflowsPath), logger: quietLogger });
  // webpack names each module by its path from the working directory: `/***/ "./core/text.ts"`.
  const paths = [...code.matchAll(/^\/\*\*\*\/ "(\.\/[^"]+)"/gm)].map((m) => resolve(m[1]!));
  const kept: KeptBundle = { modules: Object.fromEntries(paths.map((p) => [p, sha256(readFileSync(p))])), code };
  const file = keptFile(kind, workflowsPath);
  mkdirSync(dirname(file), { recursive: true });
  // Written whole, then renamed: a suite reading it meanwhile sees the old bundle or the new one.
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(kept));
  renameSync(`${file}.${process.pid}`, file);
  return code;
}

/**
 * The workflow bundle of `kind`; bundling only when the kept one is missing or out of date
 * (perflow's own workflows: both kinds at once, as the replay suites want both).
 *
 * @param workflowsPath - the workflows module (default perflow's)
 */
export async function workflowBundle(kind: BundleKind, workflowsPath = PERFLOW_WORKFLOWS): Promise<{ code: string }> {
  const kept = keptBundle(kind, workflowsPath);
  if (kept !== undefined) return { code: kept };
  const code = await bundleAndKeep(kind, workflowsPath);
  if (workflowsPath !== PERFLOW_WORKFLOWS) return { code };
  for (const other of ['plain', 'traced'] as const) if (other !== kind && keptBundle(other, workflowsPath) === undefined) await bundleAndKeep(other, workflowsPath);
  return { code };
}
