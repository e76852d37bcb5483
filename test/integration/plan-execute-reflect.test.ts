import { WorkflowFailedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { planExecuteReflect, progressQuery, SearchAttributes } from '../../workflows';
import { gateTool } from '../support/gate-tool';
import { createHarness, final, plan, runInput, scriptedAgent, workflowId, type Harness } from '../support/harness';
import { calculatorCall, calculatorTurns, withCalculator } from '../support/script';

jest.setTimeout(60_000);

const waitTool = gateTool();

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ tools: [waitTool.tool] });
});
afterAll(async () => {
  await harness.close();
});

const start = (input: ReturnType<typeof runInput>) =>
  harness.client.workflow.start(planExecuteReflect, { taskQueue: harness.taskQueue, workflowId: workflowId(), args: [input] });
const execute = async (input: ReturnType<typeof runInput>) => (await start(input)).result();

describe('the plan-execute-reflect workflow', () => {
  it('returns the planner result of a single call with the four memory IDs', async () => {
    const out = await execute(runInput(scriptedAgent({ planner: [final('42')] }), 'What is six times seven?'));
    expect(out.response).toBe('42');
    expect(out.steps_executed).toBe(0);
    for (const key of ['memory_id', 'parent_interaction_id', 'executor_agent_memory_id', 'executor_agent_parent_interaction_id'] as const) {
      expect(out[key]).toMatch(/^[0-9a-f-]{36}$/);
    }
    const [request] = harness.recorder.filter((r) => r.messages[0]?.content.includes('What is six times seven?'));
    expect(request.system).toContain('You are a thoughtful and analytical planner agent');
    expect(request.messages[0].content).toContain('Objective: What is six times seven?');
  });

  it('runs three steps and shows the completed steps to the planner in the reflect template', async () => {
    const question = 'three step question';
    const out = await execute(
      runInput(
        scriptedAgent({
          planner: [plan('step A', 'step B', 'step C'), plan('step B', 'step C'), plan('step C'), final('all done')],
          executor: [[{ content: 'result A' }], [{ content: 'result B' }], [{ content: 'result C' }]],
        }),
        question,
      ),
    );
    expect(out.response).toBe('all done');
    expect(out.steps_executed).toBe(3);
    const prompts = harness.recorder
      .filter((r) => r.position.role === 'planner' && r.messages[0].content.includes(question))
      .map((r) => r.messages[0].content);
    expect(prompts).toHaveLength(4);
    expect(prompts[1]).toContain('Original plan:\n["step A", "step B", "step C"]');
    expect(prompts[1]).toContain('<step-1>\nstep A\n</step-1>\n<step-1-result>\nresult A\n</step-1-result>');
    expect(prompts[1]).toContain('Update your plan based on the latest step results.');
    expect(prompts[2]).toContain('<step-2>\nstep B\n</step-2>\n<step-2-result>\nresult B\n</step-2-result>');
    expect(prompts[3]).toContain('<step-3-result>\nresult C\n</step-3-result>');
    const executorQuestions = harness.recorder
      .filter((r) => r.position.role === 'executor' && r.messages.some((m) => m.content === 'result A'))
      .map((r) => r.messages.map((m) => `${m.role}: ${m.content}`));
    // Steps 2 and 3 see the executor's earlier steps (executor memory) before their own step.
    expect(executorQuestions).toEqual([
      ['user: step A', 'assistant: result A', 'user: step B'],
      ['user: step A', 'assistant: result A', 'user: step B', 'assistant: result B', 'user: step C'],
    ]);
  });

  it('parses a planner answer wrapped in a markdown fence', async () => {
    const fenced = '```json\n' + final('fenced answer') + '\n```';
    const out = await execute(runInput(scriptedAgent({ planner: [fenced] }), 'fenced?'));
    expect(out.response).toBe('fenced answer');
  });

  it('asks the planner again after a malformed answer and recovers', async () => {
    const question = 'recover from malformed';
    const out = await execute(runInput(scriptedAgent({ planner: ['I think the answer is 4', final('4')] }), question));
    expect(out.response).toBe('4');
    const retry = harness.recorder.find((r) => r.position.role === 'planner' && r.position.call === 1 && r.messages[0].content.includes(question));
    expect(retry?.messages[0].content).toContain('Your previous answer could not be parsed');
  });

  it('fails with a typed failure quoting the raw answer after three malformed answers', async () => {
    const handle = await start(runInput(scriptedAgent({ planner: ['nope 1', 'nope 2', 'still not JSON'] }), 'never parses'));
    const error = await handle.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as { type?: string; message: string; nonRetryable?: boolean };
    expect(cause.type).toBe('Agent.OutputInvalid');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toContain('after 3 attempts');
    expect(cause.message).toContain('still not JSON');
  });

  it('ends at max_steps with the limit message naming the memory_id', async () => {
    const out = await execute(
      runInput(
        scriptedAgent({
          planner: [plan('s1', 's2', 's3'), plan('s2', 's3')],
          executor: [[{ content: 'r1' }], [{ content: 'r2' }]],
        }),
        'too many steps',
        { max_steps: 2 },
      ),
    );
    expect(out.steps_executed).toBe(2);
    expect(out.response).toContain('Max Steps Limit (2) Reached');
    expect(out.response).toContain(out.memory_id);
    // No summary answer in the script: the completed steps are listed instead.
    expect(out.response).toContain('s1');
    expect(out.response).toContain('r2');
  });

  it('ends cleanly with a summary when the token budget is used up, and reports usage', async () => {
    const out = await execute(
      runInput(
        scriptedAgent({
          planner: [plan('s1', 's2'), plan('s2')],
          executor: [[{ content: 'r1' }], [{ content: 'r2' }]],
          summary: ['s1 gave r1'],
        }),
        'stay within budget',
        { token_budget: 10 },
      ),
    );
    expect(out.steps_executed).toBe(1);
    expect(out.response).toMatch(/^Token Budget Reached \(\d+ of 10 tokens used\)/);
    expect(out.response).toContain('s1 gave r1');
    expect(out.response).toContain(out.memory_id);
    expect(out.usage.input_tokens).toBeGreaterThan(0);
    expect(out.usage.output_tokens).toBeGreaterThan(0);
  });

  it('executes two tool calls in a step and gives their results back to the model', async () => {
    const question = 'tool round trip';
    const out = await execute(
      runInput(
        scriptedAgent(
          {
            planner: [plan('compute things'), final('done')],
            executor: [
              [
                calculatorCall('6*7'),
                calculatorCall('2^10'),
                { content: 'the answers are 42 and 1024' },
              ],
            ],
          },
          withCalculator(),
        ),
        question,
      ),
    );
    expect(out.response).toBe('done');
    const last = harness.recorder.filter((r) => r.position.role === 'executor' && r.messages[0].content === 'compute things').at(-1)!;
    const toolResults = last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults).toEqual(['42', '1024']);
    expect(last.tools?.map((t) => t.name)).toEqual(['CalculatorTool']);
    const reflect = harness.recorder.find((r) => r.position.role === 'planner' && r.position.call === 1 && r.messages[0].content.includes(question));
    expect(reflect?.messages[0].content).toContain('the answers are 42 and 1024');
  });

  it('returns a validation error for bad tool input, which the model then corrects', async () => {
    const question = 'bad tool input';
    const out = await execute(
      runInput(
        scriptedAgent(
          {
            planner: [plan('compute'), final('ok')],
            executor: [
              [
                { tool_calls: [{ name: 'CalculatorTool', input: { expr: '2+2' } }] },
                calculatorCall('2+2'),
                { content: 'it is 4' },
              ],
            ],
          },
          withCalculator(),
        ),
        question,
      ),
    );
    expect(out.response).toBe('ok');
    const last = harness.recorder.filter((r) => r.position.role === 'executor' && r.messages.at(-1)?.role === 'tool').at(-1)!;
    const observations = last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(observations[0]).toMatch(/^Error: invalid input for CalculatorTool: expression: /);
    expect(observations[1]).toBe('4');
  });

  it('never runs a tool outside the agent list and tells the model which tools it may use', async () => {
    const handle = await start(
      runInput(
        scriptedAgent(
          {
            planner: [plan('sneak'), final('ok')],
            executor: [[{ tool_calls: [{ name: 'WaitTool', input: { label: 'x' } }] }, { content: 'could not' }]],
          },
          withCalculator(),
        ),
        'disallowed tool',
      ),
    );
    await handle.result();
    const events = (await harness.client.workflow.getHandle(`${handle.workflowId}/step-1`).fetchHistory()).events ?? [];
    const activities = events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(activities).not.toContain('callTool');
    const seen = harness.recorder.find((r) => r.position.role === 'executor' && r.messages.some((m) => m.role === 'tool' && m.content.includes('not available to this agent')));
    expect(seen?.messages.find((m) => m.role === 'tool')?.content).toBe(
      'Error: tool "WaitTool" is not available to this agent; allowed tools: CalculatorTool',
    );
  });

  it('ends a step at executor_max_iterations with a non-empty limit result', async () => {
    const question = 'iteration limit';
    const out = await execute(
      runInput(
        scriptedAgent(
          {
            planner: [plan('loop forever'), final('gave up')],
            executor: [[calculatorCall('1+1')]],
          },
          withCalculator(),
        ),
        question,
        { executor_max_iterations: 1 },
      ),
    );
    expect(out.response).toBe('gave up');
    const reflect = harness.recorder.find((r) => r.position.role === 'planner' && r.position.call === 1 && r.messages[0].content.includes(question));
    expect(reflect?.messages[0].content).toContain('Executor iteration limit (1) reached');
    expect(reflect?.messages[0].content).toContain('CalculatorTool: 2');
  });

  it('answers the progress query with the four IDs and the current step while a step runs', async () => {
    waitTool.close();
    const handle = await start(
      runInput(
        scriptedAgent(
          {
            planner: [plan('wait for the test', 'then finish'), final('released')],
            executor: [[{ tool_calls: [{ name: 'WaitTool', input: { label: 'x' } }] }, { content: 'waited' }]],
          },
          { tools: [{ type: 'WaitTool' }] },
        ),
        'progress while running',
      ),
    );
    let progress = await handle.query(progressQuery);
    for (let i = 0; i < 100 && progress.status !== 'executing'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      progress = await handle.query(progressQuery);
    }
    expect(progress.status).toBe('executing');
    expect(progress.current_step).toEqual({ index: 0, step: 'wait for the test', executor_workflow_id: `${handle.workflowId}/step-1` });
    expect(progress.plan).toEqual(['wait for the test', 'then finish']);
    for (const key of ['memory_id', 'parent_interaction_id', 'executor_agent_memory_id', 'executor_agent_parent_interaction_id'] as const) {
      expect(progress[key]).toMatch(/^[0-9a-f-]{36}$/);
    }
    waitTool.release();
    const out = await handle.result();
    expect(out.response).toBe('released');
    const done = await handle.query(progressQuery);
    expect(done.status).toBe('completed');
    expect(done.completed_steps).toEqual([
      { index: 0, step: 'wait for the test', result_preview: 'waited', result_chars: 6, ok: true, executor_workflow_id: `${handle.workflowId}/step-1` },
    ]);
    expect(done.memory_id).toBe(out.memory_id);
  });

  it('sets the PerflowStatus search attribute at the end of a run started with perflow\'s attributes', async () => {
    const searchable = (status: string) =>
      new TypedSearchAttributes([
        { key: SearchAttributes.agent, value: 'test-agent' },
        { key: SearchAttributes.status, value: status },
      ]);
    const ok = await harness.client.workflow.start(planExecuteReflect, {
      taskQueue: harness.taskQueue,
      workflowId: workflowId('sa'),
      args: [runInput(scriptedAgent({ planner: [final('fine')] }), 'status?')],
      typedSearchAttributes: searchable('running'),
    });
    await ok.result();
    expect((await ok.describe()).typedSearchAttributes.get(SearchAttributes.status)).toBe('completed');

    const bad = await harness.client.workflow.start(planExecuteReflect, {
      taskQueue: harness.taskQueue,
      workflowId: workflowId('sa'),
      args: [runInput(scriptedAgent({ planner: ['no', 'json', 'here'] }), 'status?')],
      typedSearchAttributes: searchable('running'),
    });
    await expect(bad.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await bad.describe()).typedSearchAttributes.get(SearchAttributes.status)).toBe('failed');
  });

  it('names every activity and executor child in the history, for the Temporal UI', async () => {
    const handle = await start(
      runInput(
        scriptedAgent(
          {
            planner: [plan('add'), final('3')],
            executor: [calculatorTurns('1+2', '3')],
          },
          withCalculator(),
        ),
        'legible run',
      ),
    );
    await handle.result();
    const summaries = async (id: string) =>
      ((await harness.client.workflow.getHandle(id).fetchHistory()).events ?? [])
        .map((e) => e.userMetadata?.summary?.data)
        .filter((d): d is Uint8Array => d instanceof Uint8Array)
        .map((d) => JSON.parse(Buffer.from(d).toString()) as string);
    expect(await summaries(handle.workflowId)).toEqual(
      expect.arrayContaining(['planner: initial plan', 'planner: reflect after step 1', 'step 1: add']),
    );
    expect(await summaries(`${handle.workflowId}/step-1`)).toEqual(
      expect.arrayContaining(['executor LLM: step 1, iteration 1', 'tool: CalculatorTool', 'executor LLM: step 1, iteration 2']),
    );
  });

  it('cancels the executor child when the run is cancelled, and records why', async () => {
    waitTool.close();
    const handle = await start(
      runInput(
        scriptedAgent(
          { planner: [plan('wait forever')], executor: [[{ tool_calls: [{ name: 'WaitTool', input: { label: 'c' } }] }, { content: 'never' }]] },
          { tools: [{ type: 'WaitTool' }] },
        ),
        'cancel me',
      ),
    );
    for (let i = 0; i < 100 && (await handle.query(progressQuery)).status !== 'executing'; i++) await new Promise((r) => setTimeout(r, 100));
    setTimeout(waitTool.release, 5_000); // let the blocked tool end in any case, so the worker can shut down
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const child = await harness.client.workflow.getHandle(`${handle.workflowId}/step-1`).describe();
    expect(child.status.name).toBe('CANCELLED');
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const { parent_interaction_id } = await handle.query(progressQuery);
    const root = await harness.memory.interactions.findOne({ _id: parent_interaction_id });
    expect(root?.response).toBe('Agent execution failed: the run was cancelled');
  });

  it('lets a run parameter override the agent parameter', async () => {
    const question = 'override planner prompt';
    await execute(
      runInput(scriptedAgent({ planner: [final('ok')] }, { parameters: { planner_prompt: 'AGENT PROMPT' } }), question, {
        planner_prompt: 'RUN PROMPT',
      }),
    );
    const request = harness.recorder.find((r) => r.messages[0]?.content.includes(question))!;
    expect(request.messages[0].content).toContain('RUN PROMPT');
    expect(request.messages[0].content).not.toContain('AGENT PROMPT');
  });
});
