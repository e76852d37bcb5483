/**
 * The agent types, declared once: what a type is called in an agent file, which workflow runs
 * it, which of the type-specific parameters and fields it uses, and what the run kernel offers
 * it (plan approval, parallel steps, forks). The agent-file schema, the applicability checks,
 * the workflow registry's names and the client's fork check all derive from this table, so a
 * new agent type is one entry here plus its workflow (docs/extending.md). Schema-free: workflow
 * code imports it (workers/workflow-source.ts shares it among all workflows of a worker); the
 * types a process adds are in known-agent-types.ts, which workflow code never sees.
 */

/** Agent-file fields only some agent types use. */
export type AgentTypeField = 'goal' | 'instructions';

/** What perflow knows of an agent type. */
export interface AgentTypeSpec {
  /** The agent file's `type` (matched ignoring case). */
  readonly type: string;
  /** The Temporal workflow type that runs it: a workflow function of this name exported by workflows/index.ts (an added type's: by the worker's workflows module). */
  readonly workflowType: string;
  /** The type-specific parameters it uses (parameters no type lists are used by every type). */
  readonly parameters: readonly string[];
  /** The agent-file fields only some types use that this one does. */
  readonly fields: readonly AgentTypeField[];
  /** Those of its fields an agent file of this type must set (not blank, not empty). */
  readonly requires?: readonly AgentTypeField[];
  /** Whether `plan_approval` applies: the type writes a plan a person can review. */
  readonly planApproval: boolean;
  /** Whether its steps may run in parallel (`max_parallel_steps` > 1). */
  readonly parallelSteps: boolean;
  /** Whether its runs can be forked at a step: a step N has a meaning and a planner call to start again at. */
  readonly fork: boolean;
  /** Why plan approval or parallel steps do not apply, for the refusals: `${type} agents take no plan approval (…)`, `${type} agents …; parallel steps are for …`. */
  readonly why?: { planApproval?: string; parallelSteps?: string };
}

const PER_PROMPTS = ['planner_prompt', 'reflect_prompt', 'planner_prompt_template', 'reflect_prompt_template', 'planner_with_history_template'];
const IVY_WHY = {
  planApproval: "their plans are Axon Ivy's step and todo lists",
  parallelSteps: 'run their steps in the order their seed defines',
};

/**
 * Every agent type: the seed's plan-execute-reflect agent, Axon Ivy's step-by-step and todo-list
 * agents, and structured plan-and-execute with re-planning triggers.
 */
export const AGENT_TYPE_SPECS = [
  {
    type: 'plan_execute_and_reflect',
    workflowType: 'planExecuteReflect',
    parameters: ['max_steps', ...PER_PROMPTS],
    fields: [],
    planApproval: true,
    parallelSteps: true,
    fork: true,
  },
  {
    type: 'step_by_step',
    workflowType: 'stepByStep',
    parameters: ['max_iterations'],
    fields: ['goal', 'instructions'],
    requires: ['goal'],
    planApproval: false,
    parallelSteps: false,
    fork: false,
    why: IVY_WHY,
  },
  {
    type: 'todo_list',
    workflowType: 'todoList',
    parameters: ['max_iterations', 'max_iterations_per_todo'],
    fields: ['goal', 'instructions'],
    planApproval: false,
    parallelSteps: false,
    fork: false,
    why: IVY_WHY,
  },
  {
    type: 'plan_and_execute',
    workflowType: 'planAndExecute',
    parameters: ['max_steps', 'max_step_attempts', 'replan_after_failed_attempts', 'replan_keywords', 'replan_confidence_threshold'],
    fields: ['instructions'],
    planApproval: true,
    parallelSteps: true,
    fork: true,
  },
] as const satisfies readonly AgentTypeSpec[];

type Spec = (typeof AGENT_TYPE_SPECS)[number];

/** An agent type's name. */
export type AgentTypeName = Spec['type'];

/** The workflow type of each agent type, by agent type. */
export type WorkflowTypes = { [S in Spec as S['type']]: S['workflowType'] };
