/**
 * The LLM activities as workflows call them. They may run on their own task queue
 * (`llm_task_queue`), served by workers with a fleet-wide rate limit on model calls.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ModelSettings } from '../activities/llm/chat';
import type { CallPosition } from '../core/llm-types';

/** Retries cover provider outages of a few minutes; non-retryable errors (bad key, unknown model) fail at once. */
const LLM_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 } as const;

export function llmActivities(taskQueue?: string) {
  const queue = taskQueue ? { taskQueue } : {};
  const { plannerLlm, executorLlm } = proxyActivities<Activities>({
    ...queue,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '15 seconds',
    retry: LLM_RETRY,
  });
  // The max-steps summary is a courtesy: one quick retry, then a plain listing.
  const summarize = proxyActivities<Activities>({
    ...queue,
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', maximumAttempts: 2 },
  }).plannerLlm;
  return { plannerLlm, executorLlm, summarize };
}

/** Entries before `index` are left empty: the array keeps its positions but not their contents. */
function only<T>(entries: readonly T[] | undefined, index: number): T[] | undefined {
  if (!entries || index >= entries.length) return entries ? [] : undefined;
  const out = new Array<T>(index + 1);
  out[index] = entries[index];
  return out;
}

/**
 * The model settings one call needs. A scripted model's script lives in the agent file; each
 * call carries only its own entry, so activity inputs in the history stay the same size however
 * long the script is. Other interfaces pass through unchanged.
 */
export function modelForCall(model: ModelSettings, position: CallPosition): ModelSettings {
  const script = model.script;
  if (model.interface !== 'scripted' || !script) return model;
  switch (position.role) {
    case 'planner':
      return { ...model, script: { planner: only(script.planner, position.call) } };
    case 'executor': {
      const turns = script.executor?.[position.step];
      const step = turns ? only(turns, position.iteration) : undefined;
      return { ...model, script: { executor: step ? Object.assign(new Array<typeof step>(position.step + 1), { [position.step]: step }) : [] } };
    }
    case 'task':
      return { ...model, script: { [position.kind]: only(script[position.kind], position.call) } };
    case 'summary':
      return { ...model, script: { summary: script.summary?.slice(0, 1) } };
    default:
      return model;
  }
}

/** The executor model settings of one step: for a scripted model, that step's turns only. */
export function modelForStep(model: ModelSettings, step: number): ModelSettings {
  const turns = model.script?.executor;
  if (model.interface !== 'scripted' || !turns) return model;
  return { ...model, script: { executor: only(turns, step) } };
}
