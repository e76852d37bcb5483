/**
 * The plan-execute-reflect workflow plans, reflects and ends: a single planner call, steps shown
 * to the planner, malformed planner answers retried or failed, and the limits (max_steps, the
 * token budget) and run parameters.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { final, plan, runAgent, runInput, scriptedAgent, startAgentRun, useHarness } from '../../support/harness';

jest.setTimeout(60_000);

const harness = useHarness();

describe('the plan-execute-reflect workflow', () => {
  it('returns the planner result of a single call with the four memory IDs', async () => {
    const out = await runAgent(harness(), runInput(scriptedAgent({ planner: [final('42')] }), 'What is six times seven?'));
    expect(out.response).toBe('42');
    expect(out.steps_executed).toBe(0);
    for (const key of ['memory_id', 'parent_interaction_id', 'executor_agent_memory_id', 'executor_agent_parent_interaction_id'] as const) {
      expect(out[key]).toMatch(/^[0-9a-f-]{36}$/);
    }
    const [request] = harness().recorder.filter((r) => r.messages[0]?.content.includes('What is six times seven?'));
    expect(request.system).toContain('You are a thoughtful and analytical planner agent');
    expect(request.messages[0].content).toContain('Objective: What is six times seven?');
  });

  it('runs three steps and shows the completed steps to the planner in the reflect template', async () => {
    const question = 'three step question';
    const out = await runAgent(harness(), 
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
    const prompts = harness().recorder
      .filter((r) => r.position.role === 'planner' && r.messages[0].content.includes(question))
      .map((r) => r.messages[0].content);
    expect(prompts).toHaveLength(4);
    // Rendered as ml-commons renders them: the plan joined by ", ", each step and result an entry.
    expect(prompts[1]).toContain('Original plan:\n[step A, step B, step C]');
    expect(prompts[1]).toContain('[\n<step-1>\nstep A\n</step-1>\n, \n<step-1-result>\nresult A\n</step-1-result>\n]');
    expect(prompts[1]).toContain('Update your plan based on the latest step results.');
    expect(prompts[2]).toContain('</step-1-result>\n, \n<step-2>\nstep B\n</step-2>\n, \n<step-2-result>\nresult B\n</step-2-result>\n]');
    expect(prompts[3]).toContain('\n<step-3-result>\nresult C\n</step-3-result>\n]');
    const executorQuestions = harness().recorder
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
    const out = await runAgent(harness(), runInput(scriptedAgent({ planner: [fenced] }), 'fenced?'));
    expect(out.response).toBe('fenced answer');
  });

  it('asks the planner again after a malformed answer and recovers', async () => {
    const question = 'recover from malformed';
    const out = await runAgent(harness(), runInput(scriptedAgent({ planner: ['I think the answer is 4', final('4')] }), question));
    expect(out.response).toBe('4');
    const retry = harness().recorder.find((r) => r.position.role === 'planner' && r.position.call === 1 && r.messages[0].content.includes(question));
    expect(retry?.messages[0].content).toContain('Your previous answer could not be parsed');
  });

  it('fails with a typed failure quoting the raw answer after three malformed answers', async () => {
    const handle = await startAgentRun(harness(), runInput(scriptedAgent({ planner: ['nope 1', 'nope 2', 'still not JSON'] }), 'never parses'));
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
    const out = await runAgent(harness(), 
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
    const out = await runAgent(harness(), 
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


  it('lets a run parameter override the agent parameter', async () => {
    const question = 'override planner prompt';
    await runAgent(harness(), 
      runInput(scriptedAgent({ planner: [final('ok')] }, { parameters: { planner_prompt: 'AGENT PROMPT' } }), question, {
        planner_prompt: 'RUN PROMPT',
      }),
    );
    const request = harness().recorder.find((r) => r.messages[0]?.content.includes(question))!;
    expect(request.messages[0].content).toContain('RUN PROMPT');
    expect(request.messages[0].content).not.toContain('AGENT PROMPT');
  });
});
