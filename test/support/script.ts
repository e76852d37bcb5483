/**
 * Scripted model answers for tests and the recorded scenarios: calculator turns, plan_and_execute
 * plan steps, verdicts and viability checks. Each is built here only, so a script written with
 * them is the same, to the byte, wherever it is written.
 */

/** An executor turn that calls the calculator. */
export function calculatorCall(expression: string) {
  return { tool_calls: [{ name: 'CalculatorTool', input: { expression } }] };
}

/** An executor step's turns: a calculator call, then the answer. */
export function calculatorTurns(expression: string, answer: string) {
  return [calculatorCall(expression), { content: answer }];
}

/** An agent file's other fields (`extra`), with the calculator as its tool. */
export function withCalculator(extra: Record<string, unknown> = {}) {
  return { ...extra, tools: [{ type: 'CalculatorTool' }] };
}

/** A plan_and_execute agent on the scripted model with the calculator. */
export function planAndExecuteAgent(script: Record<string, unknown>) {
  return { name: 'pae-fork', type: 'plan_and_execute', llm: { interface: 'scripted', script }, tools: [{ type: 'CalculatorTool' }] };
}

/** A plan_and_execute plan step with the calculator as its primary tool and a number as its criteria; `extra` adds or replaces fields. */
export function planStep(goal: string, extra: Record<string, unknown> = {}) {
  return { goal, primary_tools: ['CalculatorTool'], success_criteria: 'a number', ...extra };
}

/** The StepVerifier's answer. */
export function verdict(met: boolean) {
  return JSON.stringify({ met, reason: met ? 'a number' : 'not the right number' });
}

/** The viability check's answer: keep the plan. */
export function onTrack(confidence = 0.1, reason = 'on track') {
  return JSON.stringify({ replan: false, confidence, reason });
}

/** A plan-execute-reflect script of one step: plans `step A` (its result `result A`), then answers `the answer`. */
export const ONE_STEP_SCRIPT = {
  planner: [JSON.stringify({ steps: ['step A'], result: '' }), JSON.stringify({ steps: [], result: 'the answer' })],
  executor: [[{ content: 'result A' }]],
};

const long = (tag: string, chars: number) => `${tag} ${'lorem ipsum '.repeat(Math.ceil(chars / 12)).slice(0, chars)}`;

/**
 * A plan_execute_and_reflect agent of four steps whose answers are long (2,500 characters) and
 * whose step 1 thinks aloud over five calculator calls: with a `context_window` of 2,000 tokens
 * in `llm`, its later planner calls and step 1's later turns would not fit as they are. Its
 * compaction answer is `SUMMARY: the earlier work, in short`; it answers `all four done`.
 */
export function longTalker(llm: Record<string, unknown>) {
  const thinking = [1, 2, 3, 4, 5].map((i) => ({ content: long(`thought-${i}`, 1_500), tool_calls: [{ name: 'CalculatorTool', input: { expression: `${i}+${i}` } }] }));
  const plan = (...steps: string[]) => JSON.stringify({ steps, result: '' });
  return {
    name: 'long-talker',
    type: 'plan_execute_and_reflect',
    tools: [{ type: 'CalculatorTool' }],
    llm: {
      interface: 'scripted',
      ...llm,
      script: {
        planner: [plan('s1', 's2', 's3', 's4'), plan('s2', 's3', 's4'), plan('s3', 's4'), plan('s4'), JSON.stringify({ steps: [], result: 'all four done' })],
        executor: [[...thinking, { content: long('result-1', 2_500) }], [{ content: long('result-2', 2_500) }], [{ content: long('result-3', 2_500) }], [{ content: long('result-4', 2_500) }]],
        compaction: ['SUMMARY: the earlier work, in short'],
      },
    },
  };
}
