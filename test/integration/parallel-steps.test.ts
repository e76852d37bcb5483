/**
 * plan_execute_and_reflect with `max_parallel_steps`: the planner's first group of independent
 * steps runs as concurrent executor children (at most the cap at once), recorded in plan order,
 * and the planner reflects once over all of them; a failed one is a failed step result; at 1 a
 * group runs one step at a time; cancelling the run cancels every running child.
 */
import type { temporal } from '@temporalio/proto';
import { WorkflowFailedError } from '@temporalio/client';
import { gateTool } from '../support/gate-tool';
import { final, plan, progressOf, runInput, scriptedAgent, startAgentRun, until, untilProgress, useHarness } from '../support/harness';
import { calculatorTurns } from '../support/script';

jest.setTimeout(120_000);

const gate = gateTool('GateTool');
const harness = useHarness({ tools: [gate.tool] });

const grouped = (...entries: (string | string[])[]) => JSON.stringify({ steps: entries, result: '' });

/** The parent's child starts and completions, in history order: `start step-1`, `end step-2`, … */
async function childEvents(workflowId: string): Promise<string[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = (await harness().client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const started = new Map<string, string>();
  const out: string[] = [];
  for (const e of events) {
    const init = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (init) {
      const name = init.workflowId!.split('/').pop()!;
      started.set(String(e.eventId), name);
      out.push(`start ${name}`);
    }
    const done = e.childWorkflowExecutionCompletedEventAttributes ?? e.childWorkflowExecutionFailedEventAttributes;
    if (done) out.push(`end ${started.get(String(done.initiatedEventId))}`);
  }
  return out;
}

const plannerPrompts = (question: string) =>
  harness()
    .recorder.filter((r) => r.position.role === 'planner' && r.messages[0].content.includes(question))
    .map((r) => ({ system: r.system, prompt: r.messages[0].content }));

describe('parallel steps (plan_execute_and_reflect)', () => {
  it('runs a group as concurrent children and reflects once over their results, in plan order', async () => {
    const question = 'compare A and B in parallel';
    const agent = scriptedAgent({
      planner: [grouped(['find A', 'find B'], 'compare them'), plan('compare them'), final('B is bigger')],
      executor: [[{ content: 'A is 3' }], [{ content: 'B is 5' }], [{ content: '5 > 3' }]],
    });
    const run = await startAgentRun(harness(), runInput(agent, question, { max_parallel_steps: 2 }), 'parallel');
    const out = await run.result();
    expect(out.response).toBe('B is bigger');
    expect(out.steps_executed).toBe(3);
    // Both children started before either ended.
    const order = await childEvents(run.workflowId);
    expect(order.slice(0, 2).sort()).toEqual(['start step-1', 'start step-2']);
    expect(order.indexOf('start step-3')).toBeGreaterThan(Math.max(order.indexOf('end step-1'), order.indexOf('end step-2')));

    const prompts = plannerPrompts(question);
    expect(prompts).toHaveLength(3); // the plan, one reflection over the group, one after step 3
    expect(prompts[0].system).toContain('Parallel steps: when some of the next steps do not depend on each other');
    expect(prompts[0].system).toContain('at most 2 at once');
    const reflect = prompts[1].prompt;
    expect(reflect.indexOf('A is 3')).toBeGreaterThan(-1);
    expect(reflect.indexOf('B is 5')).toBeGreaterThan(reflect.indexOf('A is 3'));
    const progress = await progressOf(harness(), run.workflowId);
    expect(progress.completed_steps.map((s) => [s.index, s.step, s.result_preview])).toEqual([
      [0, 'find A', 'A is 3'],
      [1, 'find B', 'B is 5'],
      [2, 'compare them', '5 > 3'],
    ]);
    // Memory keeps them in step order too.
    const traces = await harness().memory.interactions.find({ parent_interaction_id: out.parent_interaction_id }).sort({ trace_number: 1 }).toArray();
    expect(traces.map((t) => [t.trace_number, t.input])).toEqual([
      [1, 'find A'],
      [2, 'find B'],
      [3, 'compare them'],
    ]);
  });

  it('keeps the other result when one grouped step fails, and the planner sees the failure', async () => {
    const question = 'one of two fails';
    const agent = scriptedAgent({
      planner: [grouped(['find A', 'find B']), final('only A is known')],
      executor: [[{ content: 'A is 3' }], []], // step 2 has no script: its executor fails
    });
    const run = await startAgentRun(harness(), runInput(agent, question, { max_parallel_steps: 2 }), 'parallel-fail');
    expect((await run.result()).response).toBe('only A is known');
    const progress = await progressOf(harness(), run.workflowId);
    expect(progress.completed_steps.map((s) => s.ok)).toEqual([true, false]);
    expect(progress.completed_steps[1].result_preview).toMatch(/^Step failed: /);
    const reflect = plannerPrompts(question)[1].prompt;
    expect(reflect).toContain('A is 3');
    expect(reflect).toContain('Step failed: ');
  });

  it('runs at most max_parallel_steps children at once', async () => {
    const agent = scriptedAgent({
      planner: [grouped(['s1', 's2', 's3']), final('done')],
      executor: [[{ content: 'r1' }], [{ content: 'r2' }], [{ content: 'r3' }]],
    });
    const run = await startAgentRun(harness(), runInput(agent, 'three in a group, two at a time', { max_parallel_steps: 2 }), 'parallel-cap');
    await run.result();
    const order = await childEvents(run.workflowId);
    expect(order.slice(0, 2)).toEqual(['start step-1', 'start step-2']);
    const third = order.indexOf('start step-3');
    expect(third).toBeGreaterThan(Math.min(order.indexOf('end step-1'), order.indexOf('end step-2')));
  });

  it('with max_parallel_steps 1 (the default) runs a group one step at a time, reflecting after each', async () => {
    const question = 'grouped but sequential';
    const agent = scriptedAgent({
      planner: [grouped(['find A', 'find B'], 'compare'), grouped('find B', 'compare'), final('done')],
      executor: [[{ content: 'A is 3' }], [{ content: 'B is 5' }]],
    });
    const run = await startAgentRun(harness(), runInput(agent, question), 'sequential');
    expect((await run.result()).steps_executed).toBe(2);
    expect(await childEvents(run.workflowId)).toEqual(['start step-1', 'end step-1', 'start step-2', 'end step-2']);
    const prompts = plannerPrompts(question);
    expect(prompts).toHaveLength(3);
    expect(prompts[0].system).not.toContain('Parallel steps:');
  });

  it('cancels every running child when the run is cancelled', async () => {
    // The gate stays shut until the children are cancelled: a step that finished first would not be cancelled.
    gate.close();
    try {
      const call = (label: string) => [{ tool_calls: [{ name: 'GateTool', input: { label } }] }, { content: label }];
      const agent = scriptedAgent({ planner: [grouped(['wait 1', 'wait 2'])], executor: [call('1'), call('2')] }, { tools: [{ type: 'GateTool' }] });
      const run = await startAgentRun(harness(), runInput(agent, 'cancel both', { max_parallel_steps: 2 }), 'parallel-cancel');
      const progress = await untilProgress(harness(), run.workflowId, (p) => p.current_steps?.length === 2, 'both steps running');
      expect(progress.current_steps?.map((c) => c.index)).toEqual([0, 1]);
      await run.cancel();
      await expect(run.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      for (const n of [1, 2]) {
        const child = harness().client.workflow.getHandle(`${run.workflowId}/step-${n}`);
        const status = await until(async () => (await child.describe()).status.name, (s) => s !== 'RUNNING', `step-${n} to close`);
        expect(status).toBe('CANCELLED');
      }
    } finally {
      gate.release();
    }
  });
});

describe('parallel steps (plan_and_execute with depends_on)', () => {
  it('runs steps 1 and 2 concurrently and step 3 after both', async () => {
    const question = 'two lookups, then a comparison';
    const step = (goal: string, depends_on?: number[]) => ({ goal, primary_tools: ['CalculatorTool'], success_criteria: 'a number', ...(depends_on ? { depends_on } : {}) });
    const agent = {
      name: 'parallel-pae',
      type: 'plan_and_execute',
      llm: {
        interface: 'scripted',
        script: {
          planner: [JSON.stringify([step('compute 6*7', []), step('compute 2^5', []), step('compare them', [1, 2])])],
          executor: [calculatorTurns('6*7', '42'), calculatorTurns('2^5', '32'), calculatorTurns('42-32', '10')],
          verification: [1, 2, 3].map(() => JSON.stringify({ met: true, reason: 'a number' })),
          viability: [JSON.stringify({ replan: false, confidence: 0.1, reason: 'on track' })],
          final: ['6*7 is larger by 10'],
        },
      },
      tools: [{ type: 'CalculatorTool' }],
    };
    const run = await startAgentRun(harness(), runInput(agent, question, { max_parallel_steps: 2 }), 'pae-parallel');
    const out = await run.result();
    expect(out.response).toBe('6*7 is larger by 10');
    const order = await childEvents(run.workflowId);
    expect(order.slice(0, 2)).toEqual(['start step-1', 'start step-2']);
    expect(order.indexOf('start step-3')).toBeGreaterThan(Math.max(order.indexOf('end step-1'), order.indexOf('end step-2')));
    // The plan prompt names depends_on (perflow's own addition), the steps are recorded in plan order.
    const planPrompt = harness().recorder.find((r) => r.position.role === 'planner' && r.messages[0].content.includes(question));
    expect(planPrompt?.messages[0].content).toContain('Steps may run in parallel: add "depends_on"');
    const progress = await progressOf(harness(), run.workflowId);
    expect(progress.completed_steps.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(progress.plan_steps?.map((s) => [s.step_num, s.status, s.depends_on])).toEqual([
      [1, 'completed', []],
      [2, 'completed', []],
      [3, 'completed', [1, 2]],
    ]);
    const stats = (out.metadata as { execution: { steps: { step_num: number; success: boolean }[] } }).execution.steps;
    expect(stats.map((r) => [r.step_num, r.success])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
  });

  it('without max_parallel_steps runs the same plan one step at a time', async () => {
    const step = (goal: string, depends_on: number[]) => ({ goal, primary_tools: [], success_criteria: '', depends_on });
    const agent = {
      name: 'sequential-pae',
      type: 'plan_and_execute',
      llm: {
        interface: 'scripted',
        script: {
          planner: [JSON.stringify([step('a', []), step('b', [])])],
          executor: [[{ content: 'A' }], [{ content: 'B' }]],
          viability: [JSON.stringify({ replan: false, confidence: 0.1, reason: 'ok' })],
          final: ['A and B'],
        },
      },
    };
    const run = await startAgentRun(harness(), runInput(agent, 'depends_on ignored at 1'), 'pae-sequential');
    expect((await run.result()).response).toBe('A and B');
    expect(await childEvents(run.workflowId)).toEqual(['start step-1', 'end step-1', 'start step-2', 'end step-2']);
  });
});
