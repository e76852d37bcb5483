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

describe('perflow run with an agent file that says something it does not mean', () => {
  const scripted = { interface: 'scripted', script: { planner: [JSON.stringify({ steps: [], result: 'ok' })] } };
  const agentFile = (name: string, agent: Record<string, unknown>) => cli.agentFile(name, { name, llm: scripted, ...agent });

  it('refuses a parameter its type ignores, in the file or given with --param, in one line naming it and the type', async () => {
    const todo = agentFile('todo-with-max-steps', { type: 'todo_list', parameters: { max_steps: 3 } });
    const r = await perflow(['run', '--agent', todo, '--question', 'q', '--json']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(nonEmptyLines(r.stderr)).toEqual([`perflow: ${todo}: invalid agent file: parameters.max_steps: does nothing for a todo_list agent (it is for plan_execute_and_reflect and plan_and_execute); remove it`]);
    const per = agentFile('per', { type: 'plan_execute_and_reflect' });
    const p = await perflow(['run', '--agent', per, '--question', 'q', '--param', 'max_iterations=3']);
    expect([p.code, nonEmptyLines(p.stderr)]).toEqual([2, [`perflow: ${per}: invalid agent parameters: parameters.max_iterations: does nothing for a plan_execute_and_reflect agent (it is for step_by_step and todo_list); remove it`]]);
  });

  it('refuses a datetime_format it cannot format, naming the letters', async () => {
    const per = agentFile('per-datetime', { type: 'plan_execute_and_reflect', parameters: { inject_datetime: true, datetime_format: 'hh:mm a' } });
    const r = await perflow(['run', '--agent', per, '--question', 'q']);
    expect(r.code).toBe(2);
    expect(nonEmptyLines(r.stderr)).toEqual([expect.stringMatching(/^perflow: .*: invalid agent file: parameters\.datetime_format: "hh" is not supported; supported: strftime/)]);
  });

  it('warns about a parameter perflow does not know, naming the closest one, and runs', async () => {
    const per = agentFile('per-typo', { type: 'plan_execute_and_reflect', parameters: { max_step: 2 } });
    const r = await perflow(['run', '--agent', per, '--question', 'typo?', '--wait']);
    expect(r.code).toBe(0);
    expect(nonEmptyLines(r.stderr)).toContain('perflow: warning: parameters.max_step is not a perflow parameter (did you mean max_steps?); it is kept for prompts that use ${parameters.max_step}');
  });

  it('notes in one line a model with no known price, whose cost is null, and runs', async () => {
    // The planner answers at once: the unpriced execution model is never called.
    const per = agentFile('per-unpriced', { type: 'plan_execute_and_reflect', executor_llm: { interface: 'openai/v1/chat/completions', model: 'my-local-llama' } });
    const r = await perflow(['run', '--agent', per, '--question', 'price?', '--wait']);
    expect(r.code).toBe(0);
    expect(nonEmptyLines(r.stderr)).toEqual([
      'perflow: note: no price known for model "my-local-llama": cost is null (give its llm block "price": {"input_per_million": N, "output_per_million": N})',
    ]);
    const priced = agentFile('per-priced', {
      type: 'plan_execute_and_reflect',
      executor_llm: { interface: 'openai/v1/chat/completions', model: 'my-local-llama', price: { input_per_million: 0.1, output_per_million: 0.2 } },
    });
    const quiet = await perflow(['run', '--agent', priced, '--question', 'price?', '--wait']);
    expect([quiet.code, quiet.stderr]).toEqual([0, '']);
  });

  it('refuses to continue the conversation of another tenant before starting', async () => {
    const per = agentFile('per-tenant', { type: 'plan_execute_and_reflect' });
    const first = JSON.parse((await perflow(['run', '--agent', per, '--question', 'mine', '--param', 'tenant_id=a', '--wait', '--json'])).stdout) as { memory_id: string };
    const r = await perflow(['run', '--agent', per, '--question', 'theirs', '--param', 'tenant_id=b', '--memory-id', first.memory_id], { MONGODB_URI: cli.memoryUri });
    expect([r.code, nonEmptyLines(r.stderr)]).toEqual([2, [`perflow: memory_id ${first.memory_id} belongs to tenant a, not to tenant b: a memory is continued by its own tenant only (nothing was changed)`]]);
    const other = await perflow(['memory', first.memory_id, '--tenant', 'b'], { MONGODB_URI: cli.memoryUri });
    expect(other.code).toBe(2);
    expect(nonEmptyLines(other.stderr)).toEqual([`perflow: memory_id ${first.memory_id} not found in MongoDB (MONGODB_URI) for tenant b`]);
  });
});
