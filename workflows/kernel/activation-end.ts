/**
 * Work done at the end of a workflow activation, after everything the workflow did in it: a
 * workflow interceptor module every perflow bundle carries (workers/workflow-source.ts). A sink
 * called here is still this activation's, so the worker writes it before it reports the task.
 * A bundle made without the module (a replay given only a workflows path) has no end to wait
 * for: `atActivationEnd` says so, and the caller does its work at once.
 *
 * Module state is per workflow: workflow modules other than the shared `preloadModules` are
 * evaluated for each workflow.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

let hooked = false;
const pending: Array<() => void> = [];

/** Runs `fn` at the end of this activation; false (and `fn` not kept) when the bundle has no hook. */
export function atActivationEnd(fn: () => void): boolean {
  if (hooked) pending.push(fn);
  return hooked;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  hooked = true;
  return {
    internals: [
      {
        concludeActivation(input, next) {
          for (const fn of pending.splice(0)) fn();
          return next(input);
        },
      },
    ],
  };
};
