/**
 * What the step_by_step, todo_list and plan_and_execute agents set up alike on the kernel: their
 * system prompt, tool IDs and instruction blocks, their own state (carried across
 * continue-as-new), the plan's open items in `progress`, and Axon Ivy's variables.
 */
import type { ResolvedParameters } from '../../core/agent';
import { instructionsOf } from '../../core/agent-file/instructions';
import { agentTypeSystemPrompt, instructionBlock, type Variable } from '../../core/agent-types';
import type { RunInput } from './definitions';
import { openRun, type RunContext } from './context';

export interface AgentTypeRun<S> {
  run: RunContext<S>;
  /** The agent type's state: carried from the previous execution, else `initial`'s. */
  state: S;
  /** The names of the agent's tools (the tool IDs its plans name). */
  toolIds: string[];
  /** The agent file's planning and execution instructions, as the Ivy templates insert them. */
  planning: string;
  execution: string;
}

/** Opens a run of an agent type whose steps count up to `maxUnits` and whose calls state their own answer format. */
export async function openAgentTypeRun<S>(input: RunInput<S>, maxUnits: (p: ResolvedParameters) => number, initial: (run: RunContext<S>) => S): Promise<AgentTypeRun<S>> {
  const run = await openRun(input, (p) => ({ maxUnits: maxUnits(p), planningSystem: agentTypeSystemPrompt(p) }));
  return {
    run,
    state: run.carried?.agent_state ?? initial(run),
    toolIds: run.tools.map((t) => t.spec.name),
    planning: instructionBlock(instructionsOf(run.agent, 'planning')),
    execution: instructionBlock(instructionsOf(run.agent, 'execution')),
  };
}

/** Shows the plan's items still to run as `progress.plan` (and in the event stream when they are a new plan). */
export function showPlan(run: RunContext, open: string[]): void {
  run.progress.plan = open;
  run.events.planned(open);
  run.showProgress();
}

/** Marks the items still pending as skipped: the run ends before them. */
export function skipPending(items: Array<{ status: string }>): void {
  for (const item of items) if (item.status === 'pending') item.status = 'skipped';
}

/** Adds a named result to the variables (with none given: shows them), and their names to `progress`. */
export function addVariable(run: RunContext, variables: Variable[], variable?: Variable): void {
  if (variable) variables.push(variable);
  run.progress.variables = variables.map((v) => v.name);
}
