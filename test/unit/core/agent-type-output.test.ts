/** Parsing the model answers of the step_by_step, todo_list and plan_and_execute agents. */
import {
  findReplanKeyword,
  numberAdaptiveSteps,
  parseAiSteps,
  parseCompletion,
  parseGoalDecision,
  parsePlanSteps,
  parseStepDecision,
  parseTodos,
  parseViability,
  planStatistics,
  renumberAdapted,
  type StepResult,
} from '../../../core/agent-types';
import { extractJson } from '../../../core/json-in-text';
import { EXECUTION_PROMPT_TEMPLATE, fill, instructionBlock } from '../../../core/agent-types';

const TOOLS = ['CalculatorTool', 'SearchCollectionTool'];

describe('extractJson (core/json-in-text)', () => {
  it('reads a fenced block, bare JSON, or JSON inside prose', () => {
    expect(extractJson('```json\n[1, 2]\n```')).toEqual({ ok: true, value: [1, 2] });
    expect(extractJson('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('Here is the plan: [{"a": 1}] hope it helps', 'array')).toEqual({ ok: true, value: [{ a: 1 }] });
  });

  it('says what is wrong in one line', () => {
    const r = extractJson('no json\nat all');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^answer is not valid JSON \(.*\): "no json at all"$/);
  });
});

describe('parseAiSteps', () => {
  it('accepts the AiStep fields, numbers given as strings and a wrapping object', () => {
    const r = parseAiSteps('{"steps": [{"stepNo": "1", "name": "n", "toolId": "CalculatorTool", "next": -1, "previous": 0, "resultName": "r"}]}', TOOLS);
    expect(r).toEqual({ ok: true, value: [{ stepNo: 1, name: 'n', toolId: 'CalculatorTool', next: -1, previous: 0, resultName: 'r' }] });
  });

  it('reports an unknown toolId as "Tool not found"', () => {
    const r = parseAiSteps('[{"stepNo": 2, "name": "shred", "toolId": "Shredder"}]', TOOLS);
    expect(r).toMatchObject({ ok: false, toolNotFound: 'Shredder', error: 'Tool not found: Shredder (step 2 "shred"); the agent\'s tools: CalculatorTool, SearchCollectionTool' });
  });

  it('names the field path of a bad step', () => {
    expect(parseAiSteps('[{"stepNo": 1, "name": "n"}]', TOOLS)).toMatchObject({ ok: false, error: expect.stringMatching(/^steps\[0\]\.toolId: /) });
    expect(parseAiSteps('[]', TOOLS)).toEqual({ ok: false, error: 'the list of steps is empty' });
  });
});

describe('parseStepDecision', () => {
  it.each([
    ['Decision: NO', 'NO'],
    ['The goal is achieved.\nDecision: COMPLETE', 'COMPLETE'],
    ['**Decision:** yes', 'YES'],
    ['COMPLETE - goal achieved', 'COMPLETE'],
  ])('%j → %s', (raw, decision) => {
    expect(parseStepDecision(raw)).toMatchObject({ ok: true, value: { decision } });
  });

  it('takes the steps to insert from a YES answer', () => {
    const r = parseStepDecision('Decision: YES\n[{"stepNo": 1, "name": "check", "toolId": "CalculatorTool"}]');
    expect(r).toEqual({ ok: true, value: { decision: 'YES', steps: [{ stepNo: 1, name: 'check', toolId: 'CalculatorTool' }] } });
  });

  it('fails on an answer without a decision word', () => {
    expect(parseStepDecision('I am not sure')).toMatchObject({ ok: false });
  });
});

it('numbers adaptive steps stepNo + 1000, skipping numbers in use', () => {
  const steps = [1, 2].map((n) => ({ stepNo: n, name: `a${n}`, toolId: 'CalculatorTool' }));
  expect(numberAdaptiveSteps(steps, 2, new Set([1, 2, 3])).map((s) => s.stepNo)).toEqual([1002, 1003]);
  expect(numberAdaptiveSteps(steps, 2, new Set([1002])).map((s) => s.stepNo)).toEqual([1003, 1004]);
});

describe('parseTodos', () => {
  const todo = { stepNo: 1, description: 'd', successCriteria: 'c' };
  it('defaults maxIterationsPerTodo to the given default when missing or not positive', () => {
    const r = parseTodos(JSON.stringify([todo, { ...todo, stepNo: 2, maxIterationsPerTodo: 0 }, { ...todo, stepNo: 3, maxIterationsPerTodo: 2 }]), TOOLS, 5);
    expect(r.ok && r.value.map((t) => [t.maxIterationsPerTodo, t.availableToolIds])).toEqual([
      [5, []],
      [5, []],
      [2, []],
    ]);
  });

  it('reports an unknown tool in availableToolIds', () => {
    expect(parseTodos(JSON.stringify([{ ...todo, availableToolIds: ['Nope'] }]), TOOLS, 5)).toMatchObject({ ok: false, error: expect.stringMatching(/^Tool not found: Nope \(todo 1\)/) });
  });
});

describe('completion and goal assessments', () => {
  it.each([
    ['Decision: COMPLETED', true, ''],
    ['NOT_COMPLETED\nThe unit is missing.', false, 'The unit is missing.'],
    ['Decision: [NOT_COMPLETED] - only an estimate', false, 'only an estimate'],
    ['There is no gap left. COMPLETED', true, ''],
    ['YES', true, ''],
  ])('%j → completed %s', (raw, completed, feedback) => {
    expect(parseCompletion(raw)).toEqual({ ok: true, value: { completed, feedback } });
  });

  it('reads GOAL_ACHIEVED and CONTINUE_NEEDED, preferring the labelled decision', () => {
    expect(parseGoalDecision('Decision: GOAL_ACHIEVED')).toEqual({ ok: true, value: 'GOAL_ACHIEVED' });
    expect(parseGoalDecision('Not GOAL_ACHIEVED yet.\nDecision: CONTINUE_NEEDED')).toEqual({ ok: true, value: 'CONTINUE_NEEDED' });
    expect(parseGoalDecision('maybe')).toMatchObject({ ok: false });
  });
});

describe('plan_and_execute plans', () => {
  it('numbers steps without step_num by position and keeps given numbers', () => {
    const r = parsePlanSteps('[{"goal": "a", "primary_tools": "CalculatorTool"}, {"step_num": 7, "goal": "b", "primary_tools": [], "success_criteria": "s", "context": "c"}]');
    expect(r).toEqual({
      ok: true,
      value: [
        { step_num: 1, goal: 'a', primary_tools: ['CalculatorTool'], success_criteria: '' },
        { step_num: 7, goal: 'b', primary_tools: [], success_criteria: 's', context: 'c' },
      ],
    });
  });

  it('renumbers an adapted plan after the kept steps', () => {
    const kept = [1, 2].map((n) => ({ step_num: n, goal: `k${n}`, primary_tools: [], success_criteria: '' }));
    const adapted = [5, 1].map((n) => ({ step_num: n, goal: `n${n}`, primary_tools: [], success_criteria: '' }));
    expect(renumberAdapted(kept, adapted).map((s) => `${s.step_num}:${s.goal}`)).toEqual(['1:k1', '2:k2', '3:n5', '4:n1']);
  });

  it('reads the viability verdict and finds re-planning keywords', () => {
    expect(parseViability('```json\n{"replan": "true", "confidence": "0.8", "reason": "r"}\n```')).toEqual({ ok: true, value: { replan: true, confidence: 0.8, reason: 'r' } });
    expect(parseViability('{"replan": true, "confidence": 3}')).toMatchObject({ ok: false, error: expect.stringMatching(/^viability\.confidence: /) });
    expect(findReplanKeyword('The File Was NOT FOUND', ['missing', 'not found'])).toBe('not found');
    expect(findReplanKeyword('all good', ['missing'])).toBeUndefined();
  });

  it('computes the run statistics', () => {
    const r = (success: boolean, attempts: number, tool_used: string): StepResult => ({ step_num: 1, goal: 'g', success, attempts, tool_used, observation: '' });
    expect(planStatistics([r(true, 1, 'B'), r(false, 3, 'A'), r(true, 2, 'B'), r(true, 1, '')])).toEqual({
      total_steps: 4,
      successful_steps: 3,
      failed_steps: 1,
      success_rate: 75,
      total_attempts: 7,
      unique_tools: ['A', 'B'],
    });
    expect(planStatistics([r(true, 1, 'A'), r(false, 1, 'A'), r(false, 1, 'A')]).success_rate).toBe(33.3);
    expect(planStatistics([]).success_rate).toBe(0);
  });
});

it("fills IvyAgent's EXECUTION_PROMPT_TEMPLATE with the instructions block as the seed lays it out", () => {
  const prompt = fill(EXECUTION_PROMPT_TEMPLATE, {
    goal: 'G',
    executionInstructions: instructionBlock(['verify each step']),
    originalQuery: 'Q',
    currentStepName: 'S',
    latestResult: 'R',
  });
  expect(prompt).toBe(
    'GOAL: G\n\nverify each step\n\nCURRENT SITUATION:\nOriginal Query: Q\nCurrent Step: S\nLatest Result: R\n\nANALYSIS REQUIRED:\n1. Is the goal achieved?\n2. Should we continue with current plan or adapt it?\n3. Are there execution instruction triggers?\n\nDecision: [YES - update plan | NO - continue | COMPLETE - goal achieved]\n',
  );
  expect(fill(EXECUTION_PROMPT_TEMPLATE, { goal: 'G', executionInstructions: instructionBlock([]) })).toContain('GOAL: G\n\nCURRENT SITUATION:');
});
