/**
 * A run's span as the OpenTelemetry GenAI conventions name it: in a traced worker, the
 * interceptors' `RunWorkflow:<type>` span of a run becomes `invoke_agent <agent>` with the
 * agent's name, the run's workflow ID as the agent's ID, the conversation (memory ID), the
 * provider and model, and at the end the run's usage and cost. A sub-agent's run is a run: its
 * span nests under the agent tool's call. Untraced, there is no active span and nothing happens;
 * traced or not, no command changes. The span is exported once, when it ends: the interceptors'
 * exporter is a sink, never called while a history replays (after a worker crash, say).
 */
import { trace } from '@opentelemetry/api';
import { builtinInterface } from '../../core/agent-file/llm-interfaces';
import type { AgentDefinition } from '../../core/agent';
import type { Usage } from '../../core/llm-types';

/** Names the run's span (call where the run's body runs: the span is the active one there). */
export function nameRunSpan(agent: AgentDefinition, workflowId: string, memoryId: string): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(`invoke_agent ${agent.name}`);
  span.setAttributes({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agent.name,
    'gen_ai.agent.id': workflowId,
    ...(agent.description ? { 'gen_ai.agent.description': agent.description } : {}),
    'gen_ai.conversation.id': memoryId,
    'gen_ai.provider.name': builtinInterface(agent.llm.interface)?.genAiProvider ?? agent.llm.interface,
    'gen_ai.request.model': agent.llm.model ?? agent.llm.interface,
    'perflow.agent.type': agent.type,
  });
}

/** The run's usage on its span, as it ends (each continue-as-new execution's span: the run's usage so far). */
export function endRunSpan(usage: Usage): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttributes({
    'gen_ai.usage.input_tokens': usage.input_tokens,
    'gen_ai.usage.output_tokens': usage.output_tokens,
    ...(usage.cached_input_tokens ? { 'gen_ai.usage.cache_read.input_tokens': usage.cached_input_tokens } : {}),
    ...(usage.cache_write_input_tokens ? { 'gen_ai.usage.cache_creation.input_tokens': usage.cache_write_input_tokens } : {}),
    ...(typeof usage.cost_usd === 'number' ? { 'perflow.cost_usd': usage.cost_usd } : {}),
  });
}
