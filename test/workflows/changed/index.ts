/**
 * A deliberately incompatible version of perflow's workflows, for replay tests: the run now
 * waits on a timer before starting, so its commands no longer match recorded histories.
 */
import { sleep } from '@temporalio/workflow';
import { planExecuteReflect as current, type PlanExecuteReflectInput } from '../../../workflows/plan-execute-reflect';

export { reactExecutor } from '../../../workflows/kernel/react-executor';

export async function planExecuteReflect(input: PlanExecuteReflectInput) {
  await sleep('1 second');
  return current(input);
}
