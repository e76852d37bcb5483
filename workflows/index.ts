/** Workflows the perflow worker registers. */
export { planExecuteReflect, type PlanExecuteReflectInput } from './plan-execute-reflect';
export { reactExecutor, type ReactExecutorInput, type ReactExecutorOutput } from './react-executor';
export { stepByStep } from './step-by-step';
export { todoList, todoExecutor, type TodoExecutorInput, type TodoExecutorOutput } from './todo-list';
export { planAndExecute } from './plan-and-execute';
export * from './definitions';
