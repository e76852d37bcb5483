/**
 * Fork a run from step N: the fork reuses the source's first N−1 steps (copied from memory, no
 * model or tool call for them) and plans step N under a changed template; `--from-step` past
 * the source's steps fails in one line.
 */
import { forkRun } from '../../client/fork';
import { progressQuery } from '../../workflows/definitions';
import { useCli } from '../support/cli';
import { final, plan, runInput, scriptedAgent, startAgentRun } from '../support/harness';
import { parseAgentDefinition } from '../../core/agent';
import { formatConversation, readConversation } from '../../memory/conversation';
import type { RunDiff } from '../../client/diff';

jest.setTimeout(120_000);

// The CLI fixture's worker runs the runs; `perflow fork` and `diff` run as subprocesses.
const cli = useCli('fork');
const harness = () => cli.harness;

const SOURCE = scriptedAgent(
  {
    planner: [plan('compute 6*7', 'compute 2^10', 'add them'), plan('compute 2^10', 'add them'), plan('add them'), final('1066')],
    executor: [
      [{ tool_calls: [{ name: 'CalculatorTool', input: { expression: '6*7' } }] }, { content: 'six times seven is 42' }],
      [{ tool_calls: [{ name: 'CalculatorTool', input: { expression: '2^10' } }] }, { content: 'two to the ten is 1024' }],
      [{ content: '1066' }],
    ],
  },
  { tools: [{ type: 'CalculatorTool' }] },
);

describe('perflow fork', () => {
  it('reuses steps 1–2 of a three-step run and plans step 3 under a changed reflect template', async () => {
    const source = await startAgentRun(harness(), runInput(SOURCE, 'fork me: (6*7) + 2^10'), 'fork-source');
    await source.result();

    // The fork's agent: the same, with a planner that answers at once (its first call is step 3's).
    const forkAgent = parseAgentDefinition(scriptedAgent({ planner: [final('1066, forked')] }, { tools: [{ type: 'CalculatorTool' }] }), { toolTypes: 'any' });
    const template = 'CUSTOM REFLECT for ${parameters.user_prompt}\nDone so far:\n${parameters.completed_steps}\n${parameters.plan_execute_reflect_response_format}';
    const fork = await forkRun(harness().client, source.workflowId, { fromStep: 3, agent: forkAgent, params: { reflect_prompt_template: template }, taskQueue: harness().taskQueue });
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
    await expect(forkRun(harness().client, source.workflowId, { fromStep: 3, agent: forkAgent, taskQueue: harness().taskQueue, workflowId: fork.workflowId })).rejects.toThrow(`a run with workflow ID ${fork.workflowId} exists already: a fork is started once under its ID (nothing was copied again)`);
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

  it('fails in one line with --from-step past the source’s last step', async () => {
    const source = await startAgentRun(harness(), runInput(SOURCE, 'fork too far'), 'fork-far');
    await source.result();
    await expect(forkRun(harness().client, source.workflowId, { fromStep: 5, taskQueue: harness().taskQueue })).rejects.toThrow(
      `--from-step 5 is past what ${source.workflowId} has: it completed 3 steps, so --from-step may be 1 to 4`,
    );
    const r = await cli.perflow(['fork', source.workflowId, '--from-step', '9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`perflow: --from-step 9 is past what ${source.workflowId} has: it completed 3 steps, so --from-step may be 1 to 4\n`);
  });
});
