/**
 * A plan-execute-reflect run seen from outside while it runs and after: the progress query,
 * the PerflowStatus search attribute, the history's names for the Temporal UI, and cancellation.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { planExecuteReflect, progressQuery, SearchAttributes } from '../../../workflows';
import { gateTool } from '../../support/gate-tool';
import { final, plan, runInput, scriptedAgent, startAgentRun, useHarness, workflowId } from '../../support/harness';
import { calculatorTurns, withCalculator } from '../../support/script';

jest.setTimeout(60_000);

const waitTool = gateTool();
const harness = useHarness({ tools: [waitTool.tool] });

describe('the plan-execute-reflect workflow', () => {
  it('answers the progress query with the four IDs and the current step while a step runs', async () => {
    waitTool.close();
    const handle = await startAgentRun(harness(), 
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
    const ok = await harness().client.workflow.start(planExecuteReflect, {
      taskQueue: harness().taskQueue,
      workflowId: workflowId('sa'),
      args: [runInput(scriptedAgent({ planner: [final('fine')] }), 'status?')],
      typedSearchAttributes: searchable('running'),
    });
    await ok.result();
    expect((await ok.describe()).typedSearchAttributes.get(SearchAttributes.status)).toBe('completed');

    const bad = await harness().client.workflow.start(planExecuteReflect, {
      taskQueue: harness().taskQueue,
      workflowId: workflowId('sa'),
      args: [runInput(scriptedAgent({ planner: ['no', 'json', 'here'] }), 'status?')],
      typedSearchAttributes: searchable('running'),
    });
    await expect(bad.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await bad.describe()).typedSearchAttributes.get(SearchAttributes.status)).toBe('failed');
  });

  it('names every activity and executor child in the history, for the Temporal UI', async () => {
    const handle = await startAgentRun(harness(), 
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
      ((await harness().client.workflow.getHandle(id).fetchHistory()).events ?? [])
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
    const handle = await startAgentRun(harness(), 
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
    const child = await harness().client.workflow.getHandle(`${handle.workflowId}/step-1`).describe();
    expect(child.status.name).toBe('CANCELLED');
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const { parent_interaction_id } = await handle.query(progressQuery);
    const root = await harness().memory.interactions.findOne({ _id: parent_interaction_id });
    expect(root?.response).toBe('Agent execution failed: the run was cancelled');
  });

});
