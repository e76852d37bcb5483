/**
 * The worker's cache of completed steps: a planner call reads from memory only the steps new to
 * its workflow execution; another execution (a reset, continue-as-new) reads them again.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { completedStepCache } from '../../../activities';
import type { MemoryStore } from '../../../memory/store';

function fakeMemory() {
  const asked: string[][] = [];
  const memory = {
    async interactionsByIds(ids: readonly string[]) {
      asked.push([...ids]);
      return ids.map((id) => ({ input: `step ${id}`, response: `result ${id}` }));
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
});
