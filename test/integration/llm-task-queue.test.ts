/**
 * Fleet rate limits: a worker started with PERFLOW_LLM_TASK_QUEUE serves the model calls on
 * that queue (rate-limited there), and a run started with `llm_task_queue` schedules every
 * planner and executor LLM call on it, and its scoring's judges too.
 */
import { planExecuteReflect } from '../../workflows';
import { workerConfigFromEnv } from '../../config/env';
import { final, plan, runInput, scriptedAgent, useHarness, workflowId } from '../support/harness';
import { serverEnv, uniqueTaskQueue } from '../support/env';
import { scoringWorkflowId } from '../../core/scoring';

jest.setTimeout(120_000);

const llmQueue = uniqueTaskQueue('perflow-llm');
const harness = useHarness(() => {
  const { temporalAddress, namespace, mongoUri } = serverEnv();
  const config = workerConfigFromEnv({
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: namespace,
    MONGODB_URI: mongoUri,
    PERFLOW_LLM_TASK_QUEUE: llmQueue,
    PERFLOW_LLM_RATE_LIMIT: '50',
    PERFLOW_LLM_CONCURRENCY: '2',
  });
  return { llm: config.llm };
});

it('runs the LLM activities on their own rate-limited task queue', async () => {
  const { client, taskQueue } = harness();
  const input = runInput(
    scriptedAgent({ planner: [plan('say hi'), final('done')], executor: [[{ content: 'hi' }]], score: ['{"pass": true, "reason": "said hi"}'] }, {
      scoring: { sample: 1, checks: [{ judge: 'It says hi' }] },
    }),
    'queues?',
  );
  const handle = await client.workflow.start(planExecuteReflect, {
    taskQueue,
    workflowId: workflowId('llm-queue'),
    args: [{ ...input, llm_task_queue: llmQueue }],
  });
  expect((await handle.result()).response).toBe('done');

  const queuesOf = async (id: string) =>
    ((await client.workflow.getHandle(id).fetchHistory()).events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      return a ? [[a.activityType?.name, a.taskQueue?.name]] : [];
    });
  const parent = await queuesOf(handle.workflowId);
  const child = await queuesOf(`${handle.workflowId}/step-1`);
  expect(parent.filter(([name]) => name === 'planningModel')).toEqual([['planningModel', llmQueue], ['planningModel', llmQueue]]);
  expect(child.filter(([name]) => name === 'executionModel')).toEqual([['executionModel', llmQueue]]);
  const isModelCall = (name: unknown) => /Model$/.test(String(name));
  expect([...parent, ...child].filter(([name]) => !isModelCall(name)).every(([, q]) => q === taskQueue)).toBe(true);

  // The run's scoring is judged on the LLM queue as well.
  const scoring = client.workflow.getHandle(scoringWorkflowId(handle.workflowId));
  for (let i = 0; i < 150 && !(await scoring.describe().catch(() => undefined)); i++) await new Promise((r) => setTimeout(r, 200));
  expect(await scoring.result()).toEqual({ passed: true, score: 1 });
  expect(await queuesOf(scoring.workflowId)).toEqual([['scoreRun', llmQueue]]);
});
