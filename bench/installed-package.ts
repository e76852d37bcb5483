/**
 * perflow installed as a user installs it, for the startup section (as
 * test/integration/package.test.ts installs it): dist/ built from these sources, `npm pack`
 * into a folder and installed from the tarball into an empty application there.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const root = join(__dirname, '..');

/** dist/ built from these sources, building it if not (scripts/build-if-changed.js, as `npm test` does). */
async function ensurePackageBuilt(env: NodeJS.ProcessEnv): Promise<void> {
  await execFileAsync(process.execPath, [join(root, 'scripts', 'build-if-changed.js')], { cwd: root, env, maxBuffer: 16 * 2 ** 20 });
}

/** Packs and installs perflow under `dir` (which the caller removes); the installed `perflow` and its application folder. */
export async function installPackage(dir: string, env: NodeJS.ProcessEnv): Promise<{ bin: string; app: string }> {
  await ensurePackageBuilt(env);
  // prepack would build again: dist/ is current, and other processes may be reading it.
  await execFileAsync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: root, env, maxBuffer: 16 * 2 ** 20 });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball to ${dir}`);
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'perflow-startup-app', version: '1.0.0', private: true }));
  await execFileAsync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, tarball)], { cwd: app, env, maxBuffer: 16 * 2 ** 20 });
  return { bin: join(app, 'node_modules', '.bin', 'perflow'), app };
}
