/**
 * MCP tools in a run: a stdio server written for the test is listed at run start and its tool
 * is called as an activity; a second server that crashes at start is skipped and the run
 * completes with the tools it has.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { temporal } from '@temporalio/proto';
import { planExecuteReflect } from '../../../workflows';
import { final, plan, runInput, scriptedAgent, useHarness, workflowId } from '../../support/harness';

jest.setTimeout(120_000);

const SERVER = resolve(__dirname, '../../support/mcp-test-server.ts');

const harness = useHarness();

it('lists and calls the tools of an MCP server, skipping one that fails to start', async () => {
  const agent = scriptedAgent(
    {
      planner: [plan('add 2 and 40 with the MCP tool'), final('42')],
      executor: [[{ tool_calls: [{ name: 'add', input: { a: 2, b: 40 } }] }, { content: 'the sum is 42' }]],
    },
    {
      mcp_servers: [
        { name: 'broken', command: process.execPath, args: ['-e', 'process.exit(3)'] },
        { name: 'calc', command: process.execPath, args: ['--require', 'tsx/cjs', SERVER], env: { MCP_TEST_LABEL: 'the test server' } },
      ],
    },
  );
  const handle = await harness().client.workflow.start(planExecuteReflect, {
    taskQueue: harness().taskQueue,
    workflowId: workflowId('mcp'),
    args: [runInput(agent, 'What is 2 + 40?')],
  });
  const out = await handle.result();
  expect(out.response).toBe('42');

  // The executor offered the MCP tools (listed once, at run start) and got the server's answer.
  const executorCalls = harness().recorder.filter((r) => r.position.role === 'executor' && r.messages.some((m) => m.content.includes('add 2 and 40')));
  expect(executorCalls[0].tools?.map((t) => t.name)).toEqual(['add', 'shout', 'wait']);
  const observation = executorCalls[1].messages.find((m) => m.role === 'tool');
  expect(observation?.content).toBe('42 (computed by the test server)');

  const history = await handle.fetchHistory();
  const activities = (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  expect(activities.filter((a) => a === 'describeTools')).toHaveLength(1);
  const stored = await harness().memory.interactions.findOne({ memory_id: out.executor_agent_memory_id, origin: 'tool' });
  expect(stored).toMatchObject({ tool_name: 'add', response: '42 (computed by the test server)' });
});

it('resolves ${NAME} in an MCP server’s env from the worker’s environment, inside the activity: the secret is not in the history', async () => {
  const secret = `s3cret-${Date.now()}-value`;
  process.env.PERFLOW_TEST_MCP_TOKEN = secret;
  try {
    const agent = scriptedAgent(
      {
        planner: [plan('add 1 and 1 with the MCP tool'), final('2')],
        executor: [[{ tool_calls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { content: 'the sum is 2' }]],
      },
      { mcp_servers: [{ name: 'calc', command: process.execPath, args: ['--require', 'tsx/cjs', SERVER], env: { MCP_TEST_LABEL: 'calc', MCP_TEST_TOKEN: 'Bearer ${PERFLOW_TEST_MCP_TOKEN}' } }] },
    );
    const handle = await harness().client.workflow.start(planExecuteReflect, { taskQueue: harness().taskQueue, workflowId: workflowId('mcp-secret'), args: [runInput(agent, 'What is 1 + 1?')] });
    const out = await handle.result();
    expect(out.response).toBe('2');
    // The server got the resolved value (it answers with its hash) ...
    const stored = await harness().memory.interactions.findOne({ memory_id: out.executor_agent_memory_id, origin: 'tool' });
    const hash = createHash('sha256').update(`Bearer ${secret}`).digest('hex').slice(0, 16);
    expect(stored?.response).toBe(`2 (computed by calc, token sha256 ${hash})`);
    // ... while the history holds only the reference.
    const raw = Buffer.from(temporal.api.history.v1.History.encode(await handle.fetchHistory()).finish()).toString('latin1');
    expect(raw).toContain('Bearer ${PERFLOW_TEST_MCP_TOKEN}');
    expect(raw).not.toContain(secret);
  } finally {
    delete process.env.PERFLOW_TEST_MCP_TOKEN;
  }
});

it('gives a call of an MCP server\'s tool the server\'s timeout_seconds: a slower call is an error observation, and its activity times out with it', async () => {
  const agent = scriptedAgent(
    {
      planner: [plan('wait with the MCP tool'), final('gave up waiting')],
      executor: [[{ tool_calls: [{ name: 'wait', input: { seconds: 30 } }] }, { content: 'it took too long' }]],
    },
    { mcp_servers: [{ name: 'slow', command: process.execPath, args: ['--require', 'tsx/cjs', SERVER], timeout_seconds: 2 }] },
  );
  const handle = await harness().client.workflow.start(planExecuteReflect, { taskQueue: harness().taskQueue, workflowId: workflowId('mcp-timeout'), args: [runInput(agent, 'Wait 30 s?')] });
  expect((await handle.result()).response).toBe('gave up waiting');
  const observation = harness().recorder.filter((r) => r.position.role === 'executor' && r.messages.some((m) => m.content.includes('wait with the MCP tool')))[1].messages.find((m) => m.role === 'tool');
  expect(observation?.content).toMatch(/^Error: wait failed: .*timed out/i);
  const step = await harness().client.workflow.getHandle(`${handle.workflowId}/step-1`).fetchHistory();
  const call = (step.events ?? []).find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callTool')!.activityTaskScheduledEventAttributes!;
  expect(Number(call.startToCloseTimeout?.seconds)).toBe(2 + 60);
});
