/** Starting and stopping a server process of ours, with its log kept for error reports. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface ServerProcess {
  readonly commandLine: string;
  /** The last lines the server printed, for error messages. */
  logTail(lines?: number): string;
  readonly exited: boolean;
  stop(): Promise<void>;
}

const running = new Set<ServerProcess>();

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server under the guard, in environment `env`; `user` runs it as that uid/gid
 * (PostgreSQL will not run as root).
 */
export function startProcess(binary: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; user?: { uid: number; gid: number } }): ServerProcess {
  const { env, cwd, user } = options;
  // The guard stops the server if this process dies without cleaning up.
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'guard.js'), binary, ...args], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: user ? { ...env, PERFLOW_GUARD_UID: String(user.uid), PERFLOW_GUARD_GID: String(user.gid) } : env,
  });
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString().split('\n').filter(Boolean));
    if (log.length > 200) log.splice(0, log.length - 200);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  const proc: ServerProcess = {
    commandLine: [binary, ...args].join(' '),
    logTail: (lines = 15) => log.slice(-lines).join('\n'),
    get exited() {
      return exited;
    },
    async stop() {
      running.delete(proc);
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
  running.add(proc);
  return proc;
}

/** Stops every server this process started (used on Ctrl-C and at exit). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop()));
}

/** Polls `check` until it succeeds, the process exits, or the time is up. */
export async function waitUntilHealthy(
  name: string,
  proc: ServerProcess,
  check: () => Promise<void>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline && !proc.exited) {
    try {
      await check();
      return;
    } catch (err) {
      lastError = (err as Error).message;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await proc.stop();
  throw new Error(
    `${name} did not become healthy (${proc.exited ? 'process exited' : lastError}).\n` +
      `command: ${proc.commandLine}\nlast log lines:\n${proc.logTail()}`,
  );
}
