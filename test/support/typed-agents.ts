/**
 * Scripted agent files of every agent type, of any length, for tests of what the run kernel
 * gives all four: step k adds k to a running total with the calculator, so the answer needs
 * every step, and each type's own calls (mapping, decisions, assessments, viability checks,
 * final answer) are scripted to carry the run to the end.
 */
import type { AgentType } from '../../core/agent';
import { calculatorTurns } from './script';

export const AGENT_TYPES: AgentType[] = ['plan_execute_and_reflect', 'step_by_step', 'todo_list', 'plan_and_execute'];

export interface TypedAgentOptions {
  /** Tool calls of every step use this tool type instead of the calculator (e.g. a gate tool). */
  toolType?: string;
  /** Answers to put before the first planning answer (malformed ones, to exercise parse retries). */
  badPlans?: string[];
  parameters?: Record<string, unknown>;
}

const total = (k: number) => (k * (k + 1)) / 2;

/** Executor turns of step k (1-based): a tool call, then the running total. */
function stepTurns(k: number, toolType?: string): unknown[] {
  const answer = `total ${total(k)}`;
  return toolType ? [{ tool_calls: [{ name: toolType, input: { label: `step ${k}` } }] }, { content: answer }] : calculatorTurns(`${total(k - 1)}+${k}`, answer);
}

/** The response the run of {@link typedAgent} with `steps` steps ends with. */
export function expectedResponse(type: AgentType, steps: number): string {
  return type === 'plan_execute_and_reflect' || type === 'plan_and_execute' ? `the total is ${total(steps)}` : `total ${total(steps)}`;
}

/** A scripted agent of `type` whose run executes `steps` steps (or todos). */
export function typedAgent(type: AgentType, steps: number, o: TypedAgentOptions = {}): Record<string, unknown> {
  const ks = Array.from({ length: steps }, (_, i) => i + 1);
  const executor = ks.map((k) => stepTurns(k, o.toolType));
  const bad = o.badPlans ?? [];
  const tool = o.toolType ?? 'CalculatorTool';
  let script: Record<string, unknown>;
  switch (type) {
    case 'plan_execute_and_reflect':
      script = {
        planner: [
          ...bad,
          ...ks.map((k) => JSON.stringify({ steps: ks.slice(k - 1).map((j) => `add ${j}`), result: '' })),
          JSON.stringify({ steps: [], result: expectedResponse(type, steps) }),
        ],
        executor,
      };
      break;
    case 'step_by_step':
      script = {
        planner: ['add the numbers one by one'],
        mapping: [...bad, JSON.stringify(ks.map((k) => ({ stepNo: k, name: `add ${k}`, toolId: tool, resultName: `total${k}` })))],
        executor,
        decision: ks.map(() => 'Decision: NO'),
      };
      break;
    case 'todo_list':
      script = {
        planner: [...bad, JSON.stringify(ks.map((k) => ({ stepNo: k, description: `add ${k}`, successCriteria: 'a total', availableToolIds: [tool] })))],
        executor,
        completion: ks.map(() => 'Decision: COMPLETED'),
        goal: ks.map((k) => (k < steps ? 'CONTINUE_NEEDED' : 'GOAL_ACHIEVED')),
      };
      break;
    case 'plan_and_execute':
      script = {
        planner: [...bad, JSON.stringify(ks.map((k) => ({ goal: `add ${k}`, primary_tools: [tool], success_criteria: 'a total' })))],
        executor,
        verification: ks.map(() => JSON.stringify({ met: true, reason: 'a total' })),
        viability: ks.map(() => JSON.stringify({ replan: false, confidence: 0.1, reason: 'on track' })),
        final: [expectedResponse(type, steps)],
      };
      break;
  }
  return {
    name: `kernel-${type.replace(/_/g, '-')}`,
    type,
    ...(type === 'step_by_step' ? { goal: 'the total' } : {}),
    llm: { interface: 'scripted', script },
    tools: [{ type: tool }],
    ...(o.parameters ? { parameters: o.parameters } : {}),
  };
}
