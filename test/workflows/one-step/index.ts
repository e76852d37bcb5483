/** perflow's workflows and the test-only `one_step` agent type's: what a worker runs when it serves an added agent type. */
export * from '../../../workflows';
export { oneStep } from './one-step';
