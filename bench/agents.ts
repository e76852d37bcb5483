/** The benchmark's scripted plan-execute-reflect runs (default prompts, scripted model). */
import { parseAgentDefinition, resolveParameters, sparseParameters } from '../core/agent';
import type { PlanExecuteReflectInput } from '../workflows';

export interface BenchRun {
  steps: number;
  /** Each step calls BlobTool once for this many bytes; without it, steps call no tool. */
  toolBytes?: number;
  /** The scripted model's answer latency (`llm.parameters.latency_ms`). */
  latencyMs?: number;
  /** Whether the model's answers stream (`llm.parameters.stream`); unset, the default (on). */
  stream?: boolean;
}

const plan = (...steps: string[]) => JSON.stringify({ steps, result: '' });
const final = (result: string) => JSON.stringify({ steps: [], result });

/** A run whose planner plans one step at a time, `steps` times, then answers; its input as the client builds it. */
export function benchInput({ steps, toolBytes, latencyMs, stream }: BenchRun): PlanExecuteReflectInput {
  const parameters = { ...(latencyMs ? { latency_ms: latencyMs } : {}), ...(stream !== undefined ? { stream } : {}) };
  const turn = toolBytes === undefined ? [{ content: 'done' }] : [{ tool_calls: [{ name: 'BlobTool', input: { bytes: toolBytes } }] }, { content: 'done' }];
  const agent = parseAgentDefinition(
    {
      name: 'bench',
      type: 'plan_execute_and_reflect',
      llm: {
        interface: 'scripted',
        ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
        script: { planner: [...Array.from({ length: steps }, (_, i) => plan(`step ${i + 1}`)), final('ok')], executor: Array.from({ length: steps }, () => turn) },
      },
      tools: toolBytes === undefined ? [] : [{ type: 'BlobTool' }],
    },
    { toolTypes: 'any' },
  );
  return { agent, question: 'bench', ...sparseParameters(resolveParameters(agent, { max_steps: steps + 1 })) };
}

/** A run of one step that takes `iterations` ReAct turns: a BlobTool call of `toolBytes` each, then the answer. */
export function longStepInput({ iterations, toolBytes }: { iterations: number; toolBytes: number }): PlanExecuteReflectInput {
  const turns = [...Array.from({ length: iterations - 1 }, () => ({ tool_calls: [{ name: 'BlobTool', input: { bytes: toolBytes } }] })), { content: 'done' }];
  const agent = parseAgentDefinition(
    {
      name: 'bench-long-step',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner: [plan('read every blob'), final('ok')], executor: [turns] } },
      tools: [{ type: 'BlobTool' }],
    },
    { toolTypes: 'any' },
  );
  return { agent, question: 'bench', ...sparseParameters(resolveParameters(agent, { executor_max_iterations: iterations })) };
}

/**
 * A run of `steps` independent steps whose tool call takes `toolMs`: with `parallel` > 1 the
 * planner groups them all (they run at most `parallel` at once), else it plans one at a time.
 */
export function independentStepsInput({ steps, toolMs, parallel }: { steps: number; toolMs: number; parallel: number }): PlanExecuteReflectInput {
  const names = Array.from({ length: steps }, (_, i) => `look up item ${i + 1}`);
  const planner =
    parallel > 1 ? [JSON.stringify({ steps: [names], result: '' }), final('ok')] : [...names.map((_, i) => plan(...names.slice(i))), final('ok')];
  const agent = parseAgentDefinition(
    {
      name: 'bench-parallel',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner, executor: names.map(() => [{ tool_calls: [{ name: 'BlobTool', input: { bytes: 100, ms: toolMs } }] }, { content: 'done' }]) } },
      tools: [{ type: 'BlobTool' }],
    },
    { toolTypes: 'any' },
  );
  return { agent, question: 'bench parallel', ...sparseParameters(resolveParameters(agent, { max_steps: steps + 1, max_parallel_steps: parallel })) };
}
