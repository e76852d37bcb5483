/**
 * Where the worker finds its workflow code. An installed package carries a bundle prebuilt by
 * `npm run build` (dist/workflow-bundle.js), so its workers start without bundling; a checkout
 * bundles the sources at worker start.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Runtime, bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';

/** Written by scripts/bundle-workflows.js beside the compiled modules. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';
/** The same workflows with the OpenTelemetry workflow interceptors, for traced workers (scripts/bundle-workflows.js). */
export const TRACED_WORKFLOW_BUNDLE_FILE = 'workflow-bundle.traced.js';

export type WorkflowSource = Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'>;

/** The prebuilt bundle when there is one (the traced one for a traced worker), else the sources. */
export function workflowSource(options: { traced?: boolean } = {}): WorkflowSource {
  const codePath = join(__dirname, '..', options.traced ? TRACED_WORKFLOW_BUNDLE_FILE : WORKFLOW_BUNDLE_FILE);
  return existsSync(codePath) ? { workflowBundle: { codePath } } : { workflowsPath: require.resolve('../workflows') };
}

/** For the worker's start line: where its workflow code comes from. */
export function describeWorkflowSource(source: WorkflowSource = workflowSource()): string {
  return source.workflowBundle && 'codePath' in source.workflowBundle
    ? `workflows from the prebuilt bundle ${source.workflowBundle.codePath}`
    : 'workflows bundled from the sources at start';
}

/**
 * The workflow code as the worker runs it, bundled once, and the build ID naming it:
 * `perflow+` and 20 hex digits of the bundle's SHA-256. Every workflow task and activity start
 * in a history records the build ID, so a short one keeps each step's history smaller than the
 * SDK's default (its package name, version and the whole 64-digit checksum). Options the
 * bundle needs (workflow interceptor modules, payload converters) are passed here, not to the
 * worker: `interceptorModules` go into a bundle made from the sources (a prebuilt bundle has
 * its own).
 */
export async function workflowCode(
  source: WorkflowSource = workflowSource(),
  options: { interceptorModules?: readonly string[] } = {},
): Promise<{ workflowBundle: { code: string }; buildId: string }> {
  const bundle = source.workflowBundle;
  const code =
    bundle && 'code' in bundle
      ? bundle.code
      : bundle && 'codePath' in bundle
        ? await readFile(bundle.codePath, 'utf8')
        : (
            await bundleWorkflowCode({
              workflowsPath: source.workflowsPath!,
              ...(options.interceptorModules?.length ? { workflowInterceptorModules: [...options.interceptorModules] } : {}),
              logger: Runtime.instance().logger,
            })
          ).code;
  return { workflowBundle: { code }, buildId: `perflow+${createHash('sha256').update(code).digest('hex').slice(0, 20)}` };
}
