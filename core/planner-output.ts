/**
 * Parsing of the planner's answer (`{"steps": [...], "result": "..."}`).
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */

import { extractJson } from './json-in-text';
import { clip } from './text';

/** Outcome of {@link parsePlannerOutput}. */
export type PlannerOutput =
  | {
      ok: true;
      /** Steps still to execute; empty when `result` is set. */
      steps: string[];
      /** The final result; empty while there are steps to execute. */
      result: string;
      /**
       * With `groups`: how many of the first steps form the next batch — the planner's first
       * group of independent steps, or 1 when the plan starts with a single step.
       */
      batch?: number;
    }
  | {
      ok: false;
      /** What is wrong, on one line (fit for a retry prompt and a failure message). */
      error: string;
    };

/**
 * Parses the planner LLM's answer.
 *
 * Accepts the JSON object alone, wrapped in a markdown fence (```` ```json … ``` ````), or
 * surrounded by prose (the text from the first `{` to the last `}` is tried). A missing `steps`
 * counts as `[]` and a missing `result` as `""`; blank steps are dropped. A non-empty `result`
 * wins: it is returned with no steps. An answer with neither steps nor a result is an error,
 * as is a wrong type (`steps` not an array of strings, `result` not a string).
 *
 * Never throws: errors are returned as one line, ready for a retry prompt.
 *
 * @param raw - the planner's answer text
 */
export function parsePlannerOutput(raw: string, options: { groups?: boolean } = {}): PlannerOutput {
  if (raw.trim() === '') return { ok: false, error: 'planner output is empty' };
  const extracted = extractJson(raw, 'object', 'planner output');
  if (!extracted.ok) return extracted;
  const value = extracted.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `planner output is not a JSON object: "${clip(raw)}"` };
  }
  const obj = value as Record<string, unknown>;
  if (!('steps' in obj) && !('result' in obj)) {
    return { ok: false, error: 'planner output has neither a "steps" nor a "result" field' };
  }

  let rawSteps = obj.steps ?? [];
  // With groups, an entry may be an array of independent steps; the first one is the next batch.
  let batch: number | undefined;
  if (options.groups && Array.isArray(rawSteps)) {
    const entries = rawSteps as unknown[];
    const isGroup = (e: unknown): e is unknown[] => Array.isArray(e);
    if (entries.every((e) => typeof e === 'string' || (isGroup(e) && e.every((s) => typeof s === 'string')))) {
      const first = entries.find((e) => (isGroup(e) ? e.some((s) => (s as string).trim() !== '') : (e as string).trim() !== ''));
      batch = isGroup(first) ? first.filter((s) => (s as string).trim() !== '').length : 1;
      rawSteps = entries.flat();
    } else {
      return { ok: false, error: '"steps" must be an array of strings and arrays of strings' };
    }
  }
  if (!Array.isArray(rawSteps) || !rawSteps.every((s): s is string => typeof s === 'string')) {
    return { ok: false, error: '"steps" must be an array of strings' };
  }
  const rawResult = obj.result ?? '';
  if (typeof rawResult !== 'string') {
    return { ok: false, error: '"result" must be a string' };
  }

  if (rawResult.trim() !== '') return { ok: true, steps: [], result: rawResult };
  const steps = rawSteps.filter((s) => s.trim() !== '');
  if (steps.length === 0) return { ok: false, error: 'planner returned neither steps nor a result' };
  return { ok: true, steps, result: '', ...(batch !== undefined ? { batch } : {}) };
}
