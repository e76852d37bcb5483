/**
 * Spans and counters of model and tool calls, for the activities that make them. A span per call carries the OpenTelemetry GenAI
 * semantic conventions' attributes (`chat <model>`, `execute_tool <name>`) when the worker hands
 * in a tracer; the counters go through the activity's metric meter (the Temporal runtime's,
 * a no-op unless the worker exports metrics).
 */
import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { ModelSettings, ToolObservation } from '../core/contract';
import type { Usage } from '../core/llm-types';
import { PERFLOW_METRICS } from './metric-names';
import { firstLine } from '../core/text';

export interface TelemetryDeps {
  /** Opens the model and tool calls' spans. @default none: no spans */
  tracer?: Tracer;
}

/** GenAI semantic-convention attribute names (OpenTelemetry semconv, gen_ai.*). */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  toolName: 'gen_ai.tool.name',
} as const;

/** `gen_ai.system` of a model interface: `openai`, `aws.bedrock`, or the interface's own name (`scripted`). */
export function genAiSystem(modelInterface: string): string {
  if (modelInterface.startsWith('openai/')) return 'openai';
  if (modelInterface.startsWith('bedrock/')) return 'aws.bedrock';
  return modelInterface;
}

/** The model's name for spans and counters: `llm.model`, else the interface (the scripted model has none). */
export function modelName(model: ModelSettings): string {
  return model.model ?? model.interface;
}

/** The running activity's meter; undefined outside an activity (unit tests call activities directly). */
function meter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined;
  }
}

async function inSpan<T>(tracer: Tracer | undefined, name: string, kind: SpanKind, attributes: Attributes, fn: (span?: Span) => Promise<T>): Promise<T> {
  if (!tracer) return fn();
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setAttribute('error.type', (err as { type?: string }).type ?? (err as Error).name ?? 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: firstLine(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** One model call: a `chat <model>` span with its token usage, and the tokens counted by model. */
export function observeModelCall<T extends { usage: Usage; stop_reason?: string }>(deps: TelemetryDeps, model: ModelSettings, call: () => Promise<T>): Promise<T> {
  const name = modelName(model);
  const attributes = { [GEN_AI.operation]: 'chat', [GEN_AI.system]: genAiSystem(model.interface), [GEN_AI.requestModel]: name };
  return inSpan(deps.tracer, `chat ${name}`, SpanKind.CLIENT, attributes, async (span) => {
    const response = await call();
    const { input_tokens, output_tokens } = response.usage;
    span?.setAttributes({
      [GEN_AI.inputTokens]: input_tokens,
      [GEN_AI.outputTokens]: output_tokens,
      ...(response.stop_reason ? { [GEN_AI.finishReasons]: [response.stop_reason] } : {}),
    });
    const tokens = meter()?.createCounter(PERFLOW_METRICS.tokens, 'tokens', 'Model tokens, by model and direction');
    if (input_tokens > 0) tokens?.add(input_tokens, { model: name, direction: 'input' });
    if (output_tokens > 0) tokens?.add(output_tokens, { model: name, direction: 'output' });
    return response;
  });
}

/** One tool call: an `execute_tool <name>` span (an error observation marks it failed), and the call counted by tool. */
export function observeToolCall(deps: TelemetryDeps, tool: { name: string; type: string }, call: () => Promise<ToolObservation>): Promise<ToolObservation> {
  const attributes = { [GEN_AI.operation]: 'execute_tool', [GEN_AI.toolName]: tool.name, 'perflow.tool.type': tool.type };
  return inSpan(deps.tracer, `execute_tool ${tool.name}`, SpanKind.INTERNAL, attributes, async (span) => {
    const m = meter();
    m?.createCounter(PERFLOW_METRICS.toolCalls, 'calls', 'Tool calls, by tool').add(1, { tool: tool.name });
    const observation = await call().catch((err: unknown) => {
      m?.createCounter(PERFLOW_METRICS.toolErrors, 'calls', 'Tool calls that ended in an error, by tool').add(1, { tool: tool.name });
      throw err;
    });
    if (observation.is_error) {
      m?.createCounter(PERFLOW_METRICS.toolErrors, 'calls', 'Tool calls that ended in an error, by tool').add(1, { tool: tool.name });
      span?.setAttribute('error.type', 'tool_error');
      span?.setStatus({ code: SpanStatusCode.ERROR, message: observation.content.slice(0, 300) });
    }
    return observation;
  });
}
