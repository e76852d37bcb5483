/**
 * The benchmark's workflows: perflow's own, plus a floor that performs, per step, the same
 * Temporal round trips as a plan-execute-reflect step with a zero-latency model and no tools
 * (one planner activity, one child workflow with three activities), doing nothing in them.
 */
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BenchActivities } from './activities';

export * from '../workflows';

const { noop } = proxyActivities<BenchActivities>({ startToCloseTimeout: '1 minute' });

export async function floorStep(): Promise<void> {
  await noop(); // loadExecutorHistory
  await noop(); // executionModel
  await noop(); // saveStep
}

export async function floorRun(steps: number): Promise<number> {
  await noop(); // startRun
  for (let i = 0; i < steps; i++) {
    await noop(); // planningModel
    await executeChild(floorStep, { workflowId: `${workflowInfo().workflowId}/step-${i + 1}` });
  }
  await noop(); // the final planningModel
  await noop(); // finishRun
  return steps;
}
