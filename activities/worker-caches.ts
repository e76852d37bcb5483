/**
 * The worker's caches of what never changes once written: completed steps per workflow
 * execution, prompt material, and each executor step's opening messages. Model calls read
 * memory through them.
 */
import { Context } from '@temporalio/activity';
import type { ExecutorStepMemory } from '../core/activity-contract';
import type { ChatMessage } from '../core/llm-types';
import { executorOpening, type CompletedStep } from '../core/template';
import { textDigest } from '../core/text';
import { allFound, type MemoryStore } from '../stores/store';
import { directReads, loadExecutorHistory } from './memory';

/** A bounded map that forgets its oldest entry first: the worker's caches of what never changes. */
function boundedCache<K, V>(load: (key: K) => Promise<V>, keyOf: (key: K) => string, max: number) {
  const cache = new Map<string, V>();
  return {
    async get(key: K): Promise<V> {
      const id = keyOf(key);
      const hit = cache.get(id);
      if (hit !== undefined) return hit;
      const value = await load(key);
      remember(id, value);
      return value;
    },
    /** Keeps what this worker just wrote (so its first read costs no command). */
    remember(key: K, value: V): void {
      remember(keyOf(key), value);
    },
  };
  function remember(id: string, value: V): void {
    if (!cache.has(id) && cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(id, value);
  }
}

/**
 * The answers of the tool calls this worker made, as the model sees them, by interaction ID: the
 * next turn of the step (most often on this worker) sends them without reading memory, when the
 * workflow's digest says it received this very answer (a retried call elsewhere may have
 * answered otherwise).
 */
export function toolAnswerCache(max = 2_000) {
  const cache = new Map<string, string>();
  return {
    remember(id: string, answer: string): void {
      cache.delete(id);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(id, answer);
    },
    /** The answer this worker gave, when its digest is `digest`. */
    matching(id: string, digest: string | undefined): string | undefined {
      const answer = cache.get(id);
      return answer !== undefined && digest !== undefined && textDigest(answer) === digest ? answer : undefined;
    },
  };
}

/**
 * Completed steps (earlier exchanges, step traces, executor step records) by interaction ID,
 * cached in the worker per workflow execution of their run: once a step is saved it does not
 * change in that execution (a retried save writes what the step returned), while a reset or
 * continue-as-new is a new execution that reads memory again. The worker remembers the steps it
 * saves, so the planner and the next executor steps read memory only for steps another worker
 * ran.
 */
export function completedStepCache(memory: MemoryStore, max = 20_000) {
  const cache = new Map<string, CompletedStep>();
  const key = (run: string, id: string) => `${run}/${id}`;
  const remember = (run: string, id: string, step: CompletedStep) => {
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(key(run, id), step);
  };
  /** The steps by ID (null where memory has none), cached under `run`: the current activity's execution unless named. */
  const find = async (ids: readonly string[], run = currentRunId()): Promise<(CompletedStep | null)[]> => {
    const known = new Map<string, CompletedStep>();
    for (const id of ids) {
      const hit = run === undefined ? undefined : cache.get(key(run, id));
      if (hit) known.set(id, hit);
    }
    const missing = [...new Set(ids.filter((id) => !known.has(id)))];
    (missing.length === 0 ? [] : await memory.findInteractions(missing)).forEach((doc, i) => {
      if (!doc) return;
      const step = { step: doc.input, result: doc.response };
      known.set(missing[i], step);
      if (run !== undefined) remember(run, missing[i], step);
    });
    return ids.map((id) => known.get(id) ?? null);
  };
  return {
    find,
    /** The steps by ID; throws naming the IDs memory does not have. */
    get: async (ids: readonly string[]): Promise<CompletedStep[]> => allFound(ids, await find(ids)),
    /** A step this worker saved, under the IDs it saved it as. */
    remember: (run: string, ids: readonly string[], step: CompletedStep) => ids.forEach((id) => remember(run, id, step)),
  };
}

/** The workflow execution the current activity works for (undefined outside an activity). */
function currentRunId(): string | undefined {
  try {
    return Context.current().info.workflowExecution?.runId;
  } catch {
    return undefined;
  }
}

/** Prompt material by ID, cached in the worker: a run's material never changes. */
export function promptMaterialCache(memory: MemoryStore, max = 500) {
  return boundedCache((id: string) => memory.promptMaterial(id), (id) => id, max);
}

/** Parts of long runs' earlier steps (written once, never changed). */
export function earlierStepsCache(memory: MemoryStore, max = 500) {
  return boundedCache((id: string) => memory.earlierSteps(id), (id) => id, max);
}

/**
 * The opening messages of an executor step's turns: its earlier steps (question → answer) and
 * the step. Cached per step of a run's execution, so every turn of a step sees the same earlier
 * steps and only the first reads them (a reset run executes its steps anew).
 */
export function executorHistoryCache(memory: MemoryStore, steps: ReturnType<typeof completedStepCache>, max = 1_000) {
  // Which run created an executor memory never changes.
  const firstRuns = boundedCache(async (id: string) => ({ first_run: (await memory.memory(id))?.first_run }), (id) => id, max);
  const firstRun = async (id: string) => (await firstRuns.get(id)).first_run;
  const openings = boundedCache(
    async (m: ExecutorStepMemory): Promise<ChatMessage[]> => {
      // The run's earlier steps from the worker's cache of its execution (memory when it has no run_id).
      const reads = m.run_id === undefined ? { ...directReads(memory), firstRun } : { steps: (ids: readonly string[]) => steps.find(ids, m.run_id), firstRun };
      const earlier = await loadExecutorHistory(
        memory,
        { executor_agent_memory_id: m.ids.executor_agent_memory_id, limit: m.history_limit, before_step: m.step_index, ids: m.ids },
        reads,
      );
      return executorOpening(earlier, m.step);
    },
    (m) => `${m.run_id ?? ''}/${m.ids.executor_agent_memory_id}/${m.step_index}/${m.history_limit}/${m.step}`,
    max,
  );
  return {
    get: openings.get,
    /** An executor memory this worker's run just created: `firstRun` created it. */
    created: (id: string, first: string) => firstRuns.remember(id, { first_run: first }),
  };
}

/** The provider state executor turns carry to the next (activities/carried-turns.ts): written once, never changed. */
export function carriedTurnCache(memory: MemoryStore, max = 2_000) {
  return boundedCache((id: string) => memory.carriedTurn(id), (id) => id, max);
}
