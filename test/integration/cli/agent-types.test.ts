/**
 * The `perflow` CLI with an agent of each type besides plan_execute_and_reflect: run, result,
 * status, list, replay and reset.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useCli } from '../../support/cli';
import { calculatorTurns } from '../../support/script';

jest.setTimeout(120_000);

const cli = useCli('cli-types');
const perflow = cli.perflow;

/** A scripted agent file of each other agent type: one step (todo) and a final answer. */
const calc = calculatorTurns('6*7', '42');
const TYPED_AGENTS: Record<string, { agent: Record<string, unknown>; list: string }> = {
  step_by_step: {
    list: 'steps',
    agent: {
      goal: 'the product',
      tools: [{ type: 'CalculatorTool' }],
      llm: { interface: 'scripted', script: { planner: ['multiply'], mapping: [JSON.stringify([{ stepNo: 1, name: 'multiply', toolId: 'CalculatorTool' }])], executor: [calc], decision: ['Decision: COMPLETE'] } },
    },
  },
  todo_list: {
    list: 'todos',
    agent: {
      tools: [{ type: 'CalculatorTool' }],
      llm: { interface: 'scripted', script: { planner: [JSON.stringify([{ stepNo: 1, description: 'multiply', successCriteria: 'a number' }])], executor: [calc], completion: ['COMPLETED'], goal: ['GOAL_ACHIEVED'] } },
    },
  },
  plan_and_execute: {
    list: 'plan_steps',
    agent: {
      tools: [{ type: 'CalculatorTool' }],
      llm: { interface: 'scripted', script: { planner: [JSON.stringify([{ goal: 'multiply', primary_tools: ['CalculatorTool'], success_criteria: 'a number' }])], executor: [calc], verification: ['{"met": true}'], final: ['42'] } },
    },
  },
};

describe.each(Object.keys(TYPED_AGENTS))('perflow with a %s agent', (type) => {
  let id: string;
  it('run, then result --json, gives the RunOutput with metadata', async () => {
    const file = join(cli.dir, `${type}.json`);
    writeFileSync(file, JSON.stringify({ name: `cli-${type}`, type, ...TYPED_AGENTS[type].agent }));
    const started = await perflow(['run', '--agent', file, '--question', `${type}: what is 6*7?`]);
    expect(started.code).toBe(0);
    id = /^workflow_id: (\S+)$/m.exec(started.stdout)![1];
    const r = await perflow(['result', id, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { response: string; metadata: { agent_type: string } };
    expect(out.response).toBe('42');
    expect(out.metadata.agent_type).toBe(type);
  });

  it('status --json shows its type-specific progress', async () => {
    const r = await perflow(['status', id, '--json']);
    expect(r.code).toBe(0);
    const p = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(p).toMatchObject({ status: 'completed', agent_type: type, result: '42', steps_executed: 1 });
    expect(p[TYPED_AGENTS[type].list]).toHaveLength(1);
    // `list` covers every agent type's workflow (visibility is eventually consistent).
    let listed = '';
    for (let i = 0; i < 20 && !listed.includes(id); i++) {
      listed = (await perflow(['list', '--agent', `cli-${type}`])).stdout;
      if (!listed.includes(id)) await new Promise((done) => setTimeout(done, 500));
    }
    expect(listed).toContain(id);
  });

  it('replay ID replays its history, children included in the bundle', async () => {
    const r = await perflow(['replay', id], {}, 90_000);
    expect(r.stdout).toContain('replay ok');
    expect(r.code).toBe(0);
  });

  it('reset re-runs it from the first workflow task to the same result', async () => {
    const r = await perflow(['reset', id, '--to', 'first-workflow-task', '--reason', 'test', '--json']);
    expect(r.code).toBe(0);
    const reset = JSON.parse(r.stdout) as { workflow_id: string; run_id: string; reset_to_event: number; ui_url: string };
    expect(reset).toMatchObject({ workflow_id: id, reset_to_event: expect.any(Number), ui_url: expect.stringContaining(reset.run_id) });
    const runId = reset.run_id;
    // The reset run starts its children again under the same IDs: the earlier ones have closed.
    expect(await cli.harness.client.workflow.getHandle(id, runId).result()).toMatchObject({ response: '42' });
  });
});
