/**
 * The run kernel as an agent type of one's own uses it (`perflow/workflows/kernel` in the
 * installed package): open a run, run steps in ReAct executor children, call models, apply the
 * budgets and continue-as-new between steps, finish or fail. Memory, the event stream, people in
 * the loop, budgets and metrics come with them. Its workflows module re-exports perflow's
 * (`perflow/workflows`) beside its own; see docs/extending.md.
 */
export { openAgentTypeRun, showPlan, type AgentTypeRun } from './agent-type-run';
export { fullResult, runStep, runSteps, type StepOutcome, type StepRequest } from './steps';
export { checkpoint, finish, guard, summarizeSteps, type Checkpoint } from './lifecycle';
export { finishAnswer, typedAnswer } from './typed-output';
export { ask, askJudgment, askParsed, type Judgment, type ModelCall } from './model-calls';
export { counterOf } from './call-positions';
export type { RunContext } from './context';
export type { RunInput, RunOutput } from './definitions';
