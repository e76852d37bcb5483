/**
 * Fork a run from step N: the fork reuses the source's first N−1 steps (copied from memory, no
 * model or tool call for them) and plans step N under a changed template; `--from-step` past
 * the source's steps fails in one line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forkRun } from '../../client/fork';
import { progressQuery } from '../../workflows/definitions';
import { useCli } from '../support/cli';
import { final, plan, runInput, scriptedAgent, startAgentRun } from '../support/harness';
import { parseAgentDefinition } from '../../core/agent';
import { readConversation } from '../../stores/conversation';
import { formatConversation } from '../../client/text-views';
import { diffRuns, type RunDiff } from '../../client/diff';
import { typedAgent } from '../support/typed-agents';
import { gateTool } from '../support/gate-tool';
import { calculatorTurns, onTrack, planAndExecuteAgent, planStep, verdict, withCalculator } from '../support/script';

jest.setTimeout(120_000);

// The CLI fixture's worker runs the runs; `perflow fork` and `diff` run as subprocesses.
const gate = gateTool('GateTool');
const cli = useCli('fork', { tools: [gate.tool] });
const harness = () => cli.harness;

const SOURCE = scriptedAgent(
  {
    planner: [plan('compute 6*7', 'compute 2^10', 'add them'), plan('compute 2^10', 'add them'), plan('add them'), final('1066')],
    executor: [
      calculatorTurns('6*7', 'six times seven is 42'),
      calculatorTurns('2^10', 'two to the ten is 1024'),
      [{ content: '1066' }],
    ],
  },
  withCalculator(),
);

describe('perflow fork', () => {
  it('reuses steps 1–2 of a three-step run and plans step 3 under a changed reflect template', async () => {
    const source = await startAgentRun(harness(), runInput(SOURCE, 'fork me: (6*7) + 2^10'), 'fork-source');
    await source.result();

    // The fork's agent: the same, with a planner that answers at once. Its first call is step 3's,
    // at the script position where the source stood then (2: positions 0–1 planned the reused steps).
    const forkAgent = parseAgentDefinition(scriptedAgent({ planner: ['(planned step 1)', '(planned step 2)', final('1066, forked')] }, withCalculator()), { toolTypes: 'any' });
    const template = 'CUSTOM REFLECT for ${parameters.user_prompt}\nDone so far:\n${parameters.completed_steps}\n${parameters.plan_execute_reflect_response_format}';
    const fork = await forkRun(harness().perflow, source.workflowId, { fromStep: 3, agent: forkAgent, params: { reflect_prompt_template: template } });
    const out = await fork.handle.result();
    expect(out.response).toBe('1066, forked');
    expect(out.steps_executed).toBe(2);

    // No executor child and one planner call (step 3's) in the fork's history.
    const events = (await fork.handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(0);
    const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(scheduled.filter((n) => n === 'planningModel' || n === 'executionModel' || n === 'callTool')).toEqual(['planningModel']);

    // Step 3's planner prompt: the new template with the reused results.
    const prompt = harness().recorder.find((r) => r.position.role === 'planner' && r.messages[0].content.startsWith('CUSTOM REFLECT for fork me'));
    expect(prompt?.messages[0].content).toContain('six times seven is 42');
    expect(prompt?.messages[0].content).toContain('two to the ten is 1024');

    const progress = await fork.handle.query(progressQuery);
    expect(progress.forked_from).toEqual({ workflow_id: source.workflowId, step: 3 });
    expect(progress.completed_steps.map((s) => s.result_preview)).toEqual(['six times seven is 42', 'two to the ten is 1024']);
    // Its own memory, linked to the source; the copies keep the tool calls.
    expect(out.memory_id).not.toBe((await source.query(progressQuery)).memory_id);
    const root = await harness().memory.interactions.findOne({ _id: out.parent_interaction_id });
    expect(root?.forked_from).toEqual({ workflow_id: source.workflowId, step: 3 });
    const traces = await harness().memory.interactions.find({ parent_interaction_id: out.parent_interaction_id, origin: 'planner' }).sort({ trace_number: 1 }).toArray();
    expect(traces.map((t) => [t.trace_number, t.input, t.response])).toEqual([
      [1, 'compute 6*7', 'six times seven is 42'],
      [2, 'compute 2^10', 'two to the ten is 1024'],
    ]);
    const view = await readConversation(harness().memory, out.memory_id);
    expect(formatConversation(view!)).toContain(`  forked from ${source.workflowId} at step 3 (steps before it reused)\n  step 1: compute 6*7`);
    const tools = await harness().memory.interactions.find({ memory_id: out.executor_agent_memory_id, origin: 'tool' }).toArray();
    expect(tools.map((t) => t.input).sort()).toEqual(['{"expression":"2^10"}', '{"expression":"6*7"}']);

    // Forking again under the fork's workflow ID is refused and copies nothing twice.
    const copies = () => harness().memory.interactions.countDocuments({ 'forked_from.workflow_id': source.workflowId });
    const before = await copies();
    expect(before).toBe(2 + 2 + 2 + 2); // two roots, two traces, two executor records, two tool calls
    await expect(forkRun(harness().perflow, source.workflowId, { fromStep: 3, agent: forkAgent, workflowId: fork.workflowId })).rejects.toThrow(`a run with workflow ID ${fork.workflowId} exists already: a fork is started once under its ID (nothing was copied again)`);
    expect(await copies()).toBe(before);
    const again = await cli.perflow(['fork', source.workflowId, '--from-step', '3', '--workflow-id', fork.workflowId]);
    expect(again.stderr).toBe(`perflow: a run with workflow ID ${fork.workflowId} exists already: a fork is started once under its ID (nothing was copied again)\n`);
    expect(await copies()).toBe(before);

    // perflow diff names the changed template, the step 3 only the source ran, and the responses.
    const text = await cli.perflow(['diff', source.workflowId, fork.workflowId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('≠ parameters.reflect_prompt_template:');
    expect(text.stdout).toContain('    +CUSTOM REFLECT for ${parameters.user_prompt}');
    expect(text.stdout).toMatch(/^≠ {2}3 A add them → 1066 \(.*\)\n {5}B —$/m);
    // The reused steps are the same on both sides, tool calls included.
    expect(text.stdout).toMatch(/^ {3}1 A compute 6\*7 → six times seven is 42 \[CalculatorTool \{"expression":"6\*7"\}\]/m);
    expect(text.stdout).toContain('≠ response A: 1066\n  response B: 1066, forked');
    const json = JSON.parse((await cli.perflow(['diff', source.workflowId, fork.workflowId, '--json'])).stdout) as RunDiff;
    expect(json.settings.map((s) => s.key)).toEqual(['parameters.reflect_prompt_template']);
    expect(json.steps.map((s) => s.same)).toEqual([true, true, false]);
    expect(json.same_response).toBe(false);
  });

  it('takes up a scripted source\'s script where it stood: a fork from step 3 under the same agent file executes only step 3', async () => {
    const source = await startAgentRun(harness(), runInput(SOURCE, 'fork me as I am'), 'fork-same');
    await source.result();
    const r = await cli.perflow(['fork', source.workflowId, '--from-step', '3', '--wait', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { workflow_id: string; response: string; steps_executed: number };
    expect([out.response, out.steps_executed]).toEqual(['1066', 3]);
    const events = (await harness().client.workflow.getHandle(out.workflow_id).fetchHistory()).events ?? [];
    const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
    // Step 3's plan (source position 2), its one executor child, then the final answer (position 3).
    expect(scheduled.filter((n) => n === 'planningModel' || n.includes('/step-'))).toEqual(['planningModel', `${out.workflow_id}/step-3`, 'planningModel']);
  });

  it('fails in one line with --from-step past the source’s last step', async () => {
    const source = await startAgentRun(harness(), runInput(SOURCE, 'fork too far'), 'fork-far');
    await source.result();
    await expect(forkRun(harness().perflow, source.workflowId, { fromStep: 5 })).rejects.toThrow(
      `--from-step 5 is past what ${source.workflowId} has: it completed 3 steps, so --from-step may be 1 to 4`,
    );
    const r = await cli.perflow(['fork', source.workflowId, '--from-step', '9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`perflow: --from-step 9 is past what ${source.workflowId} has: it completed 3 steps, so --from-step may be 1 to 4\n`);
  });
});

describe('perflow fork (plan_and_execute)', () => {
  // Step 2 takes two attempts: the fork from step 3 reuses three executions.
  const SOURCE_PAE = planAndExecuteAgent({
    planner: [JSON.stringify([planStep('compute 6*7'), planStep('compute 2^10'), planStep('add them')])],
    executor: [calculatorTurns('6*7', 'six times seven is 42'), calculatorTurns('2^9', 'two to the nine is 512'), calculatorTurns('2^10', 'two to the ten is 1024'), calculatorTurns('42+1024', '1066')],
    verification: [verdict(true), verdict(false), verdict(true), verdict(true)],
    viability: [onTrack(), onTrack()],
    final: ['1066'],
  });

  it('reuses plan steps 1–2 (three executions) and re-plans from step 3 under the fork’s agent', async () => {
    const question = 'fork a plan: (6*7) + 2^10';
    const source = await startAgentRun(harness(), runInput(SOURCE_PAE, question), 'pae-fork-source');
    expect((await source.result()).response).toBe('1066');

    // The fork's scripts go on where the source stood at step 3: its re-plan is planner call 1 (call 0
    // planned the reused steps), its executions continue at 3 and its verifications at 3 (0–2 were the source's).
    const forkAgent = parseAgentDefinition(
      planAndExecuteAgent({
        planner: ['(the source\'s plan)', JSON.stringify([planStep('add 42 and 1024, checking twice')])],
        executor: [[], [], [], calculatorTurns('42+1024', 'checked: 1066')],
        verification: [verdict(true), verdict(false), verdict(true), verdict(true)],
        final: ['1066, forked'],
      }),
      { toolTypes: 'any' },
    );
    const fork = await forkRun(harness().perflow, source.workflowId, { fromStep: 3, agent: forkAgent });
    const out = await fork.handle.result();
    expect(out.response).toBe('1066, forked');

    // One executor child (the new step 3); the only planner call is the fork's re-plan.
    const events = (await fork.handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(1);
    const forkPrompts = harness().recorder.filter((r) => r.position.role === 'planner' && r.messages.some((m) => m.content.includes(`fork of ${source.workflowId} from step 3`)));
    expect(forkPrompts).toHaveLength(1);
    const replan = forkPrompts[0].messages.map((m) => m.content).join('\n');
    expect(replan).toContain('six times seven is 42');
    expect(replan).toContain('two to the ten is 1024');
    expect(replan).toContain('add them'); // the source's remaining plan, for the planner to revise

    const progress = await fork.handle.query(progressQuery);
    expect(progress.forked_from).toEqual({ workflow_id: source.workflowId, step: 3 });
    expect(progress.completed_steps.map((s) => [s.index, s.step, s.result_preview])).toEqual([
      [0, 'step 1: compute 6*7', 'six times seven is 42'],
      [1, 'step 2: compute 2^10', 'two to the nine is 512'],
      [2, 'step 2, attempt 2: compute 2^10', 'two to the ten is 1024'],
      [3, 'step 3: add 42 and 1024, checking twice', 'checked: 1066'],
    ]);
    expect(progress.plan_steps?.map((s) => [s.step_num, s.goal, s.status, s.attempts])).toEqual([
      [1, 'compute 6*7', 'completed', 1],
      [2, 'compute 2^10', 'completed', 2],
      [3, 'add 42 and 1024, checking twice', 'completed', 1],
    ]);
    expect(progress.replans?.map((r) => [r.after_step, r.trigger])).toEqual([[2, 'fork']]);
    const results = (out.metadata as { execution: { steps: { step_num: number; observation: string }[] } }).execution.steps;
    expect(results.map((r) => [r.step_num, r.observation])).toEqual([
      [1, 'six times seven is 42'],
      [2, 'two to the ten is 1024'],
      [3, 'checked: 1066'],
    ]);
    // Its memory holds copies of the three reused executions, linked to the source.
    const traces = await harness().memory.interactions.find({ parent_interaction_id: out.parent_interaction_id, origin: 'planner' }).sort({ trace_number: 1 }).toArray();
    expect(traces.map((t) => [t.trace_number, t.forked_from?.workflow_id])).toEqual([
      [1, source.workflowId],
      [2, source.workflowId],
      [3, source.workflowId],
      [4, undefined],
    ]);

    // The diff: the reused executions are the same, step 3 and the response differ.
    const diff = await diffRuns(harness().client, source.workflowId, fork.workflowId);
    expect(diff.steps.map((s) => s.same)).toEqual([true, true, true, false]);
    expect(diff.same_response).toBe(false);

    // Past the source's three plan steps: one line.
    await expect(forkRun(harness().perflow, source.workflowId, { fromStep: 5 })).rejects.toThrow(
      `--from-step 5 is past what ${source.workflowId} has: it completed 3 steps, so --from-step may be 1 to 4`,
    );
  });

  it('forks a running run with the steps it completed so far', async () => {
    const gated = planAndExecuteAgent({
      planner: [JSON.stringify([planStep('compute 6*7'), planStep('wait for the gate', { primary_tools: ['GateTool'] }), planStep('add 1')])],
      executor: [calculatorTurns('6*7', 'six times seven is 42'), [{ tool_calls: [{ name: 'GateTool', input: { label: 'step 2' } }] }, { content: 'the gate opened' }], calculatorTurns('42+1', '43')],
      verification: [verdict(true), verdict(true), verdict(true)],
      viability: [onTrack(), onTrack()],
      final: ['43'],
    });
    gate.close();
    const source = await startAgentRun(harness(), runInput({ ...gated, tools: [{ type: 'CalculatorTool' }, { type: 'GateTool' }] }, 'fork me while I run'), 'pae-fork-running');
    try {
      // Step 2 is running (step 1 verified and recorded in the plan): step 1 is all there is to reuse.
      for (let i = 0; i < 200 && (await source.query(progressQuery)).plan_steps?.[1]?.status !== 'running'; i++) await new Promise((ok) => setTimeout(ok, 100));
      await expect(forkRun(harness().perflow, source.workflowId, { fromStep: 3 })).rejects.toThrow(
        `--from-step 3 is past what ${source.workflowId} has: it completed 1 step, so --from-step may be 1 to 2`,
      );
      const forkAgent = parseAgentDefinition(
        // Where the source stood at step 2: planner call 1, execution 1, verification 1.
        planAndExecuteAgent({
          planner: ['(the source\'s plan)', JSON.stringify([planStep('add 1 to 42')])],
          executor: [[], calculatorTurns('42+1', 'forty-three')],
          verification: [verdict(true), verdict(true)],
          final: ['43, forked while running'],
        }),
        { toolTypes: 'any' },
      );
      const fork = await forkRun(harness().perflow, source.workflowId, { fromStep: 2, agent: forkAgent });
      const out = await fork.handle.result();
      expect(out.response).toBe('43, forked while running');
      expect((await fork.handle.query(progressQuery)).completed_steps.map((s) => s.result_preview)).toEqual(['six times seven is 42', 'forty-three']);
    } finally {
      gate.release();
    }
    expect((await source.result()).response).toBe('43');
  });

  it('refuses a step whose earlier steps ran in one batch with it, naming the batch', async () => {
    // Steps 1 ‖ 2; step 1 needs a second attempt, so step 2's execution sits between step 1's two.
    const parallel = planAndExecuteAgent({
      planner: [JSON.stringify([{ ...planStep('compute 6*7'), depends_on: [] }, { ...planStep('compute 2^10'), depends_on: [] }])],
      executor: [calculatorTurns('6*7', 'maybe 41'), calculatorTurns('2^10', '1024'), calculatorTurns('6*7', '42')],
      verification: [verdict(false), verdict(true), verdict(true)],
      final: ['42 and 1024'],
    });
    const source = await startAgentRun(harness(), runInput(parallel, 'fork a batch', { max_parallel_steps: 2 }), 'pae-fork-batch');
    expect((await source.result()).response).toBe('42 and 1024');
    await expect(forkRun(harness().perflow, source.workflowId, { fromStep: 2 })).rejects.toThrow(
      `cannot fork ${source.workflowId} from step 2: the steps before step 2 ran in one batch with later steps (max_parallel_steps): fork from the first step of that batch`,
    );
  });

  it.each(['step_by_step', 'todo_list'] as const)('refuses a %s run in one line', async (type) => {
    const source = await startAgentRun(harness(), runInput(typedAgent(type, 1), `fork a ${type} run`), `fork-${type}`);
    await source.result();
    const r = await cli.perflow(['fork', source.workflowId, '--from-step', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`perflow: fork supports plan_execute_and_reflect and plan_and_execute runs; ${source.workflowId} is a ${type} run, whose step list and variables a fork does not rebuild\n`);
  });
});

describe('fingerprints', () => {
  it('the same agent twice has one fingerprint; one word of a prompt changed makes another, and diff, status and list say so', async () => {
    const agent = cli.agentFile('fingerprinted', scriptedAgent({ planner: [final('42')] }, withCalculator()));
    const run = async (...params: string[]) => {
      const r = await cli.perflow(['run', '--agent', agent, '--question', 'What is 6*7?', ...params.flatMap((p) => ['--param', p]), '--wait', '--json']);
      expect(r.stderr).toBe('');
      return (JSON.parse(r.stdout) as { workflow_id: string }).workflow_id;
    };
    const [a, b, c] = [await run(), await run(), await run('system_prompt=You are a careful planner.')];
    const d = await run('system_prompt=You are a hasty planner.');
    const status = async (id: string) => JSON.parse((await cli.perflow(['status', id, '--json'])).stdout) as { fingerprint: string; fingerprint_parts: Record<string, string> };
    const [sa, sb, sc, sd] = await Promise.all([a, b, c, d].map(status));
    expect(sa.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(sb.fingerprint).toBe(sa.fingerprint);
    expect(sc.fingerprint).not.toBe(sa.fingerprint);
    expect(sd.fingerprint).not.toBe(sc.fingerprint);
    // Only the prompts part moved; the version is perflow's.
    expect(Object.keys(sc.fingerprint_parts).filter((k) => sc.fingerprint_parts[k] !== sd.fingerprint_parts[k])).toEqual(['prompts']);
    expect(sa.fingerprint_parts.version).toBe((JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version);

    const diff = await cli.perflow(['diff', c, d]);
    const lines = diff.stdout.split('\n');
    expect(lines[0]).toBe(`≠ fingerprints A ${sc.fingerprint} | B ${sd.fingerprint}: prompts differ`);
    expect(lines).toContain('≠ parameters.system_prompt: A "You are a careful planner." | B "You are a hasty planner."');
    expect((await cli.perflow(['diff', a, b])).stdout.split('\n')[0]).toBe(`same fingerprint ${sa.fingerprint}`);

    const listed = JSON.parse((await cli.perflow(['list', '--fingerprint', sa.fingerprint, '--json'])).stdout) as Array<{ workflow_id: string; fingerprint: string }>;
    expect(listed.map((r) => r.workflow_id).sort()).toEqual([a, b].sort());
    expect(listed.every((r) => r.fingerprint === sa.fingerprint)).toBe(true);
  });
});
