/**
 * Every command of the CLI's table as a user starts it, for a checkout (`node bin/perflow.js`) and
 * for the installed package (`node_modules/.bin/perflow`): `COMMAND --help`; the command with no
 * arguments (its handler runs and loads what it loads lazily: it answers or says in one line what
 * is missing); and the long-running ones started for real against the test servers until they
 * answer, then stopped with SIGINT. A command added to the table is covered without a word here;
 * one that keeps running must say here how it answers, or its bare start times out the test.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { COMMAND_NAMES } from '../../cli/commands';
import { connectTemporal } from './env';
import { runProcess, type ProcessResult } from './run-process';

/** How to start the CLI: `command ...prefix COMMAND args`. */
export interface Launcher {
  command: string;
  prefix: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
}

/** A key the codec server can start with (it refuses to start without one). */
export const SMOKE_ENCRYPTION_KEY = `smoke:${randomBytes(32).toString('base64')}`;

interface LongRunning {
  args: string[];
  /** The line that says it is up; its first group, if any, is the URL it serves. */
  ready: RegExp;
  /** Proves it answers: a request to the port, or the task queue's pollers. */
  answers(url: string | undefined, launcher: Launcher): Promise<void>;
}

export const LONG_RUNNING: Readonly<Record<string, LongRunning>> = {
  worker: {
    args: [],
    ready: /perflow worker connected/,
    async answers(_url, launcher) {
      const { connection, client } = await connectTemporal();
      try {
        const taskQueue = { name: launcher.env.PERFLOW_TASK_QUEUE! };
        const namespace = launcher.env.TEMPORAL_NAMESPACE ?? 'default';
        let pollers = 0;
        for (let i = 0; i < 100 && pollers === 0; i++) {
          if (i > 0) await new Promise((ok) => setTimeout(ok, 100));
          const r = await client.workflowService.describeTaskQueue({ namespace, taskQueue, taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW });
          pollers = r.pollers?.length ?? 0;
        }
        expect(pollers).toBeGreaterThan(0);
      } finally {
        await connection.close();
      }
    },
  },
  console: {
    args: ['--port', '0'],
    // The URL to open, with the token the console made (as Jupyter prints it).
    ready: /perflow console: (http:\/\/[^\s/?]+\/\?token=[\w-]{32}) /,
    async answers(url) {
      const { origin, searchParams } = new URL(url!);
      const page = await fetch(`${origin}/`);
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      expect((await fetch(`${origin}/api/info`)).status).toBe(401);
      const info = await fetch(`${origin}/api/info`, { headers: { authorization: `Bearer ${searchParams.get('token')}` } });
      expect([info.status, ((await info.json()) as { token_required: boolean }).token_required]).toEqual([200, true]);
    },
  },
  'codec-server': {
    args: ['--port', '0'],
    ready: /perflow codec server: (http:\/\/[^\s/?]+)/,
    async answers(url) {
      const r = await fetch(`${url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"payloads":[]}' });
      expect([r.status, await r.json()]).toEqual([200, { payloads: [] }]);
    },
  },
};

const run = (l: Launcher, args: string[], timeoutMs = 60_000): Promise<ProcessResult> => runProcess(l.command, [...l.prefix, ...args], { cwd: l.cwd, env: l.env, timeoutMs });

/** Runs `fn` over `items`, `limit` at a time (each spawn is a Node process compiling or loading the CLI). */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: limit }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

/** Starts a long-running command, waits for it to answer, stops it with SIGINT; resolves with its exit code and output. */
export async function startAndStop(l: Launcher, name: string): Promise<{ code: number | null; output: string }> {
  const how = LONG_RUNNING[name];
  const child = spawn(l.command, [...l.prefix, name, ...how.args], { cwd: l.cwd, env: l.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((ok) => child.on('close', ok));
  let ended = false;
  void exited.then(() => (ended = true));
  try {
    for (let i = 0; i < 600 && !how.ready.test(output) && !ended; i++) await new Promise((ok) => setTimeout(ok, 100));
    if (!how.ready.test(output)) throw new Error(`perflow ${name} did not say it is up:\n${output}`);
    await how.answers(how.ready.exec(output)?.[1], l);
  } finally {
    child.kill('SIGINT');
  }
  const timeout = new Promise<string>((ok) => setTimeout(() => ok('no exit 30 s after SIGINT'), 30_000).unref());
  const code = await Promise.race([exited, timeout]);
  if (typeof code === 'string') {
    child.kill('SIGKILL');
    throw new Error(`perflow ${name}: ${code}\n${output}`);
  }
  return { code, output };
}

/** The tests: every command's help and bare start, and each long-running command up and stopped. */
export function describeCommandsAsStarted(launcher: () => Launcher): void {
  it('every command answers --help with its own usage', async () => {
    const wrong: string[] = [];
    await eachLimited(COMMAND_NAMES, 2, async (name) => {
      const r = await run(launcher(), [name, '--help']);
      const own = r.stdout.startsWith(`usage: perflow ${name} `) && new RegExp(`^ {2}(${name} |.*\\| ${name} ID)`, 'm').test(r.stdout);
      if (r.code !== 0 || !own || r.stderr !== '') wrong.push(`${name}: exit ${r.code}\n${r.stdout}${r.stderr}`);
    });
    expect(wrong).toEqual([]);
  });

  it('every command that ends, started with no arguments, answers or says in one line what is missing', async () => {
    const wrong: string[] = [];
    await eachLimited(COMMAND_NAMES.filter((name) => !Object.hasOwn(LONG_RUNNING, name)), 2, async (name) => {
      const r = await run(launcher(), [name], 60_000).catch((err: Error) => ({ code: null, stdout: '', stderr: `${err.message} (a command that keeps running needs an entry in LONG_RUNNING)` }));
      const oneLine = r.code === 0 ? !/perflow:/.test(r.stderr) : /^perflow: [^\n]+\n$/.test(r.stderr);
      if (r.code === null || !oneLine || /Cannot find module|ERR_/.test(r.stderr)) wrong.push(`${name}: exit ${r.code}\n${r.stderr}`);
    });
    expect(wrong).toEqual([]);
  });

  it.each(Object.keys(LONG_RUNNING))('perflow %s starts, answers, and stops on SIGINT', async (name) => {
    expect(COMMAND_NAMES).toContain(name);
    const { code, output } = await startAndStop(launcher(), name);
    expect([code, output]).toEqual([0, expect.any(String)]);
  });

  it('the listeners refuse to open to the network without a token: one line naming it, exit 2', async () => {
    const codec = await run(launcher(), ['codec-server', '--host', '0.0.0.0', '--port', '0']);
    expect([codec.code, codec.stderr]).toEqual([2, expect.stringMatching(/^perflow: --host 0\.0\.0\.0 would let anyone who reaches it decrypt payloads: set --token T \(or PERFLOW_CODEC_TOKEN\)[^\n]*\n$/)]);
    const consoleOpen = await run(launcher(), ['console', '--host', '0.0.0.0', '--port', '0', '--unsafe-no-token']);
    expect([consoleOpen.code, consoleOpen.stderr]).toEqual([2, expect.stringMatching(/^perflow: --unsafe-no-token is refused with --host 0\.0\.0\.0[^\n]*\n$/)]);
  });
}
