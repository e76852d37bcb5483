/**
 * Pure code shared by workflows, activities and the client: the agent file schema, prompt
 * texts, templating, planner-output parsing and date injection. No I/O anywhere below.
 *
 * @module
 */
export * from './agent';
export * from './datetime';
export * from './planner-output';
export * from './prompts';
export * from './template';
