/**
 * The worker process is SIGKILLed at random points several times while 12 multi-step runs with
 * tool calls are in flight (half of them running two steps in parallel); a fresh worker is
 * started each time. Every run must complete with its expected result, no tool call of a
 * completed step may complete twice, memory must hold every interaction exactly once, and each
 * run's event stream every event once and in order (a tool call's result too, which the step's
 * next turn writes, on whichever worker it runs).
 */
import { planExecuteReflect } from '../../workflows';
import { useWorkerProcess } from '../support/spawn-worker';
import { final, plan, runInput, scriptedAgent } from '../support/harness';
import { answersOf, type RunEvent } from '../../client';

jest.setTimeout(600_000);

const RUNS = 12;
const STEPS = 3;
const KILLS = 3;

const fixture = useWorkerProcess('crash');

/** Odd runs run their first two steps in parallel (`max_parallel_steps` 2, a grouped first plan). */
const parallel = (run: number) => run % 2 === 1;
const stepName = (run: number, n: number) => `run ${run} step ${n}`;

const agent = (run: number) =>
  scriptedAgent(
    {
      planner: parallel(run)
        ? [JSON.stringify({ steps: [[stepName(run, 1), stepName(run, 2)], stepName(run, 3)], result: '' }), plan(stepName(run, 3)), final(`run ${run} finished`)]
        : [
            ...Array.from({ length: STEPS }, (_, i) => plan(...Array.from({ length: STEPS - i }, (_, j) => stepName(run, i + j + 1)))),
            final(`run ${run} finished`),
          ],
      executor: Array.from({ length: STEPS }, (_, i) => [
        { tool_calls: [{ name: 'SlowTool', input: { label: `${run}.${i + 1}`, ms: 150 + ((run * 37 + i * 53) % 300) } }] },
        { content: `run ${run} step ${i + 1} done` },
      ]),
    },
    { tools: [{ type: 'SlowTool' }] },
  );

describe('worker crashes', () => {
  it('never lose a run, repeat a completed tool call or duplicate memory', async () => {
    await fixture.restart();
    const handles = await Promise.all(
      Array.from({ length: RUNS }, (_, run) =>
        fixture.client.workflow.start(planExecuteReflect, { taskQueue: fixture.taskQueue, workflowId: `crash-${fixture.taskQueue}-${run}`, args: [runInput(agent(run), `crash question ${run}`, parallel(run) ? { max_parallel_steps: 2 } : {})] }),
      ),
    );
    const results = Promise.all(handles.map((h) => h.result()));
    for (let kill = 0; kill < KILLS; kill++) {
      await new Promise((r) => setTimeout(r, 700 + Math.random() * 1_500));
      await fixture.restart();
    }
    const outputs = await results;
    outputs.forEach((out, run) => expect(out.response).toBe(`run ${run} finished`));

    for (const [run, handle] of handles.entries()) {
      for (let step = 1; step <= STEPS; step++) {
        const history = await fixture.client.workflow.getHandle(`${handle.workflowId}/step-${step}`).fetchHistory();
        const completions = (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes);
        const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callTool');
        expect([run, step, scheduled.length]).toEqual([run, step, 1]);
        // executionModel twice (the step's memory read and its result saved inside) and callTool, each completed exactly once
        expect([run, step, completions.length]).toEqual([run, step, 3]);
      }
    }

    // Each run's stream: offsets without gaps; every planner answer whole and once (the workflow
    // writes an answer's last piece, so a worker killed between the call and that write must not
    // lose or repeat it); each step started and finished once, in that order; one start, one end.
    const log = fixture.memory.eventLog();
    for (const [run, handle] of handles.entries()) {
      const events = await log.readAll(handle.workflowId);
      expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
      const planner = answersOf(events).filter((a) => a.role === 'planner').map((a) => a.text);
      expect([run, planner]).toEqual([run, agent(run).llm.script.planner]);
      for (let step = 0; step < STEPS; step++) {
        const started = events.filter((e) => e.type === 'step_started' && e.index === step);
        const finished = events.filter((e) => e.type === 'step_finished' && e.index === step);
        expect([run, step, started.length, finished.length, started[0]?.offset < finished[0]?.offset]).toEqual([run, step, 1, 1, true]);
        // The tool call's result once (handed on to the step's next turn, wherever that ran), after its call, before the step's end.
        const results = events.filter((e) => e.type === 'tool_result' && e.step === step);
        const call = events.findIndex((e) => e.type === 'tool_call' && e.step === step);
        expect([run, step, results.map((e) => e.type === 'tool_result' && e.output)]).toEqual([run, step, [`slow ${run}.${step + 1}`]]);
        expect([run, step, call >= 0 && call < results[0].offset, results[0].offset < finished[0]?.offset]).toEqual([run, step, true, true]);
      }
      expect([run, events.filter((e) => e.type === 'run_started').length, events.at(-1)?.type]).toEqual([run, 1, 'run_finished']);
    }

    const memory = fixture.memory;
    const ids = outputs.flatMap((o) => [o.memory_id, o.executor_agent_memory_id]);
    const interactions = await memory.interactions.find({ memory_id: { $in: ids } }).toArray();
    // per run: root + 3 traces (planner memory); root + 3 steps + 3 tool calls (executor memory)
    expect(interactions).toHaveLength(RUNS * (1 + STEPS + 1 + STEPS + STEPS));
    expect(new Set(interactions.map((i) => i._id)).size).toBe(interactions.length);
  });

  it('a worker killed while a model streams: the retry says so first, and the stream holds the answer that counted', async () => {
    await fixture.restart();
    const planned = plan('stream one step');
    // The planner's first answer streams 4 characters at a time over 4 s.
    const agent = {
      name: 'streamed-crash',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner: [planned, final('streamed to the end')], executor: [[{ content: 'step done' }]] }, parameters: { latency_ms: 4_000, stream_chunk_chars: 4 } },
    };
    const handle = await fixture.client.workflow.start(planExecuteReflect, { taskQueue: fixture.taskQueue, workflowId: `streamed-crash-${fixture.taskQueue}`, args: [runInput(agent, 'killed mid-stream')] });
    const log = fixture.memory.eventLog();
    const events = () => log.readAll(handle.workflowId);
    const deltasOf = (es: RunEvent[]) => es.filter((e) => e.type === 'model_delta' && e.call === 'planner:0');
    for (let i = 0; i < 100 && deltasOf(await events()).length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(deltasOf(await events()).length).toBeGreaterThanOrEqual(3);
    await fixture.restart();

    expect((await handle.result()).response).toBe('streamed to the end');
    const all = await events();
    expect(all.map((e) => e.offset)).toEqual(all.map((_, i) => i));
    const retry = all.findIndex((e) => e.type === 'retry');
    expect(all[retry]).toMatchObject({ type: 'retry', call: 'planner:0', role: 'planner', attempt: 2 });
    // Part of the answer came before the retry, all of it after.
    const before = deltasOf(all.slice(0, retry)).map((e) => (e.type === 'model_delta' ? e.text : '')).join('');
    expect(before.length).toBeGreaterThan(0);
    expect(planned.startsWith(before)).toBe(true);
    expect(deltasOf(all.slice(retry)).map((e) => (e.type === 'model_delta' ? e.text : '')).join('')).toBe(planned);
    expect(answersOf(all).find((a) => a.call === 'planner:0')?.text).toBe(planned);
    expect(all.filter((e) => e.type === 'run_started')).toHaveLength(1);
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', status: 'completed' });
  });
});
