/** The `perflow` CLI's errors: one line naming what to check, and a non-zero exit. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../../servers';
import { nonEmptyLines, useCli } from '../../support/cli';

jest.setTimeout(120_000);

const cli = useCli('cli-errors');
const perflow = cli.perflow;

describe('perflow errors', () => {
  it('an unknown workflow ID: one line, non-zero exit', async () => {
    const r = await perflow(['status', 'no-such-workflow-123']);
    expect(r.code).not.toBe(0);
    const lines = nonEmptyLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('no-such-workflow-123');
  });

  it('a worker that cannot reach Temporal or MongoDB: one line naming the address and the variable', async () => {
    const port = await freePort();
    const temporal = await perflow(['worker'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` }, 30_000);
    expect(temporal.code).not.toBe(0);
    expect(nonEmptyLines(temporal.stderr)).toEqual([expect.stringMatching(new RegExp(`^perflow: cannot reach the Temporal server at 127\\.0\\.0\\.1:${port} \\(.*\\): start it or set TEMPORAL_ADDRESS$`))]);
    const mongo = await perflow(['worker'], { MONGODB_URI: `mongodb://u:secret@127.0.0.1:${port}/db` }, 30_000);
    expect(mongo.code).not.toBe(0);
    expect(nonEmptyLines(mongo.stderr)).toEqual([expect.stringMatching(/^perflow: cannot reach MongoDB at mongodb:\/\/u:\*\*\*@127\.0\.0\.1:\d+\/db \(.*\): start it or set MONGODB_URI$/)]);
  });

  it('an unreachable server: one line, non-zero exit', async () => {
    const port = await freePort();
    const r = await perflow(['status', 'anything'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` }, 30_000);
    expect(r.code).not.toBe(0);
    const lines = nonEmptyLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`127.0.0.1:${port}`);
    expect(lines[0]).toContain('TEMPORAL_ADDRESS');
  });

  it('missing provider credentials: the run fails at once with one line naming the variable', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY; // the worker of this test runs in this process
    try {
      const file = join(cli.dir, 'openai-agent.json');
      writeFileSync(file, JSON.stringify({ name: 'keyless', type: 'plan_execute_and_reflect', llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o' } }));
      const r = await perflow(['run', '--agent', file, '--question', 'anyone there?', '--wait']);
      expect(r.code).not.toBe(0);
      const lines = nonEmptyLines(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("OPENAI_API_KEY is not set in the worker's environment");
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});
