/**
 * A whole plan-execute-reflect run through `openai/v1/chat/completions`: the real OpenAI SDK in
 * the worker talks to a local server on loopback that speaks the Chat Completions wire
 * protocol. Also: a custom `llm_response_filter`, and the API key never reaches the workflow
 * history or memory.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { planExecuteReflect, progressQuery } from '../../../workflows';
import { final, plan, runInput, useHarness, workflowId } from '../../support/harness';
import { chatCompletion, streamedChatCompletion, useWireServer } from '../../support/wire-server';
import { answersOf, type RunEvent } from '../../../client';

jest.setTimeout(120_000);

const KEY = `sk-perflow-secret-${randomUUID()}`;

/** A Chat Completions answer of the local model; `extra` adds top-level fields for a custom response filter. */
const completion = (message: Record<string, unknown>, finishReason: string, extra: Record<string, unknown> = {}) =>
  chatCompletion(message, { model: 'gpt-local', usage: [100, 10], finishReason, extra });

/** The same, streamed (the default): the text in `content` pieces, 20 ms apart. */
const streamed = (content: string[], extra: Record<string, unknown> = {}, toolCalls?: { id: string; name: string; argumentParts: string[] }[]) =>
  streamedChatCompletion({ content, usage: [100, 10], extra, ...(toolCalls ? { toolCalls } : {}) }, { delayMs: 20 });

const server = useWireServer(() => ({ OPENAI_API_KEY: KEY }));
const harness = useHarness();

it('plans, calls a tool and answers through the OpenAI interface, and keeps the key out of history and memory', async () => {
  // The answers sit in `perflow_answer`, which the agent's llm_response_filter selects: the
  // planner's, and the executor's final answer (its tool-call turn has no answer to select).
  // Streamed replies (the default): the events carry the text as it came, the filter selects from the assembled answer.
  server().reply(
    streamed(['ignored ', 'by the ', 'filter'], { perflow_answer: plan('compute 6*7 with the calculator') }),
    streamed([], {}, [{ id: 'call_1', name: 'CalculatorTool', argumentParts: ['{"expression"', ':"6*7"}'] }]),
    streamed(['6*7 ', 'is 42'], { perflow_answer: '6*7 is 42' }),
    streamed(['The answer ', 'is 42.'], { perflow_answer: final('The answer is 42.') }),
  );
  const agent = {
    name: 'openai-agent',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'openai/v1/chat/completions', model: 'gpt-local', base_url: server().url },
    tools: [{ type: 'CalculatorTool' }],
    parameters: { llm_response_filter: '$.perflow_answer' },
  };
  const handle = await harness().client.workflow.start(planExecuteReflect, {
    taskQueue: harness().taskQueue,
    workflowId: workflowId('openai'),
    args: [runInput(agent, 'What is 6 times 7?')],
  });
  const out = await handle.result();
  expect(out.response).toBe('The answer is 42.');
  expect((await handle.query(progressQuery)).completed_steps.map((st) => st.result_preview)).toEqual(['6*7 is 42']);
  // A model the price table does not know (and the file does not price) has no cost: null, never 0.
  expect(out.usage).toEqual({ input_tokens: 400, output_tokens: 40, cost_usd: null });
  const events = await eventsOf(handle.workflowId);
  expect(events.filter((e) => e.type === 'model_delta' && e.role === 'planner').slice(0, 3).map((e) => e.type === 'model_delta' && e.text)).toEqual(['ignored ', 'by the ', 'filter']);
  expect(answersOf(events).map((a) => [a.role, a.text])).toEqual([
    ['planner', 'ignored by the filter'],
    ['executor', '6*7 is 42'],
    ['planner', 'The answer is 42.'],
  ]);
  expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'CalculatorTool', input: '{"expression":"6*7"}' });

  // What went over the wire: the planner prompt, the tools schema, the tool result.
  expect(server().requests).toHaveLength(4);
  for (const r of server().requests) expect(r.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  const [planner, firstExec, secondExec] = server().requests.map((r) => r.body as { messages: { role: string; content: unknown; tool_call_id?: string }[]; tools?: { function: { name: string } }[] });
  expect(planner.messages[0].role).toBe('system');
  expect(String(planner.messages[1].content)).toContain('What is 6 times 7?');
  expect(firstExec.tools?.map((t) => t.function.name)).toEqual(['CalculatorTool']);
  expect(secondExec.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: '42' });
  for (const r of server().requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);

  // The secret scan: no history event and no memory document holds the key.
  const needle = Buffer.from(KEY);
  for (const id of [handle.workflowId, `${handle.workflowId}/step-1`]) {
    const history = await harness().client.workflow.getHandle(id).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect(bytes.length).toBeGreaterThan(1_000);
    expect([id, bytes.includes(needle)]).toEqual([id, false]);
  }
  let documents = 0;
  for (const { name } of await harness().db.listCollections().toArray()) {
    for (const doc of await harness().db.collection(name).find().toArray()) {
      documents++;
      expect([name, JSON.stringify(doc).includes(KEY)]).toEqual([name, false]);
    }
  }
  expect(documents).toBeGreaterThanOrEqual(5);
});

it('applies the custom llm_response_filter to the max-steps summary too; with stream false the calls are not streamed', async () => {
  server().reply(
    completion({ content: 'ignored by the filter' }, 'stop', { perflow_answer: plan('count', 'then more') }),
    completion({ content: 'ignored by the filter' }, 'stop', { perflow_answer: 'counted 3' }),
    completion({ content: 'the unfiltered summary' }, 'stop', { perflow_answer: 'The filtered summary: 3 counted.' }),
  );
  const agent = {
    name: 'openai-summary',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'openai/v1/chat/completions', model: 'gpt-local', base_url: server().url },
    parameters: { llm_response_filter: '$.perflow_answer', max_steps: 1 },
  };
  Object.assign(agent.llm, { parameters: { stream: false } });
  const handle = await harness().client.workflow.start(planExecuteReflect, {
    taskQueue: harness().taskQueue,
    workflowId: workflowId('openai-summary'),
    args: [runInput(agent, 'Count, then more?')],
  });
  const out = await handle.result();
  expect(out.response).toMatch(/^Max Steps Limit \(1\) Reached\./);
  expect(out.response).toContain('The filtered summary: 3 counted.');
  expect(out.response).not.toContain('the unfiltered summary');
  for (const r of server().requests.slice(-3)) expect((r.body as { stream?: boolean }).stream).toBeUndefined();
  // Not streamed, each answer (as the filter selects it) is one piece of the run's events.
  const deltas = (await eventsOf(handle.workflowId)).filter((e) => e.type === 'model_delta');
  expect(deltas.map((e) => e.type === 'model_delta' && e.text)).toEqual([plan('count', 'then more'), 'counted 3', 'The filtered summary: 3 counted.']);
});

/** The run's events as its stream holds them. */
async function eventsOf(id: string): Promise<RunEvent[]> {
  return harness().memory.eventLog().readAll(id);
}
