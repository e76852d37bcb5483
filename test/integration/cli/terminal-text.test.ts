/**
 * A model's text reaches the terminal as text: escape sequences a prompt-injected model writes
 * (set the window title, clear the screen) are shown, not obeyed, by `watch`, `run --follow`,
 * `result`, `status` and `memory`; `--json` keeps the exact string.
 */
import { useCli } from '../../support/cli';
import { scriptedAgent } from '../../support/harness';

jest.setTimeout(120_000);

const cli = useCli('cli-terminal');
const HOSTILE = 'done\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil';
const SHOWN = 'done\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil';
const AGENT = scriptedAgent({
  planner: [JSON.stringify({ steps: ['step A'], result: '' }), JSON.stringify({ steps: [], result: HOSTILE })],
  executor: [[{ content: `tool says ${HOSTILE}` }]],
}, { name: 'hostile-text' });

/** No control character but newline and tab (what a terminal would obey). */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/;

it('watch, run --follow, result, status and memory show control sequences as text; --json keeps them exact', async () => {
  const file = cli.agentFile('hostile', AGENT);
  const followed = await cli.perflow(['run', '--agent', file, '--question', 'q', '--follow']);
  expect(followed.code).toBe(0);
  expect(followed.stdout).toContain(SHOWN);
  expect(followed.stdout).not.toMatch(CONTROLS);
  const id = /run (\S+) started/.exec(followed.stdout)?.[1] ?? /workflow_id: (\S+)/.exec(followed.stdout)![1];

  const watched = await cli.perflow(['watch', id]);
  expect(watched.code).toBe(0);
  expect(watched.stdout).toContain(`step 1 done: step A → tool says ${SHOWN}`);
  expect(watched.stdout).not.toMatch(CONTROLS);
  const watchedJson = await cli.perflow(['watch', id, '--json']);
  const events = watchedJson.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; text?: string; result?: string });
  expect(events.filter((e) => e.type === 'model_delta').map((e) => e.text).join('')).toContain(HOSTILE);

  for (const args of [['result', id], ['status', id]]) {
    const r = await cli.perflow(args);
    expect([args[0], r.code, r.stdout]).toEqual([args[0], 0, expect.stringContaining(SHOWN)]);
    expect(r.stdout).not.toMatch(CONTROLS);
  }
  const exact = JSON.parse((await cli.perflow(['result', id, '--json'])).stdout) as { response: string; memory_id: string };
  expect(exact.response).toBe(HOSTILE);

  const memory = await cli.perflow(['memory', exact.memory_id]);
  expect(memory.stdout).toContain(SHOWN);
  expect(memory.stdout).not.toMatch(CONTROLS);
  const memoryJson = JSON.parse((await cli.perflow(['memory', exact.memory_id, '--json'])).stdout) as { runs: { response: string }[] };
  expect(memoryJson.runs[0].response).toBe(HOSTILE);
});
