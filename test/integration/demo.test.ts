/** `npm run demo -- --exit` as a user runs it (here on the suite's servers): the flights answer, computed from the data. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(120_000);

const root = join(__dirname, '..', '..');

it('answers the flights question from the data and prints the IDs, the UI URL and the commands', async () => {
  const flights = JSON.parse(readFileSync(join(root, 'demo', 'flights.json'), 'utf8')) as { origin: string; destination: string }[];
  const expected = flights.filter((f) => f.origin === 'Beijing' && f.destination === 'Seattle').length;
  expect(expected).toBeGreaterThan(0);

  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.BEDROCK_MODEL_ID;
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(root, 'scripts', 'demo.ts'), '--exit'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('error', fail);
    child.on('close', (c) => {
      clearTimeout(timer);
      done({ code: c, stdout: out, stderr: err });
    });
  });
  expect([code, stderr.split('\n').filter((l) => l.startsWith('perflow demo:'))]).toEqual([0, []]);
  expect(stdout).toContain('model: scripted offline run');
  expect(stdout).toMatch(new RegExp(`^answer: .*"flights":${expected}\\b`, 'm'));
  for (const key of ['memory_id', 'parent_interaction_id', 'executor_agent_memory_id', 'executor_agent_parent_interaction_id']) {
    expect(stdout).toMatch(new RegExp(`^${key}: [0-9a-f-]{36}$`, 'm'));
  }
  expect(stdout).toMatch(/^ui: http:\/\/\S+\/namespaces\/[^/]+\/workflows\/flights-analyst-scripted-[0-9a-f]{8}\/[0-9a-f-]{36}\/history$/m);
  expect(stdout).toMatch(/^reset: .* npx perflow reset flights-analyst-scripted-[0-9a-f]{8}/m);
});
