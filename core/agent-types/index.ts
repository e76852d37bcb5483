/** The model contract of the step_by_step, todo_list and plan_and_execute agents, one file per type. */
export * from './common';
export * from './step-by-step';
export * from './todo-list';
export * from './plan-and-execute';
export * from './plan-and-execute-state';
export * from './step-by-step-state';
