#!/usr/bin/env node
'use strict';
/**
 * Prebuilds the workflow bundle of the compiled package (dist/workflow-bundle.js), so a worker
 * started from an installed perflow does not bundle at start (workers/workflow-source.ts).
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { bundleWorkflowCode } = require('@temporalio/worker');

const dist = join(__dirname, '..', 'dist');

bundleWorkflowCode({ workflowsPath: require.resolve(join(dist, 'workflows')) }).then(
  ({ code }) => {
    writeFileSync(join(dist, 'workflow-bundle.js'), code);
    process.stderr.write(`wrote dist/workflow-bundle.js (${Math.round(code.length / 1024)} KB)\n`);
  },
  (err) => {
    process.stderr.write(`bundle-workflows: ${err.message}\n`);
    process.exitCode = 1;
  },
);
