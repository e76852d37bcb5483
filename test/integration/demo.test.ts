/**
 * The quick start on a bare clone: a copy of the working tree with no node_modules, where
 * `npm run demo -- --exit` installs the npm dependencies itself (scripts/ensure-deps.js) and
 * answers the flights question with the agent's own response, stating the count the tool
 * computed from the data; run again, it stays up with the perflow console showing its run until
 * Ctrl-C. The servers are the suite's (TEMPORAL_ADDRESS / MONGODB_URI), as a user with servers
 * of their own would run it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { serverEnv } from '../support/env';
import { runProcess, userEnv } from '../support/run-process';

jest.setTimeout(600_000);

const root = join(__dirname, '..', '..');
let clone: string;

/** A clone of this working tree (tracked and new files, nothing ignored), committed as a repository of its own. */
function cloneWorkingTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'perflow-clone-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0');
  for (const file of files.filter((f) => f !== '' && existsSync(join(root, f)))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=perflow', '-c', 'user.email=perflow@localhost', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'clone');
  return dir;
}

/** What `git status` calls changed in the clone: nothing, once the README's commands ran. */
const changed = () => execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' });

beforeAll(() => {
  clone = cloneWorkingTree();
});

afterAll(() => {
  if (clone) rmSync(clone, { recursive: true, force: true });
});

it('npm run demo -- --exit on a bare clone installs what it needs and prints the agent\'s answer with the real count', async () => {
  const flights = JSON.parse(readFileSync(join(root, 'demo', 'flights.json'), 'utf8')) as { origin: string; destination: string }[];
  const expected = flights.filter((f) => f.origin === 'Beijing' && f.destination === 'Seattle').length;
  expect(expected).toBeGreaterThan(0);
  expect(existsSync(join(clone, 'node_modules'))).toBe(false);

  const { temporalAddress, mongoUri } = serverEnv();
  const env = userEnv({ TEMPORAL_ADDRESS: temporalAddress, MONGODB_URI: mongoUri });
  const r = await runProcess('npm', ['run', 'demo', '--', '--exit'], { cwd: clone, env, timeoutMs: 540_000 });
  expect([r.code, r.stderr.split('\n').filter((l) => l.startsWith('perflow demo:'))]).toEqual([0, []]);
  expect(r.stderr).toContain('[perflow] installing the npm dependencies');
  expect(existsSync(join(clone, 'node_modules', '.perflow-lock-hash'))).toBe(true);
  // `npm ci` installed the lockfile as it is: nothing rewritten, no install script left unreviewed.
  expect(changed()).toBe('');
  expect(r.stderr).not.toMatch(/install-scripts|npm (warn|error)/);
  expect(r.stdout).toContain('model: scripted offline run');
  // The agent's own final response (the planner's answer), not a tool output pasted in.
  expect(r.stdout).toMatch(new RegExp(`^answer: There are ${expected} flights from Beijing to Seattle\\b`, 'm'));
  for (const key of ['memory_id', 'parent_interaction_id', 'executor_agent_memory_id', 'executor_agent_parent_interaction_id']) {
    expect(r.stdout).toMatch(new RegExp(`^${key}: [0-9a-f-]{36}$`, 'm'));
  }
  expect(r.stdout).toMatch(/^ui: http:\/\/\S+\/namespaces\/[^/]+\/workflows\/flights-analyst-scripted-[0-9a-f]{8}\/[0-9a-f-]{36}\/history$/m);
  expect(r.stdout).toMatch(/^reset: .* npx perflow reset flights-analyst-scripted-[0-9a-f]{8}/m);
  expect(r.stdout).toMatch(/^console: http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}#\/runs\/flights-analyst-scripted-[0-9a-f]{8}$/m);

  // The answer is the run's result, as `perflow result` reads it from Temporal.
  const id = /npx perflow status (flights-analyst-scripted-[0-9a-f]{8})/.exec(r.stdout)![1];
  const result = await runProcess(process.execPath, [join(clone, 'bin', 'perflow.js'), 'result', id, '--json'], {
    cwd: clone,
    env: userEnv({ TEMPORAL_ADDRESS: temporalAddress }),
  });
  expect(result.code).toBe(0);
  expect((JSON.parse(result.stdout) as { response: string }).response).toMatch(new RegExp(`^There are ${expected} flights from Beijing to Seattle`));

  // A second start finds the dependencies in place, and stays up with its console until Ctrl-C:
  // the console shows the demo's run.
  const demo = spawn('npm', ['run', 'demo'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  demo.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  demo.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((done) => demo.on('exit', done));
  try {
    for (let i = 0; i < 1_200 && !stdout.includes('Ctrl-C stops them'); i++) await new Promise((done) => setTimeout(done, 100));
    expect(stdout).toContain('Ctrl-C stops them');
    expect(stderr).not.toContain('installing the npm dependencies');
    const [, consoleUrl, token, runId] = /^console: (http:\S+)\/\?token=(\S+)#\/runs\/(\S+)$/m.exec(stdout)!;
    // The printed token opens the API; without it, nothing.
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await fetch(`${consoleUrl}/api/runs/${runId}`)).status).toBe(401);
    const status = (await (await fetch(`${consoleUrl}/api/runs/${runId}`, auth)).json()) as { status: string; question: string };
    expect(status).toMatchObject({ status: 'completed', question: 'How many flights from Beijing to Seattle?' });
    const listed = (await (await fetch(`${consoleUrl}/api/runs`, auth)).json()) as { workflow_id: string }[];
    expect(listed.map((x) => x.workflow_id)).toContain(runId);
    expect((await fetch(consoleUrl)).headers.get('content-type')).toMatch(/^text\/html/);
  } finally {
    // npm runs the demo in a child: signal the group, as Ctrl-C does.
    process.kill(-demo.pid!, 'SIGINT');
  }
  // Ctrl-C stops the servers it started and exits (130, as a shell reports an interrupt).
  const code = await Promise.race([exited, new Promise<string>((done) => setTimeout(() => done('still running'), 30_000))]);
  expect([130, null]).toContain(code);
  expect(changed()).toBe('');
});
