/**
 * Where the worker finds its workflow code. An installed package carries a bundle prebuilt by
 * `npm run build` (dist/workflow-bundle.js), so its workers start without bundling; a checkout
 * bundles the sources at worker start.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';

/** Written by scripts/bundle-workflows.js beside the compiled modules. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

export type WorkflowSource = Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'>;

export function workflowSource(): WorkflowSource {
  const codePath = join(__dirname, '..', WORKFLOW_BUNDLE_FILE);
  return existsSync(codePath) ? { workflowBundle: { codePath } } : { workflowsPath: require.resolve('../workflows') };
}

/** For the worker's start line: where its workflow code comes from. */
export function describeWorkflowSource(source: WorkflowSource = workflowSource()): string {
  return source.workflowBundle && 'codePath' in source.workflowBundle
    ? `workflows from the prebuilt bundle ${source.workflowBundle.codePath}`
    : 'workflows bundled from the sources at start';
}
