/**
 * People's decisions from the command line, as a user runs them: `run --follow` shows the
 * pending decision and the command that answers it, `pending` finds waiting runs, `status`
 * shows them, and `approve`, `reject`, `approve-tool`, `deny-tool`, `guide`, `pause`, `resume`
 * and `raise-budget` answer (one line, or one JSON document with --json; one-line errors).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useCli } from '../../support/cli';
import { calculatorCall, ONE_STEP_SCRIPT } from '../../support/script';

jest.setTimeout(180_000);

const cli = useCli('decisions');
const perflow = cli.perflow;

const agentFile = (name: string, agent: Record<string, unknown>) => cli.agentFile(name, { name, type: 'plan_execute_and_reflect', ...agent });

const PLANNED = { llm: { interface: 'scripted', script: ONE_STEP_SCRIPT } };

/** Polls `perflow pending --json` until a run of `agent` waits for `kind`; returns its workflow ID. */
async function waitingRun(agent: string, kind: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const r = await perflow(['pending', '--json']);
    expect(r.code).toBe(0);
    const runs = JSON.parse(r.stdout) as { workflow_id: string; agent?: string; waiting_for: string; pending: { kind: string }[] }[];
    const run = runs.find((x) => x.agent === agent && x.waiting_for === kind);
    if (run) return run.workflow_id;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`no run of ${agent} waits for ${kind}`);
}

describe('perflow decisions', () => {
  it('run --follow shows the pending plan and its commands; pending, status, approve with edited steps, and memory show the decision', async () => {
    const file = agentFile('cli-approve', PLANNED);
    const followed = perflow(['run', '--agent', file, '--question', 'approve from the CLI', '--param', 'plan_approval=first', '--follow'], {}, 120_000);
    const id = await waitingRun('cli-approve', 'plan');

    const status = await perflow(['status', id]);
    expect(status.stdout).toContain(`${id}: awaiting_approval`);
    expect(status.stdout).toContain('awaiting approval of the plan (plan-1):');
    expect(status.stdout).toContain(`answer: perflow approve ${id}`);

    const stepsFile = join(cli.dir, 'steps.txt');
    writeFileSync(stepsFile, 'step B from a file\n');
    const approved = await perflow(['approve', id, '--steps-file', stepsFile, '--by', 'cli-user', '--json']);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ workflow_id: id, kind: 'plan', action: 'edit', by: 'cli-user', detail: '1. step B from a file' });

    const r = await followed;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('awaiting approval of the plan (plan-1):\n  1. step A');
    expect(r.stdout).toContain(`  answer: perflow approve ${id}\n`);
    expect(r.stdout).toContain(`  answer: perflow reject ${id} --reason TEXT [--stop]`);
    expect(r.stdout).toMatch(/^step 1 done: step B from a file → result A$/m);
    expect(r.stdout).toMatch(/^result:\nthe answer$/m);

    const memoryId = /^memory_id: (\S+)$/m.exec(r.stdout)?.[1];
    // The harness's worker keeps memory in a database of its own.
    const memory = await perflow(['memory', memoryId!], { MONGODB_URI: cli.memoryUri });
    expect(memory.stdout).toMatch(/^ {2}decision \[[^\]]+\] plan edit by cli-user: 1\. step B from a file$/m);
    // The run has ended: a decision now is refused in one line.
    const late = await perflow(['approve', id]);
    expect(late.code).toBe(1);
    expect(late.stderr.trim().split('\n')).toHaveLength(1);
    expect(late.stderr).toMatch(/did not accept the decidePlan decision: the run has ended \(completed\)/);
  });

  it('pause, resume, guide and reject --stop answer a waiting run; bad options fail in one line', async () => {
    const file = agentFile('cli-steer', PLANNED);
    const started = await perflow(['run', '--agent', file, '--question', 'steer from the CLI', '--param', 'plan_approval=every', '--json']);
    const { workflow_id: id } = JSON.parse(started.stdout) as { workflow_id: string };
    await waitingRun('cli-steer', 'plan');

    expect((await perflow(['pause', id, '--by', 'ops'])).stdout).toMatch(new RegExp(`^${id}: pause pause by ops at `));
    expect((await perflow(['resume', id, '--by', 'ops', '--json'])).stdout).toContain('"action": "resume"');
    const guided = await perflow(['guide', id, 'keep', 'it', 'short', '--by', 'ops', '--json']);
    expect(JSON.parse(guided.stdout)).toMatchObject({ kind: 'guidance', detail: 'keep it short' });

    const noReason = await perflow(['reject', id]);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toBe('perflow: reject needs --reason TEXT\n');
    const badInput = await perflow(['approve-tool', id, '--input', '[1]']);
    expect(badInput.stderr).toBe('perflow: --input must be a JSON object\n');

    const stopped = await perflow(['reject', id, '--reason', 'wrong question', '--stop', '--by', 'ops']);
    expect(stopped.code).toBe(0);
    const result = JSON.parse((await perflow(['result', id, '--json'])).stdout) as { response: string };
    expect(result.response).toBe('Plan rejected by ops; the run stopped. Reason: wrong question');
  });

  it('approve-tool with edited input and deny-tool answer tool calls that require approval', async () => {
    const file = agentFile('cli-tools', {
      llm: {
        interface: 'scripted',
        script: {
          planner: [JSON.stringify({ steps: ['compute twice'], result: '' }), JSON.stringify({ steps: [], result: 'computed' })],
          executor: [
            [
              calculatorCall('1+1'),
              calculatorCall('3+3'),
              { content: 'done' },
            ],
          ],
        },
      },
      tools: [{ type: 'CalculatorTool', requires_approval: true }],
    });
    const started = await perflow(['run', '--agent', file, '--question', 'tools from the CLI', '--json']);
    const { workflow_id: id, executor_agent_memory_id } = JSON.parse(started.stdout) as { workflow_id: string; executor_agent_memory_id: string };
    await waitingRun('cli-tools', 'tool');
    const pending = await perflow(['pending']);
    expect(pending.stdout).toContain(`${id}\ttool\tcli-tools`);
    expect(pending.stdout).toContain('awaiting approval of a tool call (tool-1-1) in step 1: CalculatorTool {"expression":"1+1"}');

    const edited = await perflow(['approve-tool', id, '--input', '{"expression":"2+2"}', '--by', 'ops', '--json']);
    expect(JSON.parse(edited.stdout)).toMatchObject({ kind: 'tool', action: 'edit', decision_id: 'tool-1-1' });
    await waitingRun('cli-tools', 'tool');
    const denied = await perflow(['deny-tool', id, '--reason', 'enough', '--by', 'ops', '--json']);
    expect(JSON.parse(denied.stdout)).toMatchObject({ kind: 'tool', action: 'deny', decision_id: 'tool-1-2', detail: 'CalculatorTool: enough' });

    expect(JSON.parse((await perflow(['result', id, '--json'])).stdout)).toMatchObject({ response: 'computed' });
    const calls = await cli.harness.memory.interactions.find({ memory_id: executor_agent_memory_id, origin: 'tool' }).toArray();
    expect(calls.map((c) => [c.input, c.response])).toEqual([['{"expression":"2+2"}', '4']]);
  });

  it('raise-budget lets a run waiting at its max_cost_usd go on (pending and status show the wait); an unpriced model is refused at run start', async () => {
    const unpriced = agentFile('cli-unpriced', PLANNED);
    const refused = await perflow(['run', '--agent', unpriced, '--question', 'q', '--param', 'max_cost_usd=1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('parameters.max_cost_usd: max_cost_usd needs every model\'s price, and none is known for model "scripted"');

    const file = agentFile('cli-budget', { llm: { interface: 'scripted', script: ONE_STEP_SCRIPT, price: { input_per_million: 1, output_per_million: 1 } } });
    const started = await perflow(['run', '--agent', file, '--question', 'a budget from the CLI', '--param', 'max_cost_usd=1e-9', '--json']);
    const { workflow_id: id } = JSON.parse(started.stdout) as { workflow_id: string };
    await waitingRun('cli-budget', 'budget');
    const pending = await perflow(['pending']);
    expect(pending.stdout).toContain(`${id}\tbudget\tcli-budget`);
    expect(pending.stdout).toContain('awaiting a budget decision (budget-1): the cost so far $');
    expect(pending.stdout).toContain(`answer: perflow raise-budget ${id} --usd N`);
    expect((await perflow(['status', id])).stdout).toContain(`${id}: awaiting_budget`);

    const bad = await perflow(['raise-budget', id, '--usd', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('raise-budget needs --usd N');
    const raised = await perflow(['raise-budget', id, '--usd', '1', '--by', 'ops', '--json']);
    expect(JSON.parse(raised.stdout)).toMatchObject({ workflow_id: id, kind: 'budget', action: 'raise', by: 'ops', decision_id: 'budget-1' });
    const result = JSON.parse((await perflow(['result', id, '--json'])).stdout) as { response: string; metadata: { budget: unknown } };
    expect(result.metadata.budget).toMatchObject({ max_cost_usd: 1e-9, raised_to: 1, decisions: [{ action: 'raise', by: 'ops' }] });
  });
});
