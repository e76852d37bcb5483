/**
 * A remote A2A agent's call survives its worker: the worker process is SIGKILLed while the remote
 * agent (test/support/a2a-remote.ts) holds the task open; the retried activity on a fresh worker
 * re-attaches to the same remote task (remembered in its heartbeat details, or found by the
 * call's derived context) instead of sending the message again, and the run completes with the
 * remote agent's answer: one remote task, not two.
 */
import { randomUUID } from 'node:crypto';
import { planExecuteReflect } from '../../../workflows';
import { final, plan, runInput, until } from '../../support/harness';
import { useWorkerProcess } from '../../support/spawn-worker';
import { startA2ARemote, type A2ARemote } from '../../support/a2a-remote';


jest.setTimeout(240_000);

// The worker processes read their policy from the environment they inherit.
process.env.PERFLOW_ALLOW_HOSTS = '127.0.0.1';
const fixture = useWorkerProcess('a2a-crash');
let remote: A2ARemote;
beforeAll(async () => {
  remote = await startA2ARemote();
});
afterAll(() => remote?.close());

it('re-attaches to the same remote task after a worker SIGKILL mid-call, and the run completes', async () => {
  await fixture.restart();
  const agent = {
    name: 'a2a-crash',
    type: 'plan_execute_and_reflect',
    llm: { interface: 'scripted', script: { planner: [plan('ask the flight booker'), final('relayed')], executor: [[{ tool_calls: [{ name: 'booker', input: { message: 'hold for the crash' } }] }, { content: 'done' }]] } },
    tools: [{ type: 'A2AAgentTool', name: 'booker', parameters: { url: remote.url, timeout_seconds: 120 } }],
  };
  const held = remote.held();
  const handle = await fixture.client.workflow.start(planExecuteReflect, { taskQueue: fixture.taskQueue, workflowId: `a2a-crash-${randomUUID().slice(0, 8)}`, args: [runInput(agent, 'How many flights?')] });
  const task = await held;
  // Let the attempt remember the task (its first heartbeat), then kill the worker mid-call.
  await new Promise((r) => setTimeout(r, 1_000));
  const seen = remote.requests.length;
  await fixture.restart();
  // The retried attempt (after the heartbeat timeout) reads the task again instead of sending the message.
  await until(async () => remote.requests.slice(seen), (r) => r.some((x) => / (GetTask|ListTasks)$/.test(x)), 'the retried attempt re-attaches');
  remote.release();

  const out = await handle.result();
  expect(out.response).toBe('relayed');
  expect(remote.tasksCreated).toEqual([task]);
  expect(remote.requests.filter((x) => x.endsWith(' SendMessage'))).toHaveLength(1);
  const stored = await fixture.memory.interactions.findOne({ memory_id: out.executor_agent_memory_id, origin: 'tool' });
  expect(stored?.response).toBe('echo: hold for the crash\n{"flights":3}');
  // The call took two attempts of one activity.
  const step = await fixture.client.workflow.getHandle(`${handle.workflowId}/step-1`).fetchHistory();
  const calls = (step.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callTool').map((e) => Number(e.eventId));
  const attempts = (step.events ?? []).flatMap((e) => (calls.includes(Number(e.activityTaskStartedEventAttributes?.scheduledEventId)) ? [e.activityTaskStartedEventAttributes?.attempt] : []));
  expect(attempts).toEqual([2]);
});
