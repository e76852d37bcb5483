/**
 * The worker's cache of completed steps: a planner call or an executor step reads from memory
 * only the steps new to its run's workflow execution, and none this worker saved; another
 * execution (a reset, continue-as-new) reads them again.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { completedStepCache, executorHistoryCache } from '../../../activities';
import type { ExecutorStepMemory } from '../../../core/activity-contract';
import { executorStepId, type MemoryIds } from '../../../core/memory-ids';
import type { MemoryStore } from '../../../stores/store';

/** Memory holding every interaction but those whose ID starts with `missing`; records what was asked. */
function fakeMemory() {
  const asked: string[][] = [];
  const memory = {
    async findInteractions(ids: readonly string[]) {
      asked.push([...ids]);
      return ids.map((id) => (id.startsWith('missing') ? null : { input: `step ${id}`, response: `result ${id}` }));
    },
    async memory() {
      return { first_run: 'root-1' };
    },
  } as unknown as MemoryStore;
  return { memory, asked };
}

const inRun = (runId: string) => new MockActivityEnvironment({ workflowExecution: { workflowId: 'w', runId } });

describe('completedStepCache', () => {
  it('reads each step once per workflow execution, and again in another execution', async () => {
    const { memory, asked } = fakeMemory();
    const cache = completedStepCache(memory);
    await inRun('r1').run(() => cache.get(['a', 'b']));
    const steps = await inRun('r1').run(() => cache.get(['a', 'b', 'c']));
    expect(steps).toEqual(['a', 'b', 'c'].map((id) => ({ step: `step ${id}`, result: `result ${id}` })));
    await inRun('r2').run(() => cache.get(['a', 'b', 'c']));
    expect(asked).toEqual([['a', 'b'], ['c'], ['a', 'b', 'c']]);
  });

  it('caches nothing outside an activity', async () => {
    const { memory, asked } = fakeMemory();
    const cache = completedStepCache(memory);
    await cache.get(['a']);
    await cache.get(['a']);
    expect(asked).toEqual([['a'], ['a']]);
  });

  it('forgets the oldest entries beyond its bound', async () => {
    const { memory, asked } = fakeMemory();
    const cache = completedStepCache(memory, 2);
    await inRun('r1').run(() => cache.get(['a', 'b', 'c']));
    await inRun('r1').run(() => cache.get(['a', 'c']));
    expect(asked).toEqual([['a', 'b', 'c'], ['a']]);
  });

  it('names the steps memory does not have', async () => {
    const { memory } = fakeMemory();
    await expect(inRun('r1').run(() => completedStepCache(memory).get(['a', 'missing-1']))).rejects.toThrow('interactions not found in memory: missing-1');
  });

  it('gives an executor step its run’s earlier steps: read once per execution, never those this worker saved', async () => {
    const { memory, asked } = fakeMemory();
    const steps = completedStepCache(memory);
    const history = executorHistoryCache(memory, steps);
    const ids = { executor_agent_memory_id: 'exec', executor_agent_parent_interaction_id: 'root-1' } as MemoryIds;
    const step = (index: number, run_id?: string): ExecutorStepMemory => ({ ids, step_index: index, step: `do ${index}`, history_limit: 10, ...(run_id ? { run_id } : {}) });
    const [s0, s1, s2] = [0, 1, 2].map((i) => executorStepId(ids, i));

    await history.get(step(2, 'parent-r1'));
    expect(asked).toEqual([[s0, s1]]);
    // Step 2 was saved by this worker; step 3 reads nothing.
    steps.remember('parent-r1', [s2], { step: 'do 2', result: 'saved 2' });
    const opening = await history.get(step(3, 'parent-r1'));
    expect(asked).toEqual([[s0, s1]]);
    expect(opening.map((m) => m.content).join('\n')).toContain('saved 2');
    // Another execution of the run (a reset) reads again; an input from before run_id reads memory each time.
    await history.get(step(3, 'parent-r2'));
    await history.get(step(2));
    expect(asked).toEqual([[s0, s1], [s0, s1, s2], [s0, s1]]);
  });
});
