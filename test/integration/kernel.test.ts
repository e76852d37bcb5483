/**
 * What the run kernel gives every agent type, tested for each of the four: continue-as-new
 * (a long run continues and ends as it would without), the token budget, a custom
 * `llm_response_filter`, cancellation recorded in memory, the `PerflowStatus` search attribute,
 * and parse retries; a long run's carried state stays bounded (step_by_step and todo_list here,
 * plan_and_execute in its own file, plan_execute_and_reflect in continue-as-new.test.ts).
 */
import { TypedSearchAttributes } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { AgentType } from '../../core/agent';
import { FailureTypes, progressQuery, SearchAttributes, workflowTypeFor, type RunOutput } from '../../workflows/definitions';
import { getResult } from '../../client/ops';
import { watchRun } from '../../client/watch';
import { formatConversation } from '../../client/text-views';
import { readConversation } from '../../stores/conversation';
import type { RunEvent } from '../../core/run-events';
import { gateTool } from '../support/gate-tool';
import { carriedAgentStates, failureOf, payloadText, runInput, startAgentRun, useHarness, workflowId } from '../support/harness';
import { AGENT_TYPES, expectedResponse, typedAgent } from '../support/typed-agents';
import { longTalker as longRun } from '../support/script';
import { CARRIED_STEPS } from '../../workflows/kernel/lifecycle';

jest.setTimeout(180_000);

const gate = gateTool('GateTool');
const harness = useHarness({ tools: [gate.tool] });

async function historyEvents(id: string, runId?: string) {
  return (await harness().client.workflow.getHandle(id, runId).fetchHistory()).events ?? [];
}

describe.each(AGENT_TYPES)('%s on the run kernel', (type: AgentType) => {
  it('continues-as-new past continue_as_new_after_events and ends with the same result as without', async () => {
    const STEPS = 6;
    const plain = await startAgentRun(harness(), runInput(typedAgent(type, STEPS), 'sum 1..6'), 'plain');
    const expected = await plain.result();
    expect(expected.response).toBe(expectedResponse(type, STEPS));
    expect((await historyEvents(plain.workflowId)).some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(false);

    const long = await startAgentRun(harness(), runInput(typedAgent(type, STEPS), 'sum 1..6', { continue_as_new_after_events: 25 }), 'long');
    const out = await long.result(); // follows the chain
    expect(out.response).toBe(expected.response);
    expect(out.steps_executed).toBe(expected.steps_executed);
    // The same metadata, but for the child workflow IDs, which name their run.
    const sameIds = (m: unknown, id: string) => JSON.parse(JSON.stringify(m ?? null).replaceAll(id, 'RUN')) as unknown;
    expect(sameIds(out.metadata, long.workflowId)).toEqual(sameIds(expected.metadata, plain.workflowId));

    const progress = await long.query(progressQuery);
    expect(progress.continued_as_new).toBeGreaterThanOrEqual(1);
    expect(progress.status).toBe('completed');
    expect(progress.completed_steps.map((s) => s.result_preview)).toEqual((await plain.query(progressQuery)).completed_steps.map((s) => s.result_preview));
    // `perflow result` follows the chain to the execution that ended the run.
    const result = await getResult(harness().client, long.workflowId);
    expect(result.response).toBe(expected.response);
    expect(result.run_id).not.toBe(long.firstExecutionRunId);
    const first = await historyEvents(long.workflowId, long.firstExecutionRunId);
    expect(first.some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(true);
  });

  it('ends cleanly when the token budget is used up, with the budget message and the memory_id to continue', async () => {
    const handle = await startAgentRun(harness(), runInput(typedAgent(type, 3), 'sum 1..3', { token_budget: 1 }), 'budget');
    const out = await handle.result();
    expect(out.steps_executed).toBe(1);
    expect(out.response).toMatch(/^Token Budget Reached \(\d+ of 1 tokens used\)/);
    expect(out.response).toContain(`To continue, run the agent again with memory_id ${out.memory_id}.`);
    const root = await harness().memory.interactions.findOne({ _id: out.parent_interaction_id });
    expect(root?.response).toBe(out.response);
  });

  it('applies a custom llm_response_filter to its planning-model answers', async () => {
    const input = runInput(typedAgent(type, 1, { parameters: { llm_response_filter: '$.no_such_field' } }), 'filtered');
    const failure = await failureOf(startAgentRun(harness(), input, 'filter').then((h) => h.result()));
    expect(deepestMessage(failure)).toContain('llm_response_filter "$.no_such_field" selects nothing in the scripted response');
  });

  it('hands the provider state a tool turn carries back on the step\'s next turn, from memory: no history holds it', async () => {
    const agent = typedAgent(type, 1);
    const script = (agent.llm as { script: { executor: Record<string, unknown>[][] } }).script;
    const carry = [{ type: 'thinking', thinking: `private reasoning of ${type}`, signature: 'c2lnbmF0dXJl' }];
    script.executor[0][0] = { ...script.executor[0][0], carry };
    const handle = await startAgentRun(harness(), runInput(agent, `carry through ${type}`), 'carry');
    expect((await handle.result()).response).toBe(expectedResponse(type, 1));
    // The step's second turn: its assistant turn as the provider gave it, state and all.
    const second = harness().recorder.find((r) => r.position.role === 'executor' && r.position.iteration === 1 && JSON.stringify(r.messages).includes('private reasoning of ' + type));
    expect(second?.messages.find((m) => m.role === 'assistant' && m.tool_calls?.length)).toMatchObject({ carried: true, carry });
    // The turns' messages and answers in the histories (the run's and its children's) say only `carried`:
    // the script, in the run's input, is where the state came from.
    const decode = (p: { data?: unknown } | null | undefined) => JSON.parse(payloadText(p?.data) || 'null') as Record<string, unknown> | null;
    const ids = [handle.workflowId];
    const turns: unknown[] = [];
    for (const id of ids) {
      const events = await historyEvents(id);
      for (const e of events) {
        const scheduled = e.activityTaskScheduledEventAttributes;
        if (scheduled?.activityType?.name === 'executionModel') turns.push(decode(scheduled.input?.payloads?.[0])?.messages);
        const completed = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
        if (completed) turns.push(decode(completed));
      }
      ids.push(...events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []));
    }
    expect(JSON.stringify(turns)).toContain('"carried":true');
    expect(JSON.stringify(turns)).not.toContain('private reasoning');
  });

  it('answers as its output_schema says: a reply that does not conform is asked again with what was wrong, each attempt recorded; Output.Invalid when none does', async () => {
    const schema = { type: 'object', properties: { total: { type: 'integer' }, unit: { enum: ['flights', 'seats'] } }, required: ['total'], additionalProperties: false };
    const typed = (output: string[], extra: Record<string, unknown> = {}) => {
      const agent = typedAgent(type, 1);
      (agent.llm as { script: Record<string, unknown> }).script.output = output;
      return { ...agent, output_schema: schema, ...extra };
    };
    const handle = await startAgentRun(harness(), runInput(typed(['The total is 1.', '{"total": "one"}', '```json\n{"total": 1, "unit": "flights"}\n```']), `typed ${type}`), 'typed');
    const out = await handle.result();
    expect(out.output).toEqual({ total: 1, unit: 'flights' });
    expect(JSON.parse(out.response)).toEqual(out.output);
    expect((await handle.query(progressQuery)).output).toEqual(out.output);
    // Three recorded attempts; the second and third were told what the one before got wrong.
    const asked = harness().recorder.filter((r) => r.position.role === 'task' && r.position.kind === 'output' && JSON.stringify(r.messages).includes(`typed ${type}`));
    expect(asked.map((r) => r.output?.name)).toEqual(['kernel-' + type.replace(/_/g, '-'), 'kernel-' + type.replace(/_/g, '-'), 'kernel-' + type.replace(/_/g, '-')]);
    expect(asked[1].messages[0].content).toContain("- /: the reply is not JSON");
    expect(asked[2].messages[0].content).toContain('- /total: must be integer');
    const attempts = (await historyEvents(handle.workflowId)).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'typedOutput');
    expect(attempts).toHaveLength(3);

    const never = await startAgentRun(harness(), runInput(typed(['{"total": 1, "extra": true}', '{"unit": "miles"}'], { output_retries: 1 }), `untyped ${type}`), 'typed');
    const failure = await failureOf(never.result());
    expect(deepestMessage(failure)).toMatch(/^the answer does not conform to output_schema at \/ after 2 attempt\(s\): \/: must have required property 'total'/);
    expect(failure.type).toBe('Output.Invalid');
  });

  it('keeps its guardrails: a refused question stops the run before any model call; an answer a retry guardrail refuses is revised; a judge, or a tool output a guardrail withholds, ends it tripped', async () => {
    const guarded = (guardrails: unknown, script: Record<string, unknown> = {}) => {
      const agent = typedAgent(type, 1);
      Object.assign((agent.llm as { script: Record<string, unknown> }).script, script);
      return { ...agent, guardrails };
    };
    const refused = await startWithAttributes(runInput(guarded({ input: [{ not_contains: 'password', on_fail: 'stop' }] }), `tell me the admin password (${type})`), 'guarded');
    const out = await refused.result();
    expect(out.response).toBe('Stopped by the input guardrail not_contains "password": response contains "password"');
    expect(out.tripped).toMatchObject({ place: 'input', passed: false, on_fail: 'stop' });
    expect((await refused.query(progressQuery)).status).toBe('tripped');
    expect((await refused.describe()).typedSearchAttributes.get(SearchAttributes.status)).toBe('tripped');
    // No model was asked anything.
    expect(harness().recorder.filter((r) => JSON.stringify(r).includes(`admin password (${type})`))).toEqual([]);

    // The answer mentions "total": revised once, the revision passes.
    const revised = await startAgentRun(harness(), runInput(guarded({ output: [{ not_contains: 'total', on_fail: 'retry' }] }, { revision: ['sum: 1'] }), `revise ${type}`), 'guarded');
    expect((await revised.result()).response).toBe('sum: 1');
    const revision = harness().recorder.find((r) => r.position.role === 'task' && r.position.kind === 'revision' && JSON.stringify(r.messages).includes(`revise ${type}`));
    expect(revision?.messages[0].content).toContain('The answer failed a check (not_contains "total"): response contains "total"');

    // A judge refuses the answer: the run stops, its judge's call counted in the run's tokens.
    const judged = await startAgentRun(harness(), runInput(guarded({ output: [{ judge: 'The answer names no number', on_fail: 'stop' }] }, { guardrail: ['{"pass": false, "reason": "it names 1"}'] }), `judge ${type}`), 'guarded');
    const stopped = await judged.result();
    expect(stopped.response).toBe('Stopped by the output guardrail judge "The answer names no number": it names 1');
    const judgeCall = harness().recorder.find((r) => r.position.role === 'task' && r.position.kind === 'guardrail' && JSON.stringify(r.messages).includes(`judge ${type}`));
    expect(judgeCall).toBeDefined();
    const plain = await startAgentRun(harness(), runInput(typedAgent(type, 1), `judge ${type}`), 'guarded').then((h) => h.result());
    expect(stopped.usage.input_tokens).toBeGreaterThan(plain.usage.input_tokens);

    // A tool's output a tool_output guardrail refuses: withheld from the model, memory and the stream; the run stops.
    const leaky = await startAgentRun(harness(), runInput(guarded({ tool_output: [{ not_regex: '^1$', on_fail: 'stop' }] }), `leak ${type}`), 'guarded');
    const leaked = await leaky.result();
    expect(leaked.tripped).toMatchObject({ place: 'tool_output', check: 'not_regex /^1$/', detail: "the tool's output failed it (withheld)" });
    expect(leaked.response).toBe('Stopped by the tool_output guardrail not_regex /^1$/: the tool\'s output failed it (withheld)');
    expect(harness().recorder.some((r) => r.position.role === 'executor' && r.position.iteration === 1 && JSON.stringify(r.messages).includes(`leak ${type}`))).toBe(false);
    const toolCall = await harness().memory.interactions.findOne({ memory_id: leaked.executor_agent_memory_id, origin: 'tool' });
    expect(toolCall?.response).toMatch(/^Error: the tool's output was withheld/);
    const events = await harness().memory.eventLog().readAll(leaky.workflowId);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ ok: false, output: expect.stringMatching(/^Error: the tool's output was withheld/) });
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'tripped' });
  });

  it('records a cancellation in memory and ends with PerflowStatus failed', async () => {
    gate.close();
    setTimeout(gate.release, 8_000); // let the blocked tool end in any case, so the worker can shut down
    const input = runInput(typedAgent(type, 2, { toolType: 'GateTool' }), 'cancel me');
    const handle = await startWithAttributes(input, 'cancel');
    for (let i = 0; i < 100 && (await handle.query(progressQuery)).status !== 'executing'; i++) await new Promise((r) => setTimeout(r, 100));
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const { parent_interaction_id } = await handle.query(progressQuery);
    const root = await harness().memory.interactions.findOne({ _id: parent_interaction_id });
    expect(root?.response).toBe('Agent execution failed: the run was cancelled');
    const desc = await handle.describe();
    expect(desc.status.name).toBe('CANCELLED');
    expect(desc.typedSearchAttributes.get(SearchAttributes.status)).toBe('failed');
  });

  it('sets PerflowStatus completed at the end of a run', async () => {
    const handle = await startWithAttributes(runInput(typedAgent(type, 1), 'status'), 'status');
    await handle.result();
    expect((await handle.describe()).typedSearchAttributes.get(SearchAttributes.status)).toBe('completed');
  });

  it('asks again after an unparseable plan, and fails with Agent.OutputInvalid when it never parses', async () => {
    const recovered = await startAgentRun(harness(), runInput(typedAgent(type, 1, { badPlans: ['not json at all'] }), 'retry'), 'retry');
    expect((await recovered.result()).response).toBe(expectedResponse(type, 1));

    // max_parse_retries counts retries: three bad answers are survived with 3, not with 2.
    const bad = ['nope', 'still nope', 'never'];
    const survived = await startAgentRun(harness(), runInput(typedAgent(type, 1, { badPlans: bad }), 'parses at last', { max_parse_retries: 3 }), 'retries');
    expect((await survived.result()).response).toBe(expectedResponse(type, 1));
    const input = runInput(typedAgent(type, 1, { badPlans: bad }), 'never parses', { max_parse_retries: 2 });
    const failure = await failureOf(startAgentRun(harness(), input, 'invalid').then((h) => h.result()));
    expect(failure.type).toBe(FailureTypes.OutputInvalid);
    expect(failure.message).toContain('could not be parsed after 3 attempts');
    expect(failure.message).toContain('"never"');
  });

  it('measures its model calls against the model’s context window: a prompt that cannot fit fails at once, in one line', async () => {
    const agent = typedAgent(type, 1);
    agent.llm = { ...(agent.llm as object), context_window: 256 };
    let failure = (await failureOf(startAgentRun(harness(), runInput(agent, `too long for ${type}`), 'ctx').then((h) => h.result()))) as { type?: string; message: string; cause?: unknown };
    while (failure.cause) failure = failure.cause as typeof failure;
    expect(failure.type).toBe('Context.WindowExceeded');
    expect(failure.message).toMatch(/^model scripted: the (planner|executor) prompt \(~\d+ tokens\) does not fit its context window of 256 tokens \(192 with room for the answer\): nothing in it may be left out/);
  });
});

/** The message of the deepest cause of a failure (an activity failure's cause says what went wrong). */
function deepestMessage(err: { message: string; cause?: unknown }): string {
  let e: { message: string; cause?: unknown } = err;
  while (e.cause) e = e.cause as typeof e;
  return e.message;
}

/** Starts a run with perflow's search attributes, as `perflow run` does. */
function startWithAttributes(input: ReturnType<typeof runInput>, prefix: string) {
  return harness().client.workflow.start<(i: typeof input) => Promise<RunOutput>>(workflowTypeFor(input.agent.type), {
    taskQueue: harness().taskQueue,
    workflowId: workflowId(prefix),
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SearchAttributes.agent, value: input.agent.name },
      { key: SearchAttributes.status, value: 'running' },
    ]),
  });
}

describe.each(['step_by_step', 'todo_list'] as const)('%s past CARRIED_STEPS steps', (type) => {
  it('carries the question and its latest results across continue-as-new; its prompts say how many earlier results memory holds', async () => {
    const STEPS = CARRIED_STEPS + 8;
    const question = `sum 1..${STEPS}, a long ${type}`;
    // A few steps an execution: one of them continues-as-new past CARRIED_STEPS results.
    const handle = await startAgentRun(harness(), runInput(typedAgent(type, STEPS), question, { max_iterations: STEPS + 5, continue_as_new_after_events: 60 }), 'long-vars');
    const out = await handle.result();
    expect(out.response).toBe(expectedResponse(type, STEPS));
    const meta = out.metadata as { variables: Array<{ name: string }>; earlier_variables?: number; earlier_steps?: number };
    const earlier = meta.earlier_variables ?? 0;
    expect(earlier).toBeGreaterThan(0);
    expect(meta.variables.length + earlier).toBe(STEPS + 1); // the question and every result
    expect(meta.variables[0].name).toBe('query');
    if (type === 'step_by_step') expect(meta.earlier_steps).toBeGreaterThan(0);

    // Every continued execution's input carries at most the latest CARRIED_STEPS results and what one execution adds.
    const carried = await carriedAgentStates<{ variables: unknown[] }>(harness(), handle.workflowId);
    expect(carried.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...carried.map((s) => s.variables.length))).toBeLessThan(CARRIED_STEPS + 15);

    // The last step's prompt: the question, the line for the results in memory, the latest results.
    const last = harness().recorder.filter((r) => r.position.role === 'executor' && 'step' in r.position && r.position.step === STEPS - 1 && r.messages.some((m) => m.content.includes(question))).at(-1)!;
    const prompt = last.messages.filter((m) => m.content.includes('- query: ')).at(-1)!.content; // the step's own text, after the earlier steps'
    expect(prompt).toContain(`- query: ${question}\n- (${earlier} earlier results: in memory, not listed; the latest `);
    expect(prompt).toContain(`total ${((STEPS - 1) * STEPS) / 2}`);
  });
});

describe('context that fits the model’s window', () => {
  const eventsOf = async (id: string) => {
    const out: RunEvent[] = [];
    for await (const e of watchRun(harness().perflow, id)) out.push(e);
    return out;
  };
  /** The requests of the run whose question is `question`, in the order they were made. */
  const requestsOf = (question: string) => harness().recorder.filter((r) => r.position.role !== 'compaction' && JSON.stringify(r).includes(question));
  const tokens = (r: { system: string; messages: { content: string }[] }) => Math.ceil((r.system + r.messages.map((m) => m.content).join('')).length / 4);
  // 2,000 tokens, a quarter kept for the answer: 1,500 for the prompt, which the fourth planner call would pass four times over.
  const WINDOW = 2_000;

  it('summarize: the planner’s oldest steps and the executor’s first turns are summarized by a recorded call; the run completes', async () => {
    const question = 'compact by summaries';
    const run = await startAgentRun(harness(), runInput(longRun({ context_window: WINDOW }), question), 'ctx');
    expect((await run.result()).response).toBe('all four done');
    const compacted = (await eventsOf(run.workflowId)).filter((e) => e.type === 'context_compacted');
    expect(compacted.some((e) => e.role === 'planner')).toBe(true);
    expect(compacted.some((e) => e.role === 'executor' && e.step === 0)).toBe(true);
    for (const e of compacted) expect(e).toMatchObject({ model: 'scripted', strategy: 'summarize', window: WINDOW, tokens_before: expect.any(Number), tokens_after: expect.any(Number) });
    for (const e of compacted) expect(e.type === 'context_compacted' && e.tokens_after <= 1_500 && e.tokens_before > 1_500).toBe(true);
    // What the model was sent fits, and stands on the summary.
    const sent = requestsOf(question);
    for (const r of sent) expect(tokens(r)).toBeLessThanOrEqual(1_500 + 200);
    const lastPlanner = sent.filter((r) => r.position.role === 'planner').at(-1)!;
    expect(JSON.stringify(lastPlanner.messages)).toContain('SUMMARY: the earlier work, in short');
    expect(JSON.stringify(lastPlanner.messages)).not.toContain('result-1 lorem');
    // Each summary is in memory once, under the run's root: a later call that drops the same steps reuses it.
    const out = await getResult(harness().client, run.workflowId);
    const docs = await harness().memory.interactions.find({ parent_interaction_id: out.parent_interaction_id, origin: 'compaction' }).toArray();
    expect(docs.length).toBeGreaterThan(0);
    expect(new Set(docs.map((d) => d._id)).size).toBe(docs.length);
    // The planner's and the executor's, both recorded in the conversation's memory while the run's root was not written yet.
    expect(docs.some((d) => d._id.startsWith(`${out.parent_interaction_id}:compaction-planner-`))).toBe(true);
    expect(docs.some((d) => d._id.startsWith(`${out.parent_interaction_id}:compaction-step-1-`))).toBe(true);
    for (const d of docs) expect(d.memory_id).toBe(out.memory_id);
    // `perflow memory` lists them apart from the run's four steps.
    const view = await readConversation(harness().memory, out.memory_id);
    expect(view!.runs[0].steps.map((st) => st.step)).toEqual(['s1', 's2', 's3', 's4']);
    expect(view!.runs[0].compactions?.length).toBe(docs.length);
    expect(formatConversation(view!)).toContain('  compacted the oldest completed step: SUMMARY: the earlier work, in short');
    const summaryCalls = harness().recorder.filter((r) => r.position.role === 'compaction' && JSON.stringify(r).includes('result-1 lorem')).length;
    expect(summaryCalls).toBeLessThanOrEqual(docs.length);
    // The summary calls' tokens count in the run's usage.
    expect(out.usage.input_tokens).toBeGreaterThan(sent.reduce((n, r) => n + tokens(r), 0));
  });

  it('trim: the oldest steps and turns are left out, said in one line, with no model call; fail: one line naming the sizes, no retry', async () => {
    const trimmed = await startAgentRun(harness(), runInput(longRun({ context_window: WINDOW, context_strategy: 'trim' }), 'compact by trimming'), 'ctx-trim');
    expect((await trimmed.result()).response).toBe('all four done');
    const compacted = (await eventsOf(trimmed.workflowId)).filter((e) => e.type === 'context_compacted');
    expect(compacted.length).toBeGreaterThan(0);
    for (const e of compacted) expect(e).toMatchObject({ strategy: 'trim' });
    const lastPlanner = requestsOf('compact by trimming').filter((r) => r.position.role === 'planner').at(-1)!;
    expect(JSON.stringify(lastPlanner.messages)).toMatch(/\(left out: \d steps\)/);
    expect(harness().recorder.filter((r) => r.position.role === 'compaction' && JSON.stringify(r).includes('compact by trimming'))).toEqual([]);

    const failing = await startAgentRun(harness(), runInput(longRun({ context_window: WINDOW, context_strategy: 'fail' }), 'do not compact'), 'ctx-fail');
    // The step's failure, under the child's and the run's.
    let failure = (await failureOf(failing.result())) as { type?: string; message: string; cause?: unknown };
    while (failure.cause) failure = failure.cause as typeof failure;
    expect(failure.type).toBe('Context.WindowExceeded');
    // Step 1's fourth turn could not be sent: the step failed, and the planner, told so, could not be asked either.
    expect(failure.message).toMatch(/^model scripted: the planner prompt \(~\d+ tokens\) does not fit its context window of 2000 tokens \(1500 with room for the answer\); context_strategy is fail: use summarize or trim/);
    const progress = await harness().client.workflow.getHandle(failing.workflowId).query(progressQuery);
    expect(progress.completed_steps[0]).toMatchObject({ ok: false, result_preview: expect.stringMatching(/model scripted: the executor prompt \(~\d+ tokens\) does not fit/) });
    for (const id of [failing.workflowId, `${failing.workflowId}/step-1`]) {
      const attempts = (await historyEvents(id)).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
      expect(attempts.every((a) => a === 1)).toBe(true);
    }
  });
});

