/**
 * A run's event stream, as a client watching it sees it: every agent type's events in order and
 * without gaps, model text streamed in pieces that join to the answers the run used, a step's end
 * written with the first piece of the planning call after it, re-attaching
 * from an offset, a finished run's stream, and `perflow watch` / `run --follow` showing it.
 */
import { Runtime } from '@temporalio/worker';
import { answersOf, watchRun, type RunEvent } from '../../client';
import type { AgentType } from '../../core/agent';
import { createHarness, final, plan, scriptedAgent, startAgentRun, runInput } from '../support/harness';
import { useCli } from '../support/cli';
import { gateTool } from '../support/gate-tool';
import { AGENT_TYPES, expectedResponse, typedAgent } from '../support/typed-agents';
import { workflowTypeFor } from '../../workflows';
import { eventLiveOf } from '../../core/memory-collections';
import { RunEventLog } from '../../stores/run-events';
import { calculatorCall, withCalculator } from '../support/script';

jest.setTimeout(180_000);

const gate = gateTool();
const cli = useCli('events', { tools: [gate.tool] });

async function collect(workflowId: string, from?: number): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const e of watchRun(cli.harness.perflow, workflowId, { ...(from !== undefined ? { from } : {}) })) events.push(e);
  return events;
}

/** Scripted model answers arrive in pieces of 5 characters over 60 ms. */
const STREAMED = { latency_ms: 60, stream_chunk_chars: 5 };

function streamedAgent(type: AgentType, steps: number) {
  const agent = typedAgent(type, steps) as { llm: { parameters?: Record<string, unknown> }; executor_llm?: { parameters?: Record<string, unknown> } };
  agent.llm.parameters = { ...agent.llm.parameters, ...STREAMED };
  return agent;
}

const typesOf = (events: RunEvent[]) => events.map((e) => e.type);
const indexOfType = (events: RunEvent[], pred: (e: RunEvent) => boolean) => events.findIndex(pred);

describe('run event streams', () => {
  const watched = new Map<AgentType, { id: string; events: RunEvent[] }>();

  it.each(AGENT_TYPES)('%s: events of every kind, in order, offsets without gaps, text that joins to the answers', async (type) => {
    const handle = await startAgentRun(cli.harness, runInput(streamedAgent(type, 2), `streamed ${type}`), `events-${type.replace(/_/g, '-')}`);
    // Watching from the start while the run goes on.
    const events = await collect(handle.workflowId);
    const output = await handle.result();
    watched.set(type, { id: handle.workflowId, events });

    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ type: 'run_started', workflow_id: handle.workflowId, agent_type: type, question: `streamed ${type}` });
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', response: expectedResponse(type, 2) });
    for (const e of events) expect(Number.isNaN(Date.parse(e.at))).toBe(false);
    const types = typesOf(events);
    for (const t of ['plan', 'step_started', 'model_delta', 'tool_call', 'tool_result', 'step_finished'] as const) expect(types).toContain(t);

    for (const index of [0, 1]) {
      // Each step: started, its tool call and result, finished — in that order.
      const started = indexOfType(events, (e) => e.type === 'step_started' && e.index === index);
      const call = indexOfType(events, (e) => e.type === 'tool_call' && e.step === index);
      const result = indexOfType(events, (e) => e.type === 'tool_result' && e.step === index);
      const finished = indexOfType(events, (e) => e.type === 'step_finished' && e.index === index);
      expect(started).toBeGreaterThan(0);
      expect([started < call, call < result, result < finished]).toEqual([true, true, true]);
      expect(events[result]).toMatchObject({ tool: 'CalculatorTool', ok: true });
      expect(events[finished]).toMatchObject({ ok: true, result: `total ${index === 0 ? 1 : 3}` });
    }
    // Each step's end once; where a planning call follows it, the step's end went out with that
    // call's first piece of text, in the call's write (one write fewer per step).
    const batches = (await cli.harness.memory.eventLog().archive.find({ run: handle.workflowId }).toArray()).flatMap((d) => d.batches);
    const batchOf = (offset: number) => batches.find((b) => b.first <= offset && offset < b.first + b.count);
    const ends = events.filter((e) => e.type === 'step_finished');
    expect(ends.map((e) => e.type === 'step_finished' && e.index)).toEqual([0, 1]);
    const reflected = ends.filter((e) => {
      const next = events[e.offset + 1];
      return next?.type === 'model_delta' && next.role === 'planner';
    });
    for (const e of reflected) expect(batchOf(e.offset)).toBe(batchOf(e.offset + 1));
    if (type === 'plan_execute_and_reflect') expect(reflected.length).toBe(2);
    // A tool call's events went on to the step's next turn: written with its first piece of text, in one insert.
    for (const index of [0, 1]) {
      // The step's start went to its executor, whose first turn (a tool call, no text) handed it on to the call
      // and the next turn: written with them, in one insert, the planner's last text and the plan before it.
      const started = indexOfType(events, (e) => e.type === 'step_started' && e.index === index);
      const call = indexOfType(events, (e) => e.type === 'tool_call' && e.step === index);
      expect(batchOf(started)).toBe(batchOf(call));
      // The plan, when the task that started the step published one, went with it.
      if (index === 0) expect(events[started - 1]).toMatchObject({ type: 'plan' });
      if (events[started - 1].type === 'plan') expect(batchOf(started - 1)).toBe(batchOf(started));
      const next = events[call + 2];
      expect(events[call + 1]).toMatchObject({ type: 'tool_result', step: index });
      expect(next).toMatchObject({ type: 'model_delta', role: 'executor', step: index });
      expect(batchOf(call)).toBeDefined();
      expect([call + 1, call + 2].map((o) => batchOf(o))).toEqual([batchOf(call), batchOf(call)]);
    }
    // Answers arrive in pieces of at most 5 characters and join to what the model answered.
    const deltas = events.filter((e) => e.type === 'model_delta');
    expect(deltas.length).toBeGreaterThan(20);
    for (const d of deltas) expect(d.type === 'model_delta' && d.text.length).toBeLessThanOrEqual(5);
    const answers = answersOf(events);
    expect(answers.find((a) => a.role === 'executor' && a.step === 1)?.text).toBe('total 3');
    const roles = new Set(answers.map((a) => a.role));
    expect(roles.has('executor')).toBe(true);
    expect(roles.has('planner')).toBe(true);
    expect(output.response).toBe(expectedResponse(type, 2));
  });

  it('re-attaching from an offset gives exactly the events from there on; a finished run still streams', async () => {
    const { id, events } = watched.get('plan_execute_and_reflect')!;
    for (const from of [0, 1, 7, events.length - 1]) expect(await collect(id, from)).toEqual(events.slice(from));
  });

  it.each(AGENT_TYPES)('%s, model not streaming: each planning answer whole, once, written by the run with the events after it', async (type) => {
    const agent = typedAgent(type, 2) as { llm: { parameters?: Record<string, unknown> } };
    agent.llm.parameters = { ...agent.llm.parameters, stream: false };
    const handle = await startAgentRun(cli.harness, runInput(agent, `streamed ${type}`), `events-whole-${type.replace(/_/g, '-')}`);
    await handle.result();
    const events = await collect(handle.workflowId);
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    // The same answers as the streamed run of the same script, each in one event (none lost, none twice).
    const deltas = events.filter((e) => e.type === 'model_delta');
    expect(new Set(deltas.map((d) => d.type === 'model_delta' && d.call)).size).toBe(deltas.length);
    expect(answersOf(events)).toEqual(answersOf(watched.get(type)!.events));
    if (type !== 'plan_execute_and_reflect') return;
    // The planner's answer went out in the write of the plan and the step it starts (the run's, handed to the step's executor).
    const batches = (await cli.harness.memory.eventLog().archive.find({ run: handle.workflowId }).toArray()).flatMap((d) => d.batches);
    const batchOf = (offset: number) => batches.find((b) => b.first <= offset && offset < b.first + b.count);
    const answer = events.find((e) => e.type === 'model_delta' && e.call === 'planner:0')!;
    expect(events[answer.offset + 1]).toMatchObject({ type: 'plan' });
    expect(events[answer.offset + 2]).toMatchObject({ type: 'step_started', index: 0 });
    expect(batchOf(answer.offset)).toBe(batchOf(answer.offset + 2));
  });

  it('a workflow ID used again for a new run: watching gives the new run from its start, --from 0 the earlier one', async () => {
    const id = `events-again-${Date.now()}`;
    const input = runInput(streamedAgent('plan_execute_and_reflect', 1), 'asked twice');
    for (let i = 0; i < 2; i++) {
      const handle = await cli.harness.client.workflow.start(workflowTypeFor('plan_execute_and_reflect'), { taskQueue: cli.harness.taskQueue, workflowId: id, args: [input] });
      await handle.result();
    }
    const latest = await collect(id);
    expect(latest[0]).toMatchObject({ type: 'run_started', workflow_id: id });
    expect(latest[0].offset).toBeGreaterThan(0);
    const earlier = await collect(id, 0);
    expect(earlier[0]).toMatchObject({ type: 'run_started', offset: 0 });
    expect(earlier.at(-1)).toMatchObject({ type: 'run_finished', offset: latest[0].offset - 1 });
    expect(latest.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed' });
  });

  it('a run terminated mid-way still ends its stream: the watcher adds run_finished with that status', async () => {
    const slow = typedAgent('plan_execute_and_reflect', 1) as { llm: { parameters?: Record<string, unknown> } };
    slow.llm.parameters = { latency_ms: 60_000 };
    const handle = await startAgentRun(cli.harness, runInput(slow, 'terminated while thinking'), 'events-terminated');
    const watched = collect(handle.workflowId);
    await new Promise((r) => setTimeout(r, 1_000));
    await handle.terminate('stopped by the test');
    const events = await watched;
    expect(events[0]).toMatchObject({ type: 'run_started' });
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'terminated' });
    expect(events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
    // The watcher moved the ended stream out of its live shard, as a run's own last event does (its end stays a minute, as copies).
    const shard = cli.harness.db.collection(eventLiveOf('perflow_events', handle.workflowId));
    const copies = await shard.findOne({ _id: `${handle.workflowId}:copies` as never });
    expect(copies).toMatchObject({ below: events.length });
    expect(await shard.countDocuments({ run: handle.workflowId, first: { $gte: copies!.below } })).toBe(0);
    expect((await cli.harness.memory.eventLog().head(handle.workflowId))?.archived?.next).toBe(events.length);
    // Watched again: the same stream, one end.
    expect(await collect(handle.workflowId)).toEqual(events);
  });

  it('a slow tool call shows while it runs; its result goes with the next turn; a step that ends at the tool call writes both; each once', async () => {
    const agent = scriptedAgent(
      {
        planner: [plan('wait', 'give up'), plan('give up'), final('done')],
        executor: [
          [{ tool_calls: [{ name: 'WaitTool', input: { label: 'slow' } }] }, { content: 'waited' }],
          [{ tool_calls: [{ name: 'CalculatorTool', input: { expression: '2+2' } }] }, { tool_calls: [{ name: 'CalculatorTool', input: { expression: '3+3' } }] }],
        ],
      },
      { tools: [{ type: 'WaitTool' }, { type: 'CalculatorTool' }] },
    );
    gate.close();
    // The second step may take two turns: its second tool call is its last, and no turn takes its events.
    const handle = await startAgentRun(cli.harness, runInput(agent, 'slow tool, then a step cut short', { executor_max_iterations: 2 }), 'events-handed');
    const log = cli.harness.memory.eventLog();
    let running: RunEvent[] = [];
    for (let i = 0; i < 150 && !running.some((e) => e.type === 'tool_call'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      running = await log.readAll(handle.workflowId);
    }
    expect(running.filter((e) => e.type === 'tool_call')).toEqual([expect.objectContaining({ tool: 'WaitTool', call: 'tool:0:0' })]);
    expect(running.some((e) => e.type === 'tool_result')).toBe(false);
    gate.release();
    await handle.result();
    const events = await collect(handle.workflowId);
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    const calls = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => `${e.type} ${e.call}`);
    expect(calls).toEqual(['tool_call tool:0:0', 'tool_result tool:0:0', 'tool_call tool:1:0', 'tool_result tool:1:0', 'tool_call tool:1:1', 'tool_result tool:1:1']);
    const at = (type: string, call: string) => events.findIndex((e) => e.type === type && 'call' in e && e.call === call);
    expect(events[at('tool_result', 'tool:0:0')]).toMatchObject({ ok: true, output: 'released slow' });
    expect(events[at('tool_result', 'tool:0:0') + 1]).toMatchObject({ type: 'model_delta', role: 'executor', step: 0 });
    // The cut-short step's last call and result, written by the run before the step's end.
    expect(events[at('tool_result', 'tool:1:0')]).toMatchObject({ ok: true, output: '4' });
    expect(events[at('tool_result', 'tool:1:1')]).toMatchObject({ ok: true, output: '6' });
    expect(at('tool_result', 'tool:1:1')).toBeLessThan(events.findIndex((e) => e.type === 'step_finished' && e.index === 1));
  });

  it("a turn's quick tool call shows before the slow call after it, while that one runs; each once", async () => {
    const turn = { tool_calls: [{ name: 'CalculatorTool', input: { expression: '1+1' } }, { name: 'WaitTool', input: { label: 'slow' } }] };
    const agent = scriptedAgent({ planner: [plan('add, then wait'), final('done')], executor: [[turn, { content: 'waited' }]] }, { tools: [{ type: 'WaitTool' }, { type: 'CalculatorTool' }] });
    gate.close();
    const handle = await startAgentRun(cli.harness, runInput(agent, 'a quick call, then a slow one'), 'events-quick-then-slow');
    const log = cli.harness.memory.eventLog();
    const calls = (events: RunEvent[]) => events.flatMap((e) => (e.type === 'tool_call' || e.type === 'tool_result' ? [`${e.type} ${e.call}`] : []));
    let running: RunEvent[] = [];
    for (let i = 0; i < 150 && !calls(running).includes('tool_call tool:0:1'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      running = await log.readAll(handle.workflowId);
    }
    // While the slow call runs: the step's start, the quick call and its result, then the slow call.
    expect(calls(running)).toEqual(['tool_call tool:0:0', 'tool_result tool:0:0', 'tool_call tool:0:1']);
    expect(running.findIndex((e) => e.type === 'step_started')).toBeLessThan(running.findIndex((e) => e.type === 'tool_call'));
    gate.release();
    await handle.result();
    const events = await collect(handle.workflowId);
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(calls(events)).toEqual(['tool_call tool:0:0', 'tool_result tool:0:0', 'tool_call tool:0:1', 'tool_result tool:0:1']);
    expect(events.filter((e) => e.type === 'step_started')).toHaveLength(1);
    expect(events[events.findIndex((e) => e.type === 'tool_result' && e.call === 'tool:0:1') + 1]).toMatchObject({ type: 'model_delta', role: 'executor', step: 0 });
  });

  it('a run opens in one activity, its first, which writes the run_started its first workflow task handed it, and its last writes run_finished; a run that cannot open still starts its stream, once', async () => {
    const scheduledOf = async (id: string) =>
      ((await cli.harness.client.workflow.getHandle(id).fetchHistory()).events ?? []).flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        const input = a && Buffer.from(a.input!.payloads![0].data!).toString();
        return a ? [`${a.activityType!.name}${input!.includes('"opening"') ? ' (opening)' : input!.includes('"closing"') ? ' (closing)' : ''}`] : [];
      });
    // Without tools, startRun is the first activity (and stores the prompt material: no activity of its own).
    const plain = await startAgentRun(cli.harness, runInput(scriptedAgent({ planner: [plan('say ok'), final('ok')], executor: [[{ content: 'ok' }]] }), 'opens plainly'), 'events-opening');
    await plain.result();
    expect(await scheduledOf(plain.workflowId)).toEqual(['startRun (opening)', 'planningModel', 'planningModel', 'endRun (closing)']);
    const events = await collect(plain.workflowId);
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ type: 'run_started', workflow_id: plain.workflowId, question: 'opens plainly' });
    expect(events.filter((e) => e.type === 'run_started')).toHaveLength(1);
    // Its last activity wrote its end and archived the stream.
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed', response: 'ok' });
    expect(await cli.harness.memory.eventLog().head(plain.workflowId)).toMatchObject({ memory_id: events[0].type === 'run_started' ? events[0].memory_id : '', archived: { next: events.length } });
    // With tools, describeTools is.
    const tooled = await startAgentRun(cli.harness, runInput(scriptedAgent({ planner: [plan('add'), final('2')], executor: [[calculatorCall('1+1'), { content: '2' }]] }, withCalculator()), 'opens with tools'), 'events-opening');
    await tooled.result();
    expect((await scheduledOf(tooled.workflowId)).slice(0, 3)).toEqual(['describeTools (opening)', 'startRun', 'planningModel']);
    expect((await collect(tooled.workflowId))[0]).toMatchObject({ type: 'run_started', question: 'opens with tools' });
    // Every agent type's runs (the first test's) open so: the run kernel's.
    expect([...watched.keys()]).toEqual(AGENT_TYPES);
    for (const { id } of watched.values()) expect((await scheduledOf(id)).filter((a) => a.startsWith('describeTools') || a.startsWith('startRun') || a === 'savePromptMaterial')).toEqual(['describeTools (opening)', 'startRun']);
    // A conversation that does not exist: startRun fails, and the run writes the event it had handed it.
    const refused = await startAgentRun(cli.harness, { ...runInput(scriptedAgent({ planner: [final('never')] }), 'opens nothing'), memory_id: 'no-such-memory' }, 'events-opening');
    await expect(refused.result()).rejects.toThrow();
    const ended = await collect(refused.workflowId);
    expect(ended.map((e) => [e.offset, e.type])).toEqual([[0, 'run_started'], [1, 'run_finished']]);
    expect(ended[1]).toMatchObject({ status: 'failed' });
    // A run that fails on its way: its end, failed, goes with its last activity too.
    const failing = await startAgentRun(cli.harness, runInput(scriptedAgent({ planner: ['no plan here'] }), 'fails on its way', { max_parse_retries: 0 }), 'events-opening');
    await expect(failing.result()).rejects.toThrow();
    expect((await scheduledOf(failing.workflowId)).at(-1)).toBe('endRun (closing)');
    const failed = await collect(failing.workflowId);
    expect(failed.map((e) => e.type).filter((t) => t === 'run_started' || t === 'run_finished')).toEqual(['run_started', 'run_finished']);
    expect(failed.at(-1)).toMatchObject({ type: 'run_finished', status: 'failed' });
  });

  it('in a run without people no workflow task writes to MongoDB: each of its events goes with an activity (every agent type)', async () => {
    // What the worker's sink writes (from a workflow task, before its commands), by run.
    const original = RunEventLog.prototype.publish;
    const fromTasks: string[] = [];
    const spy = jest.spyOn(RunEventLog.prototype, 'publish').mockImplementation(function (this: RunEventLog, ...args: Parameters<RunEventLog['publish']>) {
      if (new Error().stack?.includes('run-event-sink')) fromTasks.push(args[0]);
      return original.apply(this, args);
    });
    try {
      const handles = await Promise.all(AGENT_TYPES.map((type) => startAgentRun(cli.harness, runInput(streamedAgent(type, 2), `no task writes ${type}`), 'events-no-task-writes')));
      await Promise.all(handles.map((h) => h.result()));
      for (const h of handles) expect((await collect(h.workflowId)).at(-1)).toMatchObject({ type: 'run_finished', status: 'completed' });
      expect(fromTasks.filter((run) => handles.some((h) => h.workflowId === run))).toEqual([]);
      // The sink is what is watched: a run whose first activity fails is written from its task.
      const refused = await startAgentRun(cli.harness, { ...runInput(scriptedAgent({ planner: [final('never')] }), 'written by its task'), memory_id: 'no-such-memory' }, 'events-no-task-writes');
      await expect(refused.result()).rejects.toThrow();
      expect(fromTasks).toContain(refused.workflowId);
    } finally {
      spy.mockRestore();
    }
  });

  it('perflow watch prints the events, --json one per line; run --follow shows them live', async () => {
    const { id, events } = watched.get('plan_execute_and_reflect')!;
    const json = await cli.perflow(['watch', id, '--json']);
    expect(json.code).toBe(0);
    expect(json.stdout.trim().split('\n').map((l) => JSON.parse(l) as RunEvent)).toEqual(events);
    const fromSix = await cli.perflow(['watch', id, '--json', '--from', '6']);
    expect(fromSix.stdout.trim().split('\n').map((l) => (JSON.parse(l) as RunEvent).offset)).toEqual(events.slice(6).map((e) => e.offset));

    const text = await cli.perflow(['watch', id]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^run \S+ started: kernel-plan-execute-and-reflect \(plan_execute_and_reflect\)$/m);
    expect(text.stdout).toContain('plan: 1. add 1 | 2. add 2');
    expect(text.stdout).toMatch(/^\[executor, step 2\]\ntotal 3$/m);
    expect(text.stdout).toMatch(/^ {2}→ CalculatorTool \{"expression":"1\+2"\}$/m);
    expect(text.stdout).toMatch(/^step 2 done: add 2 → total 3$/m);
    expect(text.stdout).toMatch(/^run completed$/m);

    const bad = await cli.perflow(['watch', id, '--from', 'end']);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, 'perflow: --from expects an event offset (0, 1, 2, …), got "end"']);
    const unknown = await cli.perflow(['watch', 'no-such-run']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no workflow "no-such-run"/);

    const agent = cli.agentFile('followed', streamedAgent('plan_execute_and_reflect', 1));
    const followed = await cli.perflow(['run', '--agent', agent, '--question', 'followed live', '--follow']);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toMatch(/^\[planner\]\n\{"steps":\["add 1"\],"result":""\}$/m);
    expect(followed.stdout).toMatch(/^step 1 done: add 1 → total 1$/m);
    expect(followed.stdout).toMatch(/^result:\nthe total is 1$/m);
  });

  it('a worker created with runEvents: false runs the same and writes no stream', async () => {
    const quiet = await createHarness({ runEvents: false });
    const logged = jest.spyOn(Runtime.instance().logger, 'log');
    try {
      const handle = await startAgentRun(quiet, runInput(streamedAgent('plan_execute_and_reflect', 2), 'no stream'), 'no-stream');
      expect((await handle.result()).response).toBe(expectedResponse('plan_execute_and_reflect', 2));
      const log = quiet.memory.eventLog();
      expect(await log.head(handle.workflowId)).toBeUndefined();
      expect(await quiet.db.collection(eventLiveOf(log.collection.collectionName, handle.workflowId)).countDocuments({ run: handle.workflowId })).toBe(0);
      expect(await log.archive.countDocuments({ run: handle.workflowId })).toBe(0);
      // Its memory is written as ever.
      expect(await quiet.memory.interactions.countDocuments({})).toBeGreaterThan(0);
      // The workflows' sink calls are taken, not logged as errors one by one.
      expect(logged.mock.calls.filter(([level]) => level === 'ERROR').map(([, message]) => message)).toEqual([]);
    } finally {
      logged.mockRestore();
      await quiet.close();
    }
  });

  it('a step whose executor fails before it writes anything still starts in the stream, once, before its end', async () => {
    const agent = scriptedAgent({ planner: [plan('broken step'), plan('working step'), final('worked around it')], executor: [[], [{ content: 'ok' }]] });
    const handle = await startAgentRun(cli.harness, runInput(agent, 'a step fails'), 'events-failed-step');
    expect((await handle.result()).response).toBe('worked around it');
    const events = await collect(handle.workflowId);
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    const steps = events.flatMap((e) => (e.type === 'step_started' || e.type === 'step_finished' ? [`${e.type}:${e.index}${e.type === 'step_finished' ? `:${e.ok}` : ''}`] : []));
    expect(steps).toEqual(['step_started:0', 'step_finished:0:false', 'step_started:1', 'step_finished:1:true']);
  });

  it("a step's start goes to the turns and calls that may write it, no further: a run of silent tool turns carries it to the second turn only", async () => {
    const turns = [calculatorCall('1+1'), calculatorCall('2+2'), calculatorCall('3+3'), { content: 'six' }];
    const handle = await startAgentRun(cli.harness, runInput(scriptedAgent({ planner: [plan('add up'), final('six')], executor: [turns] }, withCalculator()), 'silent turns'), 'events-silent');
    await handle.result();
    const history = await cli.harness.client.workflow.getHandle(`${handle.workflowId}/step-1`).fetchHistory();
    const carried = history.events!.flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      return a ? [`${a.activityType!.name}:${Buffer.from(a.input!.payloads![0].data!).toString().includes('"events_before"')}`] : [];
    });
    // The first turn (silent) hands it on to its call, which hands it on to the second turn, which writes it.
    expect(carried).toEqual(['executionModel:true', 'callTool:true', 'executionModel:true', 'callTool:false', 'executionModel:false', 'callTool:false', 'executionModel:false']);
    const events = await collect(handle.workflowId);
    expect(events.filter((e) => e.type === 'step_started')).toHaveLength(1);
  });
});
