/**
 * A tool call's events handed on to the step's next turn (`StoredToolResult.events`): the turn
 * writes them first, in its first write, built from its messages and the answer it reads (from
 * memory here: the turn runs on another worker than the call), keyed by the step's execution so
 * that a retry or the run writes them once.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ExecutorCallInput, StoredToolResult } from '../../../core/activity-contract';
import { handedToolEvents, type RunEventBody, type TimedEvent } from '../../../core/run-events';
import { executionModel, type ModelCallDeps } from '../../../activities/model-calls';
import { toolAnswerCache } from '../../../activities/worker-caches';

const ids = { memory_id: 'm', parent_interaction_id: 'root', executor_agent_memory_id: 'em', executor_agent_parent_interaction_id: 'eroot' };

function secondTurn(events?: StoredToolResult['events']): ExecutorCallInput {
  return {
    model: { interface: 'scripted', script: { executor: [[], [], [{ tool_calls: [{ name: 'T', input: {} }] }, { content: 'done' }]] } },
    messages: [
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'T', input: { x: 1 } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'T', content: '', is_error: false },
    ],
    stored_tool_results: [{ message: 1, call: 0, ...(events ? { events } : {}) }],
    step_memory: { ids, step_index: 2, step: 'add them', history_limit: 0 },
    position: { role: 'executor', step: 2, iteration: 1 },
  } as ExecutorCallInput;
}

async function turn(events?: StoredToolResult['events'], input: ExecutorCallInput = secondTurn(events), tenantBudgets: () => unknown = () => undefined) {
  const appends: Array<{ run: string; events: RunEventBody[]; keys?: readonly (string | undefined)[] }> = [];
  const deps = {
    memory: { findInteractions: async (wanted: readonly string[]) => wanted.map((_id) => ({ _id, response: 'the answer memory holds' })), upsertInteractions: async () => undefined },
    events: { append: async (run: string, written: TimedEvent[], keys?: readonly (string | undefined)[]) => (appends.push({ run, events: written.map(({ at: _at, ...e }) => e as RunEventBody), keys }), 0) },
    recorder: [],
    toolAnswers: toolAnswerCache(),
    executorHistory: { get: async () => [{ role: 'user', content: 'add them' }] },
    completedSteps: { remember: () => undefined },
    tenantBudgets,
  } as unknown as ModelCallDeps;
  const answer = await new MockActivityEnvironment({ workflowExecution: { workflowId: 'run-1/step-3', runId: 'child-run' } }).run(executionModel, deps, input);
  return Object.assign(appends, { answer });
}

describe("a tool call's events handed on to the step's next turn", () => {
  it('are written first, with the turn\'s text, in one write, under the keys the run would use', async () => {
    const appends = await turn('call_and_result');
    expect(appends).toHaveLength(1);
    expect(appends[0].run).toBe('run-1');
    expect(appends[0].events).toEqual([
      { type: 'tool_call', step: 2, tool: 'T', call: 'tool:2:0', input: '{"x":1}' },
      { type: 'tool_result', step: 2, tool: 'T', call: 'tool:2:0', ok: true, output: 'the answer memory holds' },
      { type: 'model_delta', role: 'executor', step: 2, call: 'executor:2:1', text: 'done' },
    ]);
    // The same keys as the run's own write of them (a step that ended before a turn took them).
    const byRun = handedToolEvents('child-run', 2, [{ call: 0, tool: 'T', input: { x: 1 }, output: 'the answer memory holds', ok: true }]);
    expect(appends[0].keys).toEqual([...byRun.keys, undefined]);
    expect(appends[0].events.slice(0, 2)).toEqual(byRun.events);
  });

  it("take each call's input from the turn it answers, when a server repeats one id every turn", async () => {
    const input = secondTurn();
    input.messages = [
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'T', input: { x: 1 } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'T', content: '', is_error: false },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'T', input: { x: 2 } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'T', content: '', is_error: false },
    ];
    input.stored_tool_results = [{ message: 1, call: 0, events: 'call_and_result' }, { message: 3, call: 1, events: 'call_and_result' }];
    const written = (await turn(undefined, input))[0].events;
    expect(written.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.input)).toEqual(['{"x":1}', '{"x":2}']);
  });

  it('a call that showed while it ran leaves its result only; a turn handed nothing writes its text alone', async () => {
    expect((await turn('result'))[0].events.map((e) => e.type)).toEqual(['tool_result', 'model_delta']);
    expect((await turn()).flatMap((a) => a.events.map((e) => e.type))).toEqual(['model_delta']);
  });
});

describe("the step's start handed to its executor (`events_before`)", () => {
  const started = { events: [{ type: 'plan', steps: ['add them'] }, { type: 'step_started', index: 2, step: 'add them' }] as RunEventBody[], keys: ['parent-run#7', 'parent-run#8'] };

  it('goes first, before the tool events handed on and the text, in the turn\'s one write', async () => {
    const appends = await turn('call_and_result', { ...secondTurn('call_and_result'), events_before: started });
    expect(appends).toHaveLength(1);
    expect(appends[0].events.map((e) => e.type)).toEqual(['plan', 'step_started', 'tool_call', 'tool_result', 'model_delta']);
    expect(appends[0].keys?.slice(0, 2)).toEqual(started.keys);
  });

  it('goes on, unwritten, from a first turn that wrote nothing and asks for a tool call', async () => {
    const first = { ...secondTurn(), messages: [], stored_tool_results: [], position: { role: 'executor', step: 2, iteration: 0 }, events_before: started } as ExecutorCallInput;
    first.model = { interface: 'scripted', script: { executor: [[], [], [{ tool_calls: [{ name: 'T', input: {} }] }, { content: 'done' }]] } };
    const appends = await turn(undefined, first);
    expect([...appends]).toEqual([]);
    expect(appends.answer).toMatchObject({ content: '', tool_calls: [{ name: 'T' }] });
  });

  it("are written at once by a call the tenant's daily cap held back, a decision's too: they do not wait with it for a person", async () => {
    const capped = () => ({ cap: async () => 1, spent: async () => 2 });
    const held = await turn('call_and_result', { ...secondTurn('call_and_result'), tenant: 't', events_before: started }, capped);
    expect(held.answer).toMatchObject({ tenant_budget: { tenant: 't', cap_usd: 1, spent_usd: 2 } });
    // The step's start alone: the tool events wait for the turn that is made (the executor hands them to it again).
    expect([...held].map((a) => [a.events.map((e) => e.type), a.keys])).toEqual([[['plan', 'step_started'], started.keys]]);
    const decision = { model: secondTurn().model, messages: [{ role: 'user', content: 'go on?' }], position: { role: 'task', kind: 'decision', call: 1 }, tenant: 't', events_before: { events: [{ type: 'step_finished', index: 0, ok: true, result: 'r' }], keys: ['#4'] } } as ExecutorCallInput;
    const asked = await turn(undefined, decision, capped);
    // Keys relative to the run are the activity's run's.
    expect([...asked].map((a) => [a.run, a.events.map((e) => e.type), a.keys])).toEqual([['run-1', ['step_finished'], ['child-run#4']]]);
  });
});
