/**
 * Scripted step_by_step agents for its integration tests: a mapped step (its analysis, result
 * and successor derived from its number and name), and the agent that computes with the
 * calculator under a goal and instructions.
 */
import { runInput, scriptedAgent } from './harness';

/** A step of the step list the mapping call answers; after step 3 the run finalizes. */
export const mappedStep = (stepNo: number, name: string, resultName: string, toolId = 'CalculatorTool') => ({
  stepNo,
  name,
  analysis: `why ${name}`,
  toolId,
  previous: stepNo - 1,
  next: stepNo === 3 ? -1 : stepNo + 1,
  resultName,
  resultDescription: `the ${resultName}`,
});

/** The run input of a step_by_step agent with `script`, the calculator, a goal and instructions. */
export const stepByStepAgent = (script: Record<string, unknown>, question: string, parameters: Record<string, unknown> = {}) =>
  runInput(
    scriptedAgent(script as never, {
      type: 'step_by_step',
      goal: 'Compute the requested number exactly',
      tools: [{ type: 'CalculatorTool' }],
      instructions: [
        { type: 'planning', content: 'Plan one calculation per step.' },
        { type: 'execution', content: 'Double-check every number.' },
      ],
      parameters,
    }),
    question,
  );
