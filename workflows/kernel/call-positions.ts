/**
 * Where a run's model calls stand in their sequences: each call's position (`planner` call N, a
 * task kind's call N) is what a scripted model reads its answer by and what a recorded request
 * names. The counters live in carried state, so a run goes on where it stood across
 * continue-as-new, and a fork where its source stood at the fork's step. Agent types ask here;
 * their loops keep no position of their own.
 */
import type { ForkPoint, RunInput } from './definitions';

/** A counter over a numeric field of an agent type's state (absent counts as 0). */
export function counterOf<K extends string>(state: { [key in K]?: number }, key: K): { next: number } {
  return {
    get next() {
      return state[key] ?? 0;
    },
    set next(n: number) {
      state[key] = n;
    },
  };
}

/** A plan_execute_and_reflect planner's calls: the next one's position, and where it stood after each executed step. */
export interface PlannerCalls {
  /** The next planner call's position; a model call advances it. */
  readonly counter: { next: number };
  /** Notes the planner's position at the end of the steps executed from `first` on (a fork from the step after goes on there). */
  stepsDone(first: number, executed: number): void;
  /** What a fork from `step` takes over, over the kernel's `base`. */
  forkPoint(base: ForkPoint, step: number): ForkPoint;
  /** What continue-as-new carries (at the top level, as runs recorded before the kernel carry it). */
  carried(): { plannerCalls: number; plannerCallsAfter: number[] };
}

/** The planner's position from the carried state, else the fork's start, else 0; steps a fork reused count as its start. */
export function plannerCalls(input: Pick<RunInput, 'carried' | 'fork'>, stepsExecuted: number): PlannerCalls {
  const counter = { next: input.carried?.planner_calls ?? input.fork?.planner_calls ?? 0 };
  const after: number[] = input.carried?.planner_calls_after ?? Array.from({ length: stepsExecuted }, () => counter.next);
  return {
    counter,
    stepsDone(first, executed) {
      for (let unit = first; unit < executed; unit++) after[unit] = counter.next;
    },
    forkPoint: (base, step) => ({ ...base, planner_calls: step <= 1 ? 0 : (after[step - 2] ?? counter.next) }),
    carried: () => ({ plannerCalls: counter.next, plannerCallsAfter: after }),
  };
}
