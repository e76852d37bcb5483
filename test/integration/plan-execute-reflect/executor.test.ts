/**
 * The plan-execute-reflect workflow's executor steps: tool calls and their results, tool input
 * validated against the schema, tools outside the agent's list refused, and the iteration limit.
 */
import { gateTool } from '../../support/gate-tool';
import { final, plan, runAgent, runInput, scriptedAgent, startAgentRun, useHarness } from '../../support/harness';
import { calculatorCall, withCalculator } from '../../support/script';

jest.setTimeout(60_000);

const waitTool = gateTool();
const harness = useHarness({ tools: [waitTool.tool] });

describe('the plan-execute-reflect workflow', () => {
  it('executes two tool calls in a step and gives their results back to the model', async () => {
    const question = 'tool round trip';
    const out = await runAgent(harness(), 
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
    const last = harness().recorder.filter((r) => r.position.role === 'executor' && r.messages[0].content === 'compute things').at(-1)!;
    const toolResults = last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults).toEqual(['42', '1024']);
    expect(last.tools?.map((t) => t.name)).toEqual(['CalculatorTool']);
    const reflect = harness().recorder.find((r) => r.position.role === 'planner' && r.position.call === 1 && r.messages[0].content.includes(question));
    expect(reflect?.messages[0].content).toContain('the answers are 42 and 1024');
  });

  it('returns a validation error for bad tool input, which the model then corrects', async () => {
    const question = 'bad tool input';
    const out = await runAgent(harness(), 
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
    const last = harness().recorder.filter((r) => r.position.role === 'executor' && r.messages.at(-1)?.role === 'tool').at(-1)!;
    const observations = last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(observations[0]).toMatch(/^Error: invalid input for CalculatorTool: expression: /);
    expect(observations[1]).toBe('4');
  });

  it('never runs a tool outside the agent list and tells the model which tools it may use', async () => {
    const handle = await startAgentRun(harness(), 
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
    const events = (await harness().client.workflow.getHandle(`${handle.workflowId}/step-1`).fetchHistory()).events ?? [];
    const activities = events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(activities).not.toContain('callTool');
    const seen = harness().recorder.find((r) => r.position.role === 'executor' && r.messages.some((m) => m.role === 'tool' && m.content.includes('not available to this agent')));
    expect(seen?.messages.find((m) => m.role === 'tool')?.content).toBe(
      'Error: tool "WaitTool" is not available to this agent; allowed tools: CalculatorTool',
    );
  });

  it('ends a step at executor_max_iterations with a non-empty limit result', async () => {
    const question = 'iteration limit';
    const out = await runAgent(harness(), 
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
    const reflect = harness().recorder.find((r) => r.position.role === 'planner' && r.position.call === 1 && r.messages[0].content.includes(question));
    expect(reflect?.messages[0].content).toContain('Executor iteration limit (1) reached');
    expect(reflect?.messages[0].content).toContain('CalculatorTool: 2');
  });

});
