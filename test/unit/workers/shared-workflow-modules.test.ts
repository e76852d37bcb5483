/**
 * The modules all workflows of a worker share (SHARED_WORKFLOW_MODULES): the SDK loads them once
 * and freezes their exports, so what workflow code calls in them must still work frozen.
 */
import { z } from 'zod';
import { SHARED_WORKFLOW_MODULES } from '../../../workers/workflow-source';

/** As the SDK's reusable V8 context freezes shared modules: objects' own properties recursively; functions themselves only. */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
  seen.add(value);
  if (typeof value === 'object') {
    for (const key of Reflect.ownKeys(value)) {
      try {
        deepFreeze((value as Record<string | symbol, unknown>)[key], seen);
      } catch {
        // as the SDK: some objects (typed arrays) cannot be frozen
      }
    }
  }
  Object.freeze(value);
}

/** A fresh copy of the shared modules, frozen as the SDK freezes them. */
async function frozenSharedModules(): Promise<Record<string, Record<string, unknown>>> {
  const modules: Record<string, Record<string, unknown>> = {};
  await jest.isolateModulesAsync(async () => {
    for (const path of SHARED_WORKFLOW_MODULES) modules[path] = (await import(path)) as Record<string, unknown>;
  });
  for (const exports of Object.values(modules)) deepFreeze(exports);
  return modules;
}

describe('modules shared among workflows', () => {
  it('export no schema instance, which zod would write into on its first parse', async () => {
    const schemas: string[] = [];
    for (const path of SHARED_WORKFLOW_MODULES.filter((p) => p !== 'zod')) {
      const exports = (await import(path)) as Record<string, unknown>;
      schemas.push(...Object.keys(exports).filter((name) => exports[name] instanceof z.ZodType).map((name) => `${name} in ${path}`));
    }
    expect(schemas).toEqual([]);
  });

  it('parse every agent type’s model answers with their exports frozen', async () => {
    const modules = await frozenSharedModules();
    const agentTypes = modules[require.resolve('../../../core/agent-types')] as typeof import('../../../core/agent-types');
    const plan = agentTypes.parsePlanSteps('[{"goal": "add", "primary_tools": "CalculatorTool", "depends_on": ["1"]}, {"step_num": "2", "goal": "check"}]');
    expect(plan).toEqual({ ok: true, value: [expect.objectContaining({ step_num: 1, goal: 'add', primary_tools: ['CalculatorTool'], depends_on: [1] }), expect.objectContaining({ step_num: 2, goal: 'check' })] });
    expect(agentTypes.parseViability('{"replan": "true", "confidence": "0.4"}')).toEqual({ ok: true, value: { replan: true, confidence: 0.4, reason: '' } });
    expect(agentTypes.parseAiSteps('[{"stepNo": "1", "name": "look up", "toolId": "Search", "next": 2}]', ['Search'])).toMatchObject({ ok: true, value: [{ stepNo: 1, toolId: 'Search', next: 2 }] });
    expect(agentTypes.parseTodos('[{"description": "d", "successCriteria": "c", "stepNo": 1}]', [], 3)).toMatchObject({ ok: true, value: [{ stepNo: 1, availableToolIds: [], maxIterationsPerTodo: 3 }] });
    expect(agentTypes.parsePlanSteps('[{"goal": ""}]')).toMatchObject({ ok: false, error: expect.stringContaining('plan steps[0].goal') });
  });
});
