/**
 * A test-only agent type, `one_step`, on the run kernel: the question is the plan's one step,
 * run by a ReAct executor child with every tool of the agent, and its whole result is the answer.
 */
import { ApplicationFailure } from '@temporalio/workflow';
// What an installed package's user imports as `perflow/workflows/kernel`.
import { finish, fullResult, guard, openAgentTypeRun, runStep, showPlan, type RunInput, type RunOutput } from '../../../workflows/kernel';

export async function oneStep(input: RunInput): Promise<RunOutput> {
  const { run } = await openAgentTypeRun(input, () => 1, () => ({}));
  return guard(run, async () => {
    showPlan(run, [run.question]);
    const outcome = await runStep(run, { unit: 0, label: run.question, text: run.question, tools: run.tools });
    if (!outcome.ok) throw ApplicationFailure.nonRetryable(outcome.result, 'OneStep.Failed');
    showPlan(run, []);
    return finish(run, await fullResult(run, 0), { agent_type: 'one_step' });
  });
}
