/**
 * What a long step_by_step (or todo_list) run stops carrying across continue-as-new, and how
 * its prompts list the variables it still carries.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { variableListing, type Variable } from './common';

/**
 * The earliest steps a long step_by_step run no longer carries: counted here, in memory all the
 * same (a variable's value is its step's whole result, saved with the step).
 */
export interface EarlierStepByStep extends EarlierVariables {
  /** Executed (or skipped) steps moved off the front of the step list. */
  views: number;
}

/** The results a long run no longer carries in its variables (the question stays first). */
export interface EarlierVariables {
  variables: number;
}

/** Keeps the question and the latest `keep` results of the variables; returns how many results went. */
export function foldVariables(variables: Variable[], keep: number): number {
  const moved = Math.max(0, variables.length - 1 - keep);
  variables.splice(1, moved);
  return moved;
}

/**
 * Keeps the question and the latest `keep` results of the variables, and the executed steps
 * from the latest `keep` on (the steps still to run stay), counting the others in `earlier`.
 * Returns whether anything moved. A `next` pointing back to a step moved out is not found then:
 * the run goes on with its plan, as for any step not in it.
 */
export function foldStepByStep<V extends { status: string }>(state: { views: V[]; variables: Variable[]; earlier?: EarlierStepByStep }, keep: number): boolean {
  const { views } = state;
  const movedVariables = foldVariables(state.variables, keep);
  const done = (v: V) => v.status !== 'pending' && v.status !== 'running';
  const leading = views.findIndex((v) => !done(v));
  const movedViews = Math.min(leading === -1 ? views.length : leading, Math.max(0, views.filter(done).length - keep));
  views.splice(0, movedViews);
  if (movedVariables === 0 && movedViews === 0) return false;
  state.earlier = { views: (state.earlier?.views ?? 0) + movedViews, variables: (state.earlier?.variables ?? 0) + movedVariables };
  return true;
}

/** The variables as a step's prompt lists them: with a line for the results no longer carried, after the question. */
export function carriedVariableListing(variables: readonly Variable[], earlier: EarlierVariables | undefined): string {
  if (!earlier?.variables) return variableListing(variables);
  const [question, ...latest] = variables;
  return [variableListing([question]), `- (${earlier.variables} earlier results: in memory, not listed; the latest ${latest.length} follow)`, ...(latest.length > 0 ? [variableListing(latest)] : [])].join('\n');
}
