/**
 * The typical recovery: the planner's provider goes down mid-run, the planner activity
 * exhausts its retries and the run fails; the provider comes back; `perflow reset ID --to
 * failed-activity` continues the run from the failed planner call, without redoing the steps
 * (and tool calls) completed before it.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { startRun } from '../../../client/run';
import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { final, plan } from '../../support/harness';
import { useCli } from '../../support/cli';
import { chatCompletion, useWireServer } from '../../support/wire-server';
import { calculatorTurns } from '../../support/script';

jest.setTimeout(180_000);

/** The planner model's answer. */
const answer = (content: string) => chatCompletion({ content }, { model: 'planner-model' });

const server = useWireServer(() => ({ OPENAI_API_KEY: 'sk-reset-test' }));
const cli = useCli('reset');

it('reset after a planner outage continues without redoing completed steps', async () => {
  const agent = parseAgentDefinition({
    name: 'reset-agent',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'openai/v1/chat/completions', model: 'planner-model', base_url: server().url },
    executor_llm: {
      interface: 'scripted',
      script: {
        planner: [],
        executor: [
          calculatorTurns('1+2', '3'),
          calculatorTurns('3+4', '7'),
        ],
      },
    },
    tools: [{ type: 'CalculatorTool' }],
  });
  // Two planner answers, then the provider is down: every call gets HTTP 500.
  server().reply(answer(plan('add 1+2', 'add 3+4')), answer(plan('add 3+4')));
  const run = await startRun(cli.harness.perflow, { agent, parameters: resolveParameters(agent), question: 'What is 3 + 7?' });
  await expect(run.handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  const plannerCallsBefore = server().requests.length;
  expect(plannerCallsBefore).toBeGreaterThanOrEqual(2 + 5); // two answers, then five failed attempts

  // The provider is back.
  server().reply(answer(final('3 + 7 = 10')));
  const r = await cli.perflow(['reset', run.workflowId, '--to', 'failed-activity', '--reason', 'provider is back']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const newRunId = /new run_id ([0-9a-f-]{36})$/m.exec(r.stdout)?.[1];
  expect(newRunId).toBeDefined();

  const out = await cli.harness.client.workflow.getHandle(run.workflowId, newRunId).result();
  expect(out.response).toBe('3 + 7 = 10');
  expect(out.steps_executed).toBe(2);
  expect(server().requests.length).toBe(plannerCallsBefore + 1); // only the failed planner call again

  // Each step's executor ran once, with its one tool call: nothing was redone.
  for (const step of [1, 2]) {
    const executions = [];
    for await (const w of cli.harness.client.workflow.list({ query: `WorkflowId = '${run.workflowId}/step-${step}'` })) executions.push(w);
    expect([step, executions.length]).toEqual([step, 1]);
    const history = await cli.harness.client.workflow.getHandle(`${run.workflowId}/step-${step}`).fetchHistory();
    const toolRuns = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callTool');
    expect([step, toolRuns.length]).toEqual([step, 1]);
  }
  const newHistory = await cli.harness.client.workflow.getHandle(run.workflowId, newRunId).fetchHistory();
  const childStarts = (newHistory.events ?? []).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
  expect(childStarts).toHaveLength(2); // the two kept from before the reset

  // Memory tells the end of the story, not the outage.
  const root = await cli.harness.memory.interactions.findOne({ _id: out.parent_interaction_id });
  expect(root?.response).toBe('3 + 7 = 10');
  expect(root?.error).toBeUndefined();
});
