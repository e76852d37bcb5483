import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import type { Tool } from '../../activities/tools/tool';
import { createMemoryActivities, saveToolCall } from '../../activities/memory';
import { readConversation } from '../../stores/conversation';
import { formatConversation } from '../../client/text-views';
import { planExecuteReflect, progressQuery } from '../../workflows';
import { runInputOf } from '../../client/fork';
import { startRun } from '../../client/run';
import { parseAgentDefinition, resolveParameters } from '../../core/agent';
import { createHarness, final, plan, runInput, scriptedAgent, useHarness, workflowId } from '../support/harness';
import { serverEnv } from '../support/env';
import { MongoClient } from 'mongodb';
import { MemoryStore } from '../../stores/store';
import { calculatorTurns, withCalculator } from '../support/script';

jest.setTimeout(60_000);

/** A tool that holds its step until the test lets it go: the run stays in flight meanwhile. */
let openGate: () => void = () => undefined;
const gateOpened = new Promise<void>((ok) => (openGate = ok));
const gateTool = { type: 'GateTool', description: 'waits until the test opens it', input: z.object({}), run: async () => (await gateOpened, 'open') } as unknown as Tool<never>;

const harness = useHarness({ tools: [gateTool] });

const start = (input: ReturnType<typeof runInput>) =>
  harness().client.workflow.start(planExecuteReflect, { taskQueue: harness().taskQueue, workflowId: workflowId('memory'), args: [input] });

const threeSteps = scriptedAgent(
  {
    planner: [plan('find A', 'find B', 'find C'), plan('find B', 'find C'), plan('find C'), final('A, B and C found')],
    executor: [
      calculatorTurns('1+2', 'A is 3'),
      [{ content: 'B is 4' }],
      [{ content: 'C is 5' }],
    ],
  },
  withCalculator(),
);

describe('conversation memory', () => {
  it('records a three-step run as the seed relates memories, interactions and traces', async () => {
    const handle = await start(runInput(threeSteps, 'find A, B and C'));
    const out = await handle.result();
    const progress = await handle.query(progressQuery);
    expect(progress.memory_id).toBe(out.memory_id);
    expect(progress.executor_agent_memory_id).toBe(out.executor_agent_memory_id);

    const memories = await harness().memory.memories.find({ _id: { $in: [out.memory_id, out.executor_agent_memory_id] } }).toArray();
    expect(memories.map((m) => [m.role, m.name, m.parent_memory_id])).toEqual(
      expect.arrayContaining([
        ['planner', 'find A, B and C', undefined],
        ['executor', 'find A, B and C', out.memory_id],
      ]),
    );

    const roots = await harness().memory.interactions.find({ memory_id: out.memory_id, parent_interaction_id: null }).toArray();
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatchObject({ _id: out.parent_interaction_id, input: 'find A, B and C', response: 'A, B and C found' });

    const traces = await harness().memory.interactions
      .find({ parent_interaction_id: out.parent_interaction_id })
      .sort({ trace_number: 1 })
      .toArray();
    expect(traces.map((t) => [t.trace_number, t.input, t.response])).toEqual([
      [1, 'find A', 'A is 3'],
      [2, 'find B', 'B is 4'],
      [3, 'find C', 'C is 5'],
    ]);

    const executorSteps = await harness().memory.interactions
      .find({ memory_id: out.executor_agent_memory_id, parent_interaction_id: out.executor_agent_parent_interaction_id })
      .sort({ trace_number: 1 })
      .toArray();
    expect(executorSteps.map((t) => t.response)).toEqual(['A is 3', 'B is 4', 'C is 5']);
    const toolCalls = await harness().memory.interactions.find({ memory_id: out.executor_agent_memory_id, origin: 'tool' }).toArray();
    expect(toolCalls).toHaveLength(1);
    expect(toolCalls[0]).toMatchObject({ tool_name: 'CalculatorTool', input: '{"expression":"1+2"}', response: '3', parent_interaction_id: executorSteps[0]._id });
  });

  it('plans a second run of the same memory_id with the history template and the earlier exchange', async () => {
    const first = await (await start(runInput(scriptedAgent({ planner: [final('Paris')] }), 'capital of France?'))).result();
    const question = 'and its population?';
    const input = { ...runInput(scriptedAgent({ planner: [final('about 2.1 million')] }), question), memory_id: first.memory_id };
    const second = await (await start(input)).result();
    expect(second.memory_id).toBe(first.memory_id);
    const prompt = harness().recorder.find((r) => r.messages[0]?.content.includes(question))!.messages[0].content;
    expect(prompt).toContain('You have currently executed the following steps:');
    // The earlier exchange as ml-commons gives it: the question and the response, as they are.
    expect(prompt).toContain('You have currently executed the following steps:\n[capital of France?, Paris]\n');
    expect(prompt).not.toContain('Original plan:');
    const roots = await harness().memory.interactions.find({ memory_id: first.memory_id, parent_interaction_id: null }).toArray();
    expect(roots.map((r) => r.response).sort()).toEqual(['Paris', 'about 2.1 million']);
  });

  it('continues the conversation and executor memory a client names, their IDs travelling in the input\'s ids alone', async () => {
    const agentOf = (answer: string) => parseAgentDefinition(scriptedAgent({ planner: [final(answer)] }), { toolTypes: 'any' });
    const startAs = (answer: string, question: string, params: Record<string, unknown> = {}) =>
      startRun(harness().perflow, { agent: agentOf(answer), parameters: resolveParameters(agentOf(answer), params), question });
    const first = await (await startAs('Rome', 'capital of Italy?')).handle.result();
    const run = await startAs('about 2.8 million', 'how many people live there?', { memory_id: first.memory_id, executor_agent_memory_id: first.executor_agent_memory_id });
    expect(await run.handle.result()).toMatchObject({ memory_id: first.memory_id, executor_agent_memory_id: first.executor_agent_memory_id });
    const input = await runInputOf(harness().client, run.workflowId);
    expect(input).toMatchObject({ ids: run.ids, continues_conversation: true });
    expect(input).not.toHaveProperty('memory_id');
    expect(input.parameters).not.toHaveProperty('memory_id');
    expect(input.parameters).not.toHaveProperty('executor_agent_memory_id');
    const prompt = harness().recorder.find((r) => r.messages[0]?.content.includes('how many people live there?'))!.messages[0].content;
    expect(prompt).toContain('[capital of Italy?, Rome]');
  });

  it('rejects an unknown memory_id with a clear failure', async () => {
    const input = { ...runInput(scriptedAgent({ planner: [final('never')] }), 'q'), memory_id: 'no-such-memory' };
    const error = await (await start(input)).result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const activityFailure = (error as WorkflowFailedError).cause;
    expect(activityFailure?.cause).toMatchObject({ type: 'Memory.NotFound', message: 'memory_id no-such-memory does not exist' });
    expect(await harness().memory.memories.countDocuments({ _id: 'no-such-memory' })).toBe(0);
    expect(await harness().memory.memories.countDocuments({ name: 'q' })).toBe(0);
  });

  it('refuses to continue another tenant\'s conversation, touching nothing, and stamps every document with the run\'s tenant', async () => {
    const first = await (await start(runInput(scriptedAgent({ planner: [final('mine')] }), 'tenant a asks', { tenant_id: 'a' }))).result();
    const prompts = await harness().memory.prompts.find({ tenant_id: 'a' } as never).toArray();
    expect(prompts.length).toBeGreaterThan(0);
    for (const tenant of ['b', undefined]) {
      const input = { ...runInput(scriptedAgent({ planner: [final('theirs')] }), 'tenant b asks', tenant ? { tenant_id: tenant } : {}), memory_id: first.memory_id };
      const error = await (await start(input)).result().then(() => undefined, (err: WorkflowFailedError) => err);
      expect(error?.cause?.cause).toMatchObject({
        type: 'Memory.OtherTenant',
        message: `memory_id ${first.memory_id} belongs to tenant a, not to ${tenant ? `tenant ${tenant}` : 'no tenant'}: a memory is continued by its own tenant only (nothing was changed)`,
      });
    }
    const memory = await harness().memory.memories.findOne({ _id: first.memory_id });
    expect(memory).toMatchObject({ tenant_id: 'a', name: 'tenant a asks' });
    // Nor did the refused runs leave a memory of their own (their executor memories were new).
    expect(await harness().memory.memories.countDocuments({ name: 'tenant b asks' })).toBe(0);
    expect(await harness().memory.interactions.countDocuments({ memory_id: first.memory_id, origin: 'user' })).toBe(1);
  });

  it('writes a run’s root interactions when it ends, question and answer at once, created when it started; the conversation shows it in flight before', async () => {
    const agent = scriptedAgent(
      {
        planner: [plan('find A', 'open the gate'), plan('open the gate'), final('A is 3; the gate is open')],
        executor: [[{ content: 'A is 3' }], [{ tool_calls: [{ name: 'GateTool', input: {} }] }, { content: 'the gate is open' }]],
      },
      { tools: [{ type: 'GateTool' }] },
    );
    const handle = await start(runInput(agent, 'find A, then open the gate'));
    const { memory_id, parent_interaction_id, executor_agent_parent_interaction_id } = await handle.query(progressQuery);
    const firstTrace = `${parent_interaction_id}:step-1`;
    for (let i = 0; i < 400 && !(await harness().memory.interactions.findOne({ _id: firstTrace })); i++) await new Promise((ok) => setTimeout(ok, 50));

    // In flight: step 1 is in memory, the roots are not; the conversation shows the run by its steps.
    expect(await harness().memory.interactions.countDocuments({ _id: { $in: [parent_interaction_id, executor_agent_parent_interaction_id] } })).toBe(0);
    const during = await readConversation(harness().memory, memory_id);
    expect(during?.runs).toHaveLength(1);
    expect(during?.runs[0]).toMatchObject({ interaction_id: parent_interaction_id, in_flight: true, question: '', response: '', steps: [{ trace_number: 1, step: 'find A', result: 'A is 3' }] });
    expect(formatConversation(during!)).toContain(`run ${parent_interaction_id} in flight (its question is written with its answer when it ends)`);

    openGate();
    await handle.result();
    const started = (await handle.describe()).startTime;
    const roots = await harness().memory.interactions.find({ _id: { $in: [parent_interaction_id, executor_agent_parent_interaction_id] } }).sort({ origin: -1 }).toArray();
    expect(roots.map((r) => [r.origin, r.input, r.response, r.parent_interaction_id ?? null])).toEqual([
      ['user', 'find A, then open the gate', 'A is 3; the gate is open', null],
      ['executor', 'find A, then open the gate', 'A is 3; the gate is open', null],
    ]);
    // Created when the run started (it orders the conversation's runs), before its first step; written at its end.
    const trace = await harness().memory.interactions.findOne({ _id: firstTrace });
    for (const root of roots) {
      expect(Math.abs(root.created.getTime() - started.getTime())).toBeLessThan(1_000);
      expect(root.created.getTime()).toBeLessThanOrEqual(trace!.created.getTime());
      expect(root.updated.getTime()).toBeGreaterThanOrEqual(trace!.created.getTime());
    }
    const after = await readConversation(harness().memory, memory_id);
    expect(after?.runs[0]).not.toHaveProperty('in_flight');
    expect(after?.runs[0]).toMatchObject({ question: 'find A, then open the gate', response: 'A is 3; the gate is open' });
    expect(after?.runs[0].steps.map((s) => [s.step, s.tool_calls.map((c) => c.tool)])).toEqual([['find A', []], ['open the gate', ['GateTool']]]);
  });

  it('ends a run with one insert of its roots, no update; a run whose roots were written at its start gets the answer onto them', async () => {
    const watched = await new MongoClient(serverEnv().mongoUri, { monitorCommands: true }).connect();
    try {
      const sent: string[] = [];
      watched.on('commandStarted', (e) => sent.push(`${e.commandName} ${String(e.command[e.commandName])}`));
      const memory = createMemoryActivities(new MemoryStore(watched.db(harness().db.databaseName)));
      const ids = (n: string) => ({ memory_id: `m-end-${n}`, parent_interaction_id: `p-end-${n}`, executor_agent_memory_id: `em-end-${n}`, executor_agent_parent_interaction_id: `ep-end-${n}` });
      const started = '2026-01-02T03:04:05.000Z';

      await memory.startRun({ ids: ids('new'), question: 'new?', app_type: 'test', resume: false, message_history_limit: 10, roots_at_end: true });
      expect(await harness().memory.findInteractions(['p-end-new', 'ep-end-new'])).toEqual([null, null]);
      sent.length = 0;
      await memory.endRun({ ids: ids('new'), question: 'new?', started_at: started, response: 'yes', forked_from: { workflow_id: 'w-src', step: 2 } });
      expect(sent).toEqual(['insert perflow_interactions']);
      // A retried attempt finds them written: the same answer, once.
      await memory.endRun({ ids: ids('new'), question: 'new?', started_at: started, response: 'yes', forked_from: { workflow_id: 'w-src', step: 2 } });
      const written = await harness().memory.findInteractions(['p-end-new', 'ep-end-new']);
      for (const root of written) expect(root).toMatchObject({ input: 'new?', response: 'yes', created: new Date(started), forked_from: { workflow_id: 'w-src', step: 2 } });
      expect(await harness().memory.interactions.countDocuments({ _id: { $in: ['p-end-new', 'ep-end-new'] } })).toBe(2);

      // A run begun before: its roots were written at its start, with the question as it was then.
      await memory.startRun({ ids: ids('old'), question: 'old?', app_type: 'test', resume: false, message_history_limit: 10 });
      const before = await harness().memory.findInteractions(['p-end-old']);
      await memory.endRun({ ids: ids('old'), question: 'old?', started_at: started, response: '', error: 'the model was unreachable' });
      const [oldRoot] = await harness().memory.findInteractions(['p-end-old']);
      expect(oldRoot).toMatchObject({ input: 'old?', response: 'Agent execution failed: the model was unreachable', error: 'the model was unreachable', created: before[0]!.created });
    } finally {
      await watched.close();
    }
  });

  it('writes the error of a failed run onto its parent interaction', async () => {
    const handle = await start(runInput(scriptedAgent({ planner: ['x', 'y', 'z'] }), 'will fail'));
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const { parent_interaction_id } = await handle.query(progressQuery);
    const root = await harness().memory.interactions.findOne({ _id: parent_interaction_id });
    expect(root?.response).toMatch(/^Agent execution failed: planner answer could not be parsed after 3 attempts/);
  });

  it('leaves exactly one document per record when memory writes are retried', async () => {
    const memory = createMemoryActivities(harness().memory);
    const ids = { memory_id: 'm-retry', parent_interaction_id: 'p-retry', executor_agent_memory_id: 'em-retry', executor_agent_parent_interaction_id: 'ep-retry' };
    const startInput = { ids, question: 'retry?', app_type: 'test', resume: false, message_history_limit: 10 };
    const step = { ids, stepIndex: 0, step: 's', result: 'r' };
    for (let i = 0; i < 2; i++) {
      await memory.startRun(startInput);
      await memory.saveStep(step);
      await saveToolCall(harness().memory, { ids, stepIndex: 0, callIndex: 0 }, { name: 'CalculatorTool', input: {}, output: '1', is_error: false });
      await memory.finishRun({ ids, response: 'done' });
    }
    expect(await harness().memory.memories.countDocuments({ _id: { $in: ['m-retry', 'em-retry'] } })).toBe(2);
    expect(await harness().memory.interactions.countDocuments({ memory_id: { $in: ['m-retry', 'em-retry'] } })).toBe(5);
    expect((await harness().memory.interactions.findOne({ _id: 'p-retry' }))?.response).toBe('done');
  });

  it('writes new records as inserts and existing ones as updates: a step saved again with another result keeps one document, with the new result', async () => {
    const memory = createMemoryActivities(harness().memory);
    const ids = { memory_id: 'm-again', parent_interaction_id: 'p-again', executor_agent_memory_id: 'em-again', executor_agent_parent_interaction_id: 'ep-again' };
    await memory.startRun({ ids, question: 'again?', app_type: 'test', resume: false, message_history_limit: 10 });
    await memory.saveStep({ ids, stepIndex: 0, step: 's', result: 'first' });
    const created = (await harness().memory.interactions.findOne({ _id: 'p-again:step-1' }))?.created;
    const conversation = await harness().memory.memory('m-again');
    // A reset re-runs the step: same IDs, another result. The root's question stays as first written.
    await memory.saveStep({ ids, stepIndex: 0, step: 's', result: 'second' });
    await memory.startRun({ ids, question: 'changed?', app_type: 'test', resume: false, message_history_limit: 10 });
    const docs = await harness().memory.findInteractions(['p-again:step-1', 'ep-again:step-1', 'p-again', 'missing']);
    expect(docs.map((d) => d?.response ?? null)).toEqual(['second', 'second', '', null]);
    expect(docs[0]?.created).toEqual(created);
    expect(docs[2]?.input).toBe('again?');
    expect((await harness().memory.memory('em-again'))?.first_run).toBe('ep-again');
    // The memory is written once as new; starting again updates it, keeping its name and creation time.
    const again = await harness().memory.memory('m-again');
    expect(again).toMatchObject({ name: 'again?', created: conversation?.created, role: 'planner' });
    expect(again!.updated.getTime()).toBeGreaterThanOrEqual(conversation!.updated.getTime());
  });

  it('shows a step the executor’s earlier steps of its own run by ID, and a continued conversation’s earlier runs too', async () => {
    const memory = createMemoryActivities(harness().memory);
    const run = (n: number) => ({ memory_id: 'm-hist', parent_interaction_id: `p-hist-${n}`, executor_agent_memory_id: 'em-hist', executor_agent_parent_interaction_id: `ep-hist-${n}` });
    await memory.startRun({ ids: run(1), question: 'one', app_type: 'test', resume: false, message_history_limit: 10 });
    // Apart in time: the conversation's history is ordered by creation time.
    const pause = () => new Promise((ok) => setTimeout(ok, 5));
    for (const i of [0, 1, 2]) {
      await memory.saveStep({ ids: run(1), stepIndex: i, step: `one-${i}`, result: `r1-${i}` });
      await pause();
    }
    const history = (ids: ReturnType<typeof run>, before: number, limit: number) => memory.loadExecutorHistory({ executor_agent_memory_id: 'em-hist', limit, before_step: before, ids });
    expect(await history(run(1), 2, 10)).toEqual([{ step: 'one-0', result: 'r1-0' }, { step: 'one-1', result: 'r1-1' }]);
    expect(await history(run(1), 3, 2)).toEqual([{ step: 'one-1', result: 'r1-1' }, { step: 'one-2', result: 'r1-2' }]);
    // A second run continuing the executor memory also sees the first run's steps.
    await memory.startRun({ ids: run(2), question: 'two', app_type: 'test', resume: true, message_history_limit: 10 });
    await pause();
    await memory.saveStep({ ids: run(2), stepIndex: 0, step: 'two-0', result: 'r2-0' });
    expect((await history(run(2), 1, 3)).map((s) => s.step)).toEqual(['one-1', 'one-2', 'two-0']);
  });
});

describe('the claim check', () => {
  it('keeps a 1 MB tool output out of the model prompt and the history, and whole in MongoDB', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const bigHarness = await createHarness({
      tools: [{ type: 'BigTool', description: 'returns 1 MB', input: z.object({}), run: async () => big } as unknown as Tool<never>],
    });
    try {
      const handle = await bigHarness.client.workflow.start(planExecuteReflect, {
        taskQueue: bigHarness.taskQueue,
        workflowId: workflowId('claim-check'),
        args: [
          runInput(
            scriptedAgent(
              { planner: [plan('fetch the big thing'), final('done')], executor: [[{ tool_calls: [{ name: 'BigTool', input: {} }] }, { content: 'it is big' }]] },
              { tools: [{ type: 'BigTool' }] },
            ),
            'big output',
          ),
        ],
      });
      const out = await handle.result();
      const seen = bigHarness.recorder.find((r) => r.position.role === 'executor' && r.messages.some((m) => m.role === 'tool'))!;
      const observation = seen.messages.find((m) => m.role === 'tool')!.content;
      expect(observation.length).toBeLessThan(9_000);
      expect(observation).toContain(`the tool returned ${big.length} characters`);

      const stored = await bigHarness.memory.interactions.findOne({ memory_id: out.executor_agent_memory_id, origin: 'tool' });
      expect(stored?.response).toHaveLength(big.length);

      for (const id of [handle.workflowId, `${handle.workflowId}/step-1`]) {
        const history = await bigHarness.client.workflow.getHandle(id).fetchHistory();
        const bytes = temporal.api.history.v1.History.encode(history).finish().length;
        expect(bytes).toBeLessThan(100_000);
      }
    } finally {
      await bigHarness.close();
    }
  });
});

describe('claim check of step results', () => {
  it('keeps large step results out of planner inputs: the planner loads them from memory', async () => {
    const big = (c: string) => c.repeat(50_000);
    const input = runInput(
      scriptedAgent({
        planner: [plan('a', 'b', 'c'), plan('b', 'c'), plan('c'), final('done')],
        executor: [[{ content: big('a') }], [{ content: big('b') }], [{ content: big('c') }]],
      }),
      'three big results',
    );
    const handle = await start(input);
    const out = await handle.result();
    expect(out.response).toBe('done');

    // The last planner prompt holds every result whole...
    const prompts = harness().recorder.filter((r) => r.position.role === 'planner' && r.messages[0].content.includes('three big results'));
    const last = prompts.at(-1)!.messages[0].content;
    for (const c of ['a', 'b', 'c']) expect(last).toContain(big(c));
    // ...while in the run's history, planner inputs stay the same size from call to call and the
    // executor children return previews (the scripted answers themselves travel in the agent file).
    const history = await harness().client.workflow.getHandle(handle.workflowId).fetchHistory();
    const { EventType } = temporal.api.enums.v1;
    const size = (e: temporal.api.history.v1.IHistoryEvent) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
    const events = history.events ?? [];
    const plannerInputs = events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'planningModel')
      .map(size);
    expect(plannerInputs).toHaveLength(4);
    expect(Math.max(...plannerInputs) - Math.min(...plannerInputs)).toBeLessThan(1_000);
    const childResults = events.filter((e) => e.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED).map(size);
    expect(childResults).toHaveLength(3);
    for (const bytes of childResults) expect(bytes).toBeLessThan(3_000);
    const traces = await harness().memory.interactions.find({ parent_interaction_id: out.parent_interaction_id }).sort({ trace_number: 1 }).toArray();
    expect(traces.map((t) => t.response.length)).toEqual([50_000, 50_000, 50_000]);
  });
});

describe('reading a conversation', () => {
  it('shows questions, steps, tool calls and results in order', async () => {
    const out = await (await start(runInput(threeSteps, 'read me back'))).result();
    const view = await readConversation(harness().memory, out.memory_id);
    expect(view?.runs).toHaveLength(1);
    expect(view?.runs[0].steps.map((s) => [s.step, s.result, s.tool_calls.map((t) => `${t.tool}=${t.output}`)])).toEqual([
      ['find A', 'A is 3', ['CalculatorTool=3']],
      ['find B', 'B is 4', []],
      ['find C', 'C is 5', []],
    ]);
    const text = formatConversation(view!);
    expect(text).toContain('question: read me back');
    expect(text).toContain('tool CalculatorTool {"expression":"1+2"} → 3');
    expect(text).toContain('response: A, B and C found');
    expect(await readConversation(harness().memory, 'unknown')).toBeUndefined();
  });
});
