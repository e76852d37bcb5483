/**
 * The workflow code bundled as workers bundle it, plain and traced (with the OpenTelemetry
 * workflow interceptors), for the replay suites and the harness's workers; perflow's workflows
 * unless a test names a workflows module of its own (test/workflows/).
 *
 * Kept as a checkout's worker keeps its bundle (workers/bundle-cache.ts: perflow's cache folder,
 * used while no module it holds changed), so a test run bundles the workflow code once, and a
 * later run not at all while nothing bundled has changed. perflow's own workflows are bundled
 * both ways at once, as the replay suites want both.
 */
import { WORKFLOW_TRACING_MODULES } from '../../telemetry/worker';
import { keptWorkflowBundle } from '../../workers/bundle-cache';
import { workflowBundleOptions } from '../../workers/workflow-source';

export type BundleKind = 'plain' | 'traced';

/** perflow's workflows module, which workers run unless given another. */
const PERFLOW_WORKFLOWS = require.resolve('../../workflows');

const INTERCEPTOR_MODULES: Record<BundleKind, readonly string[]> = { plain: [], traced: WORKFLOW_TRACING_MODULES };
const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

const bundleOf = (kind: BundleKind, workflowsPath: string) => keptWorkflowBundle({ ...workflowBundleOptions(workflowsPath, INTERCEPTOR_MODULES[kind]), logger: quietLogger });

/**
 * The workflow bundle of `kind`; bundling only when the kept one is missing or out of date.
 *
 * @param workflowsPath - the workflows module (default perflow's)
 */
export async function workflowBundle(kind: BundleKind, workflowsPath = PERFLOW_WORKFLOWS): Promise<{ code: string }> {
  const { code, bundled } = await bundleOf(kind, workflowsPath);
  if (bundled && workflowsPath === PERFLOW_WORKFLOWS) await bundleOf(kind === 'plain' ? 'traced' : 'plain', workflowsPath);
  return { code };
}
