/**
 * Where the worker finds its workflow code. An installed package carries a bundle prebuilt by
 * `npm run build` (dist/workflow-bundle.js), so its workers start without bundling; a checkout
 * bundles the sources at worker start.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Runtime, type BundleOptions, type WorkerOptions } from '@temporalio/worker';
import { keptWorkflowBundle } from './bundle-cache';
import { FAILURE_CONVERTER_PATH } from '../codec/encryption';

/** Written by scripts/bundle-workflows.js beside the compiled modules. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';
/** The same workflows with the OpenTelemetry workflow interceptors, for traced workers (scripts/bundle-workflows.js). */
export const TRACED_WORKFLOW_BUNDLE_FILE = 'workflow-bundle.traced.js';

export type WorkflowSource = Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'>;

/**
 * Modules all workflows of a worker share instead of each evaluating its own copy (the SDK's
 * `preloadModules`, loaded once into its reusable V8 context): zod, the core modules workflow
 * code imports that hold only functions and constants, and perflow's failure converter. Evaluating them for every workflow made
 * each cached workflow cost megabytes and each new executor child milliseconds of CPU. The SDK
 * freezes their exports, so a shared module must not export schema instances (zod writes into a
 * schema on its first parse: core/agent-types builds its schemas on first use) or anything a
 * workflow changes. Every module of core/agent-types/ is shared, a new agent type's included.
 */
export const SHARED_WORKFLOW_MODULES: readonly string[] = [
  'zod',
  ...[
    '../core/zod-defaults',
    '../core/text',
    '../core/decisions',
    '../core/llm-types',
    '../core/json-in-text',
    '../core/prompts',
    '../core/typed-output',
    '../core/guardrails',
    '../core/planner-output',
    '../core/template',
    '../core/datetime',
    '../core/memory-ids',
    '../core/schema-check',
    '../core/tool-types',
    '../core/run-events',
    '../core/fingerprint',
    '../core/webhooks',
    '../core/scoring',
    '../telemetry/metric-names',
    '../core/agent-file/parameter-defaults',
    '../core/agent-file/llm-interfaces',
    '../core/agent-file/instructions',
    '../core/agent-file/agent-types',
    '../core/agent-file/limits',
    '../core/agent-file/sub-agents',
    '../core/nexus-agents',
    '../core/eval/results',
  ].map((m) => require.resolve(m)),
  ...agentTypeModules(),
  // Loaded by every workflow's runtime (failureConverterPath); it changes nothing once made.
  FAILURE_CONVERTER_PATH,
];

/** The modules of core/agent-types/ (the agent types' prompts and answer parsers), as compiled or as sources. */
function agentTypeModules(): string[] {
  const dir = dirname(require.resolve('../core/agent-types'));
  const names = readdirSync(dir).flatMap((file) => (/\.d\.ts$/.test(file) ? [] : (/^(.+)\.[jt]s$/.exec(file)?.slice(1) ?? [])));
  return [...new Set(names)].map((name) => require.resolve(join(dir, name)));
}

/** Every bundle's own interceptor: the end of an activation, where a run writes the events it held (workflows/kernel/activation-end.ts). */
export const ACTIVATION_END_MODULE = require.resolve('../workflows/kernel/activation-end');

/**
 * How perflow bundles workflow code: the modules shared among workflows, perflow's workflow
 * interceptor and any others, and perflow's failure converter (failure messages and stack traces
 * encoded, hence encrypted with PERFLOW_ENCRYPTION_KEYS: codec/failure-converter.ts), in every
 * bundle whether the worker has keys or not.
 */
export function workflowBundleOptions(workflowsPath: string, interceptorModules: readonly string[] = []): BundleOptions {
  return {
    workflowsPath,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    preloadModules: [...SHARED_WORKFLOW_MODULES],
    workflowInterceptorModules: [ACTIVATION_END_MODULE, ...interceptorModules],
  };
}


/**
 * The sinks of a replaying worker: the run-event sink is never called on replay, but a worker
 * must know every sink the workflow code names.
 */
export const REPLAY_SINKS = { runEvents: { publish: { fn: () => undefined } } };

/** The prebuilt bundle when there is one (the traced one for a traced worker), else the sources. */
export function workflowSource(options: { traced?: boolean } = {}): WorkflowSource {
  const codePath = join(__dirname, '..', options.traced ? TRACED_WORKFLOW_BUNDLE_FILE : WORKFLOW_BUNDLE_FILE);
  return existsSync(codePath) ? { workflowBundle: { codePath } } : { workflowsPath: require.resolve('../workflows') };
}

/** For the worker's start line: where its workflow code comes from. */
export function describeWorkflowSource(source: WorkflowSource = workflowSource()): string {
  return source.workflowBundle && 'codePath' in source.workflowBundle
    ? `workflows from the prebuilt bundle ${source.workflowBundle.codePath}`
    : 'workflows bundled from the sources (kept in the cache folder until they change)';
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
): Promise<{ workflowBundle: { code: string } | { codePath: string }; buildId: string }> {
  const bundle = source.workflowBundle;
  // A bundle file goes to the SDK as its path: given the code instead, the SDK names the bundle
  // after its source map and re-encodes that map (~3 MB) at every worker start.
  if (bundle && 'codePath' in bundle) return { workflowBundle: { codePath: bundle.codePath }, buildId: buildIdOf(await readFile(bundle.codePath)) };
  const code = bundle && 'code' in bundle ? bundle.code : (await keptWorkflowBundle({ ...workflowBundleOptions(source.workflowsPath!, options.interceptorModules), logger: Runtime.instance().logger })).code;
  return { workflowBundle: { code }, buildId: buildIdOf(code) };
}

/** `perflow+` and 20 hex digits of the bundle's SHA-256 (of its UTF-8 bytes: the file's, or the code's). */
const buildIdOf = (code: string | Buffer): string => `perflow+${createHash('sha256').update(code).digest('hex').slice(0, 20)}`;
