/**
 * Spans and counters of model and tool calls, for the activities that make them. A span per call carries the OpenTelemetry GenAI
 * semantic conventions' attributes (`chat <model>`, `execute_tool <name>`) when the worker hands
 * in a tracer; the counters go through the activity's metric meter (the Temporal runtime's,
 * a no-op unless the worker exports metrics).
 */
import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { ModelSettings, ToolObservation } from '../core/activity-contract';
import type { Usage } from '../core/llm-types';
import { PERFLOW_METRICS } from './metric-names';
import { knownInterface } from '../core/agent-file/known-interfaces';
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

/** perflow's own attribute of model-call spans: the call's cost in US dollars (absent when the model has no known price). */
export const COST_ATTRIBUTE = 'perflow.cost_usd';

/** `gen_ai.system` of a model interface: `openai`, `aws.bedrock`, or the interface's own name (`scripted`). */
export function genAiSystem(modelInterface: string): string {
  return knownInterface(modelInterface)?.genAiProvider ?? modelInterface;
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

/**
 * One model call: a `chat <model>` span with its token usage and cost, the tokens counted by
 * model and the cost (when known) by model and agent (`agent`: the agent file's name, `unknown`
 * for calls whose input does not name it).
 */
export function observeModelCall<T extends { usage: Usage; stop_reason?: string }>(deps: TelemetryDeps, model: ModelSettings, call: () => Promise<T>, agent?: string): Promise<T> {
  const name = modelName(model);
  const attributes = { [GEN_AI.operation]: 'chat', [GEN_AI.system]: genAiSystem(model.interface), [GEN_AI.requestModel]: name };
  return inSpan(deps.tracer, `chat ${name}`, SpanKind.CLIENT, attributes, async (span) => {
    const response = await call();
    const { input_tokens, output_tokens, cost_usd } = response.usage;
    const cost = typeof cost_usd === 'number' ? cost_usd : undefined;
    span?.setAttributes({
      [GEN_AI.inputTokens]: input_tokens,
      [GEN_AI.outputTokens]: output_tokens,
      ...(cost !== undefined ? { [COST_ATTRIBUTE]: cost } : {}),
      ...(response.stop_reason ? { [GEN_AI.finishReasons]: [response.stop_reason] } : {}),
    });
    const m = meter();
    const tokens = m?.createCounter(PERFLOW_METRICS.tokens, 'tokens', 'Model tokens, by model and direction');
    if (input_tokens > 0) tokens?.add(input_tokens, { model: name, direction: 'input' });
    if (output_tokens > 0) tokens?.add(output_tokens, { model: name, direction: 'output' });
    if (m && cost !== undefined && cost > 0) addCost(m, cost, { model: name, agent: agent ?? 'unknown' });
    return response;
  });
}

/** The worker process's running cost sums, by the series they are exported as. */
const costSums = new Map<string, number>();

/**
 * Adds a call's cost to `perflow_cost_usd_total`. The Temporal runtime's counters take whole
 * numbers only (a cent's fraction would be lost), so the series is a float gauge holding this
 * process's running sum: it only grows and starts again at 0 when the worker restarts, as a
 * counter does, and `rate()` / `increase()` read it as one. The sum is kept per series: the
 * activity's meter adds its namespace, task queue and activity type to `model` and `agent`.
 */
function addCost(m: MetricMeter, cost: number, labels: { model: string; agent: string }): void {
  const info = Context.current().info;
  const key = JSON.stringify([info.namespace, info.taskQueue, info.activityType, labels.model, labels.agent]);
  const sum = (costSums.get(key) ?? 0) + cost;
  costSums.set(key, sum);
  m.createGauge(PERFLOW_METRICS.cost, 'float', 'USD', 'What model calls cost in US dollars, by model and agent (a running sum per worker process)').set(sum, labels);
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
