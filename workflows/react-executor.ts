/**
 * The ReAct executor: one child workflow per plan step. Each iteration is one LLM activity
 * with the agent's tools offered, then one activity per requested tool call; the model's final
 * text is the step result.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities, AgentToolRef } from '../activities';
import type { MemoryIds } from '../activities/memory/activities';
import { memoryActivities } from './memory';
import type { ModelSettings } from '../activities/llm/chat';
import { addUsage, ZERO_USAGE, type ChatMessage, type ToolSpec, type Usage } from '../core/llm-types';

const executorLlm = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
}).executorLlm;

// Tool errors and timeouts come back as observations, so what fails this activity is
// infrastructure (recording the output in MongoDB): wait it out.
const { callTool } = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

export interface ReactExecutorInput {
  /** The step to execute, used as the question. */
  step: string;
  /** 0-based index of the step among the steps executed in this run. */
  stepIndex: number;
  system_prompt: string;
  model: ModelSettings;
  tools: AgentToolRef[];
  toolSpecs: ToolSpec[];
  max_iteration: number;
  /** How many earlier steps of the executor memory to show the model. */
  message_history_limit: number;
  ids: MemoryIds;
}

export interface ReactExecutorOutput {
  result: string;
  iterations: number;
  tool_calls: number;
  usage: Usage;
}

export async function reactExecutor(input: ReactExecutorInput): Promise<ReactExecutorOutput> {
  const earlier = await memoryActivities.loadExecutorHistory({
    executor_agent_memory_id: input.ids.executor_agent_memory_id,
    limit: input.message_history_limit,
    before_step: input.stepIndex,
    ids: input.ids,
  });
  const messages: ChatMessage[] = earlier.flatMap(({ step, result }): ChatMessage[] => [
    { role: 'user', content: step },
    { role: 'assistant', content: result },
  ]);
  messages.push({ role: 'user', content: input.step });

  const byName = new Map(input.tools.map((ref, i) => [input.toolSpecs[i]?.name ?? ref.type, ref]));
  const allowed = [...byName.keys()];
  let usage = ZERO_USAGE;
  let toolCalls = 0;
  const observations: string[] = [];
  for (let iteration = 0; iteration < input.max_iteration; iteration++) {
    const response = await executorLlm.executeWithOptions({ summary: `executor LLM: step ${input.stepIndex + 1}, iteration ${iteration + 1}` }, [
      {
        model: input.model,
        system: input.system_prompt,
        messages,
        tools: input.toolSpecs,
        position: { role: 'executor', step: input.stepIndex, iteration },
      },
    ]);
    usage = addUsage(usage, response.usage);
    messages.push({ role: 'assistant', content: response.content, tool_calls: response.tool_calls });
    if (response.tool_calls.length === 0) {
      return { result: response.content, iterations: iteration + 1, tool_calls: toolCalls, usage };
    }
    for (const call of response.tool_calls) {
      const ref = byName.get(call.name);
      // A tool outside the agent's list is never executed.
      const observation = ref
        ? await callTool.executeWithOptions({ summary: `tool: ${call.name}` }, [
            { tool: ref, input: call.input, place: { ids: input.ids, stepIndex: input.stepIndex, callIndex: toolCalls } },
          ])
        : {
            content: `Error: tool "${call.name}" is not available to this agent; allowed tools: ${allowed.join(', ') || 'none'}`,
            is_error: true,
          };
      if (ref) toolCalls++;
      observations.push(`${call.name}: ${observation.content}`);
      messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: observation.content, is_error: observation.is_error });
    }
  }
  const gathered = observations.length > 0 ? observations.join('\n') : 'no tool output was gathered';
  return {
    result: `Executor iteration limit (${input.max_iteration}) reached before the step was finished. Gathered so far:\n${gathered}`,
    iterations: input.max_iteration,
    tool_calls: toolCalls,
    usage,
  };
}
