/** Runs a command as a user would, bounded in time, and collects what it printed. */
import { spawn } from 'node:child_process';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time in milliseconds. */
  ms: number;
}

export interface RunProcessOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Killed (SIGKILL) and rejected after this long. */
  timeoutMs?: number;
}

export function runProcess(command: string, args: string[], o: RunProcessOptions = {}): Promise<ProcessResult> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: o.cwd, env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${command} ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout.slice(-4_000)}\nstderr: ${stderr.slice(-4_000)}`));
    }, timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Where the global setup keeps NODE_EXTRA_CA_CERTS, which it takes from the tests' processes. */
export const NPM_CA_CERTS = 'PERFLOW_TEST_NPM_CA_CERTS';

/** {@link userEnv} for npm, which may reach the registry: with the machine's NODE_EXTRA_CA_CERTS. */
export function npmEnv(): NodeJS.ProcessEnv {
  const certs = process.env[NPM_CA_CERTS];
  return userEnv(certs ? { NODE_EXTRA_CA_CERTS: certs } : {});
}

/** The environment without npm's per-script variables, as in a shell a user opens. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  delete env.OPENAI_API_KEY;
  delete env.BEDROCK_MODEL_ID;
  return { ...env, ...extra };
}
