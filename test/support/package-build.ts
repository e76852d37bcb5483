/**
 * The package's own build for the integration tests (scripts/build-if-changed.js): made by
 * `npm test` beside the checks and made sure of by the global setup, again only when a source
 * changed. Tests spawn the compiled CLI ({@link BUILT_CLI}) as an installed package runs it: a
 * spawn through tsx compiles or loads every module's transform first, ~0.4 s of CPU more per
 * command. `npx perflow` in a checkout still runs the sources (commands-as-started.test.ts checks
 * that way too).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require('../../scripts/build-if-changed.js') as { BUILT_CLI: string; ensurePackageBuilt(): Promise<boolean> };

/** The compiled CLI's entry point (what bin/perflow.js runs in an installed package). */
export const BUILT_CLI = build.BUILT_CLI;
/**
 * Node's arguments that start the compiled CLI as bin/perflow.js starts an installed package's,
 * with the code cache (./code-cache-preload.js); the command's arguments follow.
 */
export const BUILT_CLI_ARGS: readonly string[] = ['--require', require.resolve('./code-cache-preload.js'), BUILT_CLI];
/** Builds the package unless dist/ was built from these very sources; resolves whether it built. */
export const ensurePackageBuilt = build.ensurePackageBuilt;
