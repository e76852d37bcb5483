/**
 * perflow as a package: `npm pack`, installed into an empty project outside the repository,
 * then used as a user would — the installed CLI (compiled JavaScript, its prebuilt workflow
 * bundle) runs a scripted agent on a worker it started and replays the run's history as the
 * Temporal CLI exports it, and an application embeds the client library and a worker with a
 * tool of its own. The type declarations compile against it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { findTemporalCli } from '../../servers/binaries';
import { serverEnv, uniqueTaskQueue } from '../support/env';
import { describeCommandsAsStarted, SMOKE_ENCRYPTION_KEY } from '../support/commands-as-started';
import { npmEnv, runProcess, userEnv } from '../support/run-process';
import { calculatorTurns } from '../support/script';
import { node24 } from '../support/node24';

jest.setTimeout(600_000);

const root = join(__dirname, '..', '..');
const fixtures = join(root, 'test', 'fixtures', 'package-app');
let dir: string;
let app: string;
let bin: string;
let env: NodeJS.ProcessEnv;
/** The run of the installed CLI's worker. */
let packagedRun: string | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-package-'));
  // The global setup built dist/ from these sources (../support/package-build), as `prepack`
  // would: packing without rebuilding leaves it in place for the test files spawning it meanwhile.
  const pack = await runProcess('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: root, env: npmEnv(), timeoutMs: 240_000 });
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr.slice(-4_000)}`);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball to ${dir}`);
  app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'perflow-user-app', version: '1.0.0', private: true }));
  const install = await runProcess('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, tarball)], { cwd: app, env: npmEnv(), timeoutMs: 300_000 });
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr.slice(-4_000)}`);
  bin = join(app, 'node_modules', '.bin', 'perflow');
  const { temporalAddress, namespace, mongoUri } = serverEnv();
  const queue = uniqueTaskQueue('perflow-package');
  env = userEnv({ TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: namespace, MONGODB_URI: `${mongoUri.replace(/\/[^/]*$/, '')}/perflow_package_${queue.slice(-8)}`, PERFLOW_TASK_QUEUE: queue });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('installs compiled JavaScript only, with the public entry points', () => {
  const pkg = join(app, 'node_modules', 'perflow');
  expect(existsSync(join(pkg, 'dist', 'cli', 'main.js'))).toBe(true);
  expect(existsSync(join(pkg, 'dist', 'workflow-bundle.js'))).toBe(true);
  expect(existsSync(join(pkg, 'client'))).toBe(false); // no TypeScript sources: nothing compiles at run time
  expect(existsSync(join(pkg, 'cli'))).toBe(false);
  expect(existsSync(join(pkg, 'test'))).toBe(false);
});

it('npx perflow --help runs the compiled CLI', async () => {
  const r = await runProcess('npx', ['--no-install', 'perflow', '--help'], { cwd: app, env });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^usage: perflow <command>/);
  // An internal module is not reachable: the exports map is the public API.
  const internal = await runProcess(process.execPath, ['-e', "require('perflow/dist/core/agent')"], { cwd: app, env });
  expect(internal.code).not.toBe(0);
  expect(internal.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
});

describe('the installed CLI, every command as a user starts it', () => {
  describeCommandsAsStarted(() => ({ command: bin, prefix: [], cwd: app, env: { ...env, PERFLOW_TASK_QUEUE: `${env.PERFLOW_TASK_QUEUE}-smoke`, PERFLOW_ENCRYPTION_KEYS: SMOKE_ENCRYPTION_KEY } }));
});

it('the installed CLI starts a worker from its prebuilt bundle and runs an agent with it', async () => {
  packagedRun = await runAgentOnWorker([bin], env);
});

describe('on Node.js 24', () => {
  /** The installed CLI started by Node 24, which also comes first on PATH for anything it starts. */
  let cli: string[];
  let env24: NodeJS.ProcessEnv;
  beforeAll(() => {
    const node = node24();
    cli = [node, join(app, 'node_modules', 'perflow', 'bin', 'perflow.js')];
    env24 = { ...env, PATH: `${dirname(node)}${delimiter}${env.PATH ?? ''}`, PERFLOW_TASK_QUEUE: `${env.PERFLOW_TASK_QUEUE}-node24` };
  });

  it('the installed CLI prints its help', async () => {
    const version = await runProcess(cli[0], ['-p', 'process.versions.node'], { env: env24 });
    expect(version.stdout).toMatch(/^24\./);
    const r = await runProcess(cli[0], [...cli.slice(1), '--help'], { cwd: app, env: env24 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: perflow <command>/);
  });

  it('the installed CLI runs an agent on its worker', async () => {
    await runAgentOnWorker(cli, env24);
  });
});

it("replays a history exported with the Temporal CLI, Temporal's packages sharing one protobufjs", async () => {
  // Temporal's proto-JSON reader works only when its packages load the same protobufjs.
  const script = `const { dirname } = require('node:path');
    const perflow = dirname(require.resolve('perflow/package.json'));
    const at = (m) => dirname(require.resolve(m + '/package.json', { paths: [perflow] }));
    console.log(JSON.stringify([...new Set(['@temporalio/common', '@temporalio/proto', '@temporalio/worker'].map((m) => require.resolve('protobufjs', { paths: [at(m)] })))]));`;
  const copies = await runProcess(process.execPath, ['-e', script], { cwd: app, env });
  expect(copies.stderr).toBe('');
  expect(JSON.parse(copies.stdout)).toHaveLength(1);
  if (!packagedRun) throw new Error('the run of the installed CLI did not complete (see the test before)');
  const { temporalAddress, namespace } = serverEnv();
  const show = await runProcess(findTemporalCli(process.env, { install: false })!, ['workflow', 'show', '-w', packagedRun, '--output', 'json', '--address', temporalAddress, '--namespace', namespace]);
  expect(show.code).toBe(0);
  const file = join(dir, 'exported-history.json');
  writeFileSync(file, show.stdout);
  const r = await runProcess(bin, ['replay', '--history', file, '--workflow-id', packagedRun], { cwd: app, env, timeoutMs: 120_000 });
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('replay ok: the history is deterministic with the current workflow code\n');
  expect(r.code).toBe(0);
});

it('an application embeds the client library and a worker with its own tool and agent type', async () => {
  copyFileSync(join(fixtures, 'app.js'), join(app, 'app.js'));
  copyFileSync(join(fixtures, 'workflows.js'), join(app, 'workflows.js'));
  const r = await runProcess(process.execPath, ['app.js'], { cwd: app, env, timeoutMs: 120_000 });
  expect(r.code).toBe(0);
  const result = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect(result).toMatchObject({
    words: { response: 'The text has 4 words.', workflow_id: expect.stringMatching(/^embedded-app-/), run_id: expect.any(String) },
    one_step: { response: '5 words', steps_executed: 1, metadata: { agent_type: 'one_step' }, workflow_id: expect.stringMatching(/^one-stepper-/) },
  });
});

it('the type declarations resolve through the exports map and are real types', async () => {
  copyFileSync(join(fixtures, 'types-check.ts'), join(app, 'types-check.ts'));
  const tsconfig = {
    compilerOptions: { strict: true, noEmit: true, module: 'node16', moduleResolution: 'node16', target: 'es2022', skipLibCheck: true, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] },
    files: ['types-check.ts'],
  };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
  const r = await runProcess(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app, env, timeoutMs: 120_000 });
  expect(r.stdout + r.stderr).toBe('');
  expect(r.code).toBe(0);
});

/**
 * Starts the installed CLI's worker (`command`: the CLI with what starts it), runs a scripted
 * agent on it with the same CLI and stops the worker; the run's workflow ID.
 */
async function runAgentOnWorker(command: string[], runEnv: NodeJS.ProcessEnv): Promise<string> {
  const [exe, ...pre] = command;
  const agentFile = join(dir, 'agent.json');
  const agent = {
    name: 'packaged-agent',
    type: 'plan_execute_and_reflect',
    llm: {
      interface: 'scripted',
      script: {
        planner: ['{"steps": ["multiply"], "result": ""}', '{"steps": [], "result": "{{step_result:1}}"}'],
        executor: [calculatorTurns('6*7', 'The product is {{observation}}.')],
      },
    },
    tools: [{ type: 'CalculatorTool' }],
  };
  writeFileSync(agentFile, JSON.stringify(agent));
  const worker: ChildProcess = spawn(exe, [...pre, 'worker'], { cwd: app, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  worker.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  worker.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((ok) => worker.on('close', ok));
  let workflowId: string;
  try {
    for (let i = 0; i < 300 && !log.includes('perflow worker connected'); i++) await new Promise((ok) => setTimeout(ok, 100));
    expect(log).toContain(`workflows from the prebuilt bundle ${join(app, 'node_modules', 'perflow', 'dist', 'workflow-bundle.js')}`);
    const r = await runProcess(exe, [...pre, 'run', '--agent', agentFile, '--question', 'what is 6*7?', '--wait', '--json'], { cwd: app, env: runEnv });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ response: 'The product is 42.', steps_executed: 1, workflow_id: expect.stringMatching(/^packaged-agent-/) });
    const status = await runProcess(exe, [...pre, 'status', out.workflow_id as string, '--json'], { cwd: app, env: runEnv });
    expect(JSON.parse(status.stdout)).toMatchObject({ status: 'completed', memory_id: out.memory_id });
    workflowId = out.workflow_id as string;
  } finally {
    worker.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  return workflowId;
}
