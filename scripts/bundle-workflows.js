#!/usr/bin/env node
'use strict';
/**
 * Prebuilds the workflow bundles of the compiled package, so a worker started from an installed
 * perflow does not bundle at start (workers/workflow-source.ts): dist/workflow-bundle.js, and
 * dist/workflow-bundle.traced.js with the OpenTelemetry workflow interceptors for workers that
 * export traces (telemetry/worker.ts).
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { bundleWorkflowCode } = require('@temporalio/worker');

const dist = join(__dirname, '..', 'dist');
const workflowsPath = require.resolve(join(dist, 'workflows'));
const { WORKFLOW_TRACING_MODULES } = require(join(dist, 'telemetry', 'worker'));
const { workflowBundleOptions } = require(join(dist, 'workers', 'workflow-source'));

async function main() {
  for (const [file, workflowInterceptorModules] of [
    ['workflow-bundle.js', []],
    ['workflow-bundle.traced.js', WORKFLOW_TRACING_MODULES],
  ]) {
    const { code } = await bundleWorkflowCode(workflowBundleOptions(workflowsPath, workflowInterceptorModules));
    writeFileSync(join(dist, file), code);
    process.stderr.write(`wrote dist/${file} (${Math.round(code.length / 1024)} KB)\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`bundle-workflows: ${err.message}\n`);
  process.exitCode = 1;
});
