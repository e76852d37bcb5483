/**
 * PERFLOW_EXTRA_MODEL_INTERFACES: the interfaces the workers serve with adapters of their own.
 * An agent file naming one is refused without it and accepted with it (the CLI then goes on to
 * what `run` needs next: here, the question it was not given).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../cli/main';

let dir: string;
let agent: string;
let stderr: string[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-extra-interfaces-'));
  agent = join(dir, 'acme.json');
  writeFileSync(agent, JSON.stringify({ name: 'acme', type: 'plan_execute_and_reflect', llm: { interface: 'acme/chat', model: 'm1' } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  stderr = [];
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
});
afterEach(() => jest.restoreAllMocks());

const run = (env: Record<string, string>) => main(['run', '--agent', agent], { ...env, MONGODB_URI: 'mongodb://127.0.0.1:1/perflow' });

describe('PERFLOW_EXTRA_MODEL_INTERFACES', () => {
  it('without it, an agent file naming an interface no worker declares is refused in one line naming it', async () => {
    expect(await run({})).toBe(2);
    expect(stderr.join('')).toMatch(/^perflow: .*acme\.json: invalid agent file: llm\.interface: expected one of [^\n]*scripted\n$/);
  });

  it('with it, the agent file is accepted (run goes on to ask for its question)', async () => {
    expect(await run({ PERFLOW_EXTRA_MODEL_INTERFACES: 'acme/chat' })).toBe(2);
    expect(stderr.join('')).toBe('perflow: run needs --question TEXT (or a question parameter)\n');
  });

  it('naming a built-in interface is a one-line error naming the variable', async () => {
    expect(await main(['list'], { PERFLOW_EXTRA_MODEL_INTERFACES: 'scripted' })).toBe(2);
    expect(stderr.join('')).toMatch(/^perflow: PERFLOW_EXTRA_MODEL_INTERFACES: model interface "scripted" is built in/);
  });
});
