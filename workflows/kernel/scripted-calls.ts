/**
 * What a scripted model's call carries: only its own script entry, so activity inputs in the
 * history stay the same size however long the script is.
 */
import type { ModelSettings } from '../../core/activity-contract';
import type { CallPosition } from '../../core/llm-types';

/**
 * The entry at `index` alone, at its position: an array-like whose JSON is that one entry and
 * the length, however far into the script the call is (a sparse array would serialize a `null`
 * for every earlier entry).
 */
function only<T>(entries: ArrayLike<T> | undefined, index: number): ArrayLike<T> | undefined {
  if (!entries || index >= entries.length) return entries ? [] : undefined;
  return { length: index + 1, [index]: entries[index] };
}

/**
 * The model settings one call needs. A scripted model's script lives in the agent file; each
 * call carries only its own entry, so activity inputs in the history stay the same size however
 * long the script is. Other interfaces pass through unchanged.
 */
export function modelForCall(model: ModelSettings, position: CallPosition): ModelSettings {
  const script = model.script;
  if (model.interface !== 'scripted' || !script) return model;
  return withCompaction(script, ownEntry(model, script, position));
}

/** A script's compaction answer goes with every call that may need it (only scripts that have one: other calls' inputs are as before). */
function withCompaction(script: NonNullable<ModelSettings['script']>, model: ModelSettings): ModelSettings {
  return script.compaction ? { ...model, script: { ...model.script, compaction: only(script.compaction, 0) } } : model;
}

function ownEntry(model: ModelSettings, script: NonNullable<ModelSettings['script']>, position: CallPosition): ModelSettings {
  switch (position.role) {
    case 'planner':
      return { ...model, script: { planner: only(script.planner, position.call) } };
    case 'executor': {
      const turns = script.executor?.[position.step];
      const step = turns ? only(turns, position.iteration) : undefined;
      return { ...model, script: { executor: step ? { length: position.step + 1, [position.step]: step } : [] } };
    }
    case 'task':
      return { ...model, script: { [position.kind]: only(script[position.kind], position.call) } };
    case 'summary':
      return { ...model, script: { summary: script.summary ? only(script.summary, 0) : undefined } };
    default:
      return model;
  }
}

/** The executor model settings of one step: for a scripted model, that step's turns only. */
export function modelForStep(model: ModelSettings, step: number): ModelSettings {
  const turns = model.script?.executor;
  if (model.interface !== 'scripted' || !turns) return model;
  return withCompaction(model.script!, { ...model, script: { executor: only(turns, step) } });
}
