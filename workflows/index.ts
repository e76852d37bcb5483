/** Workflows the perflow worker registers. */
export { planExecuteReflect, type PlanExecuteReflectInput } from './plan-execute-reflect';
export { reactExecutor, type ReactExecutorInput, type ReactExecutorOutput } from './kernel/react-executor';
export { stepByStep } from './step-by-step';
export { todoList } from './todo-list';
/** Started only by todo_list runs recorded before their iterations ran on the kernel: kept for them. */
export { todoExecutor, type TodoExecutorInput, type TodoExecutorOutput } from './legacy/todo-executor';
export { planAndExecute } from './plan-and-execute';
export { perflowEval, type EvalInput, type EvalCaseInput } from './eval';
/** Delivers a run's end to its webhook (started by the run as it ends, abandoned by it). */
export { deliverWebhook, type DeliverWebhookInput, type WebhookDelivery } from './webhooks';
/** Scores an ended run by its agent's `scoring` checks (started by a sampled run as it ends, abandoned by it). */
export { scoreEndedRun, type ScoreRunInput } from './scoring';
export * from './definitions';
