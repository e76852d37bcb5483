/**
 * The benchmark's workflows: perflow's own, plus a floor that performs the same Temporal round
 * trips as a plan-execute-reflect run with a zero-latency model and no tools, doing nothing in
 * them. The executor child loads its earlier steps and saves its result inside its model call,
 * so a step is one planningModel activity and one child workflow with one executionModel
 * activity; a run also opens with startRun (which stores the prompt material too) and ends with
 * the final planner call and endRun.
 */
import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BenchActivities } from './activities';

export * from '../workflows';

const { noop } = proxyActivities<BenchActivities>({ startToCloseTimeout: '1 minute' });

export async function floorStep(): Promise<void> {
  await noop(); // executionModel
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
