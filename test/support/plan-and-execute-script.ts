/** Scripted plan_and_execute agents for tests and recorded scenarios: plan steps, calculator turns, verdicts. */

/** A plan_and_execute agent on the scripted model with the calculator. */
export function planAndExecuteAgent(script: Record<string, unknown>) {
  return { name: 'pae-fork', type: 'plan_and_execute', llm: { interface: 'scripted', script }, tools: [{ type: 'CalculatorTool' }] };
}

/** A plan step whose primary tool is `tool` (the calculator by default). */
export function planStep(goal: string, tool = 'CalculatorTool') {
  return { goal, primary_tools: [tool], success_criteria: 'a number' };
}

/** An executor step's turns: a calculator call, then the answer. */
export function calculatorTurns(expression: string, answer: string) {
  return [{ tool_calls: [{ name: 'CalculatorTool', input: { expression } }] }, { content: answer }];
}

/** The StepVerifier's answer. */
export function verdict(met: boolean) {
  return JSON.stringify({ met, reason: met ? 'a number' : 'not the right number' });
}

/** The viability check's answer: keep the plan. */
export function onTrack() {
  return JSON.stringify({ replan: false, confidence: 0.1, reason: 'on track' });
}
