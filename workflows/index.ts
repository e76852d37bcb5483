/** Workflows the perflow worker registers. */
export { planExecuteReflect, type PlanExecuteReflectInput } from './plan-execute-reflect';
export { reactExecutor, type ReactExecutorInput, type ReactExecutorOutput } from './react-executor';
export * from './definitions';
