import { compactStepIds, completedStepIds, stepTraceId } from '../../../core/memory-ids';

const root = 'root-1';
const traces = (n: number) => Array.from({ length: n }, (_, unit) => stepTraceId(root, unit));

describe('completed-step IDs in prompt references', () => {
  it("carries this run's steps 1…N as a count after the earlier exchanges, and expands to the same IDs", () => {
    const ids = ['earlier-a', 'earlier-b', ...traces(500)];
    const refs = compactStepIds(ids, 2, root);
    expect(refs).toEqual({ completed_step_ids: ['earlier-a', 'earlier-b'], run_steps: { trace_root: root, count: 500 } });
    expect(completedStepIds(refs)).toEqual(ids);
    expect(JSON.stringify(refs).length).toBeLessThan(120);
  });

  it('keeps every ID when the steps are not steps 1…N in order (or the count of earlier exchanges is unknown)', () => {
    const outOfOrder = [stepTraceId(root, 1), stepTraceId(root, 0)];
    expect(compactStepIds(outOfOrder, 0, root)).toEqual({ completed_step_ids: outOfOrder });
    const withHistory = ['earlier-a', ...traces(2)];
    expect(compactStepIds(withHistory, 0, root)).toEqual({ completed_step_ids: withHistory });
    expect(completedStepIds({ completed_step_ids: withHistory })).toEqual(withHistory);
  });

  it('names no run steps before the first step', () => {
    expect(compactStepIds(['earlier-a'], 1, root)).toEqual({ completed_step_ids: ['earlier-a'] });
  });

  it('leaves out an empty list of IDs (a run without earlier exchanges), which reads as none', () => {
    expect(compactStepIds(traces(3), 0, root)).toEqual({ run_steps: { trace_root: root, count: 3 } });
    expect(compactStepIds([], 0, root)).toEqual({});
    expect(completedStepIds({ run_steps: { trace_root: root, count: 3 } })).toEqual(traces(3));
    expect(completedStepIds({})).toEqual([]);
  });
});
