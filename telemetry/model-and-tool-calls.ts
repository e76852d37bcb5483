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
  /** Which GenAI conventions the spans follow, and whether they carry message content. @default today's names, no content */
  genAi?: GenAiSpanOptions;
}

/**
 * `latest` (`OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`): the conventions' latest
 * names — `plan` spans for planner calls, `gen_ai.provider.name`, the agent's name, cache token
 * counts; otherwise the names of perflow 0.2 (`chat` for every call, `gen_ai.system`), kept for
 * one more version. `captureContent`
 * (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`): the messages, system
 * instructions, answers, tool arguments and results on the spans — off by default: prompts and
 * tool outputs can hold what a trace backend must not.
 */
export interface GenAiSpanOptions {
  latest: boolean;
  captureContent: boolean;
}

/**
 * Whose call a span is: the agent file's name and the run's memory ID (its conversation), when
 * the call knows them. Under the latest conventions only (perflow 0.2's spans had neither).
 */
export interface CallSpanOwner {
  agent?: string;
  conversation?: string;
}

/** What a model call's span may say of the request: who asks (its position's role) and, with content capture, what. */
export interface ObservedRequest {
  position?: { role: string };
  system?: string;
  messages?: ReadonlyArray<{ role: string; content?: unknown }>;
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
  // The latest conventions' (OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental).
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversation: 'gen_ai.conversation.id',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolType: 'gen_ai.tool.type',
  // Content, captured only when asked.
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
} as const;

/** A request's content as the conventions' message attributes (JSON). */
function contentOfRequest(request: ObservedRequest): Attributes {
  const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c ?? ''));
  return {
    ...(request.system ? { [GEN_AI.systemInstructions]: JSON.stringify([{ type: 'text', content: request.system }]) } : {}),
    ...(request.messages ? { [GEN_AI.inputMessages]: JSON.stringify(request.messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: text(m.content) }] }))) } : {}),
  };
}

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
 * model and the cost (when known) by model and agent (`owner.agent`: the agent file's name,
 * `unknown` for calls whose input does not name it).
 */
export function observeModelCall<T extends { usage: Usage; stop_reason?: string; content?: string; tool_calls?: unknown[] }>(
  deps: TelemetryDeps,
  model: ModelSettings,
  call: () => Promise<T>,
  owner: CallSpanOwner = {},
  request: ObservedRequest = {},
): Promise<T> {
  const { agent } = owner;
  const name = modelName(model);
  const latest = deps.genAi?.latest ?? false;
  const capture = deps.genAi?.captureContent ?? false;
  const operation = latest && request.position?.role === 'planner' ? 'plan' : 'chat';
  const attributes: Attributes = {
    [GEN_AI.operation]: operation,
    [latest ? GEN_AI.provider : GEN_AI.system]: genAiSystem(model.interface),
    [GEN_AI.requestModel]: name,
    ...(latest ? ownerAttributes(owner) : {}),
    ...(capture ? contentOfRequest(request) : {}),
  };
  return inSpan(deps.tracer, `${operation} ${name}`, SpanKind.CLIENT, attributes, async (span) => {
    const response = await call();
    const { input_tokens, output_tokens, cost_usd, cached_input_tokens, cache_write_input_tokens, tokens_unknown } = response.usage;
    const cost = typeof cost_usd === 'number' ? cost_usd : undefined;
    span?.setAttributes({
      // Counts the provider did not report are left out, not given as 0.
      ...(tokens_unknown ? {} : { [GEN_AI.inputTokens]: input_tokens, [GEN_AI.outputTokens]: output_tokens }),
      ...(latest && cached_input_tokens ? { [GEN_AI.cacheReadTokens]: cached_input_tokens } : {}),
      ...(latest && cache_write_input_tokens ? { [GEN_AI.cacheCreationTokens]: cache_write_input_tokens } : {}),
      ...(cost !== undefined ? { [COST_ATTRIBUTE]: cost } : {}),
      ...(response.stop_reason ? { [GEN_AI.finishReasons]: [response.stop_reason] } : {}),
      ...(capture ? { [GEN_AI.outputMessages]: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: response.content ?? '' }, ...(response.tool_calls ?? []).map((c) => ({ type: 'tool_call', ...(c as object) }))], finish_reason: response.stop_reason ?? 'stop' }]) } : {}),
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

/** A span's agent name and conversation ID, those of `owner` that are known. */
function ownerAttributes({ agent, conversation }: CallSpanOwner): Attributes {
  return { ...(agent !== undefined ? { [GEN_AI.agentName]: agent } : {}), ...(conversation !== undefined ? { [GEN_AI.conversation]: conversation } : {}) };
}

/** One tool call: an `execute_tool <name>` span (an error observation marks it failed), and the call counted by tool. */
export function observeToolCall(deps: TelemetryDeps, tool: { name: string; type: string }, call: () => Promise<ToolObservation>, input?: unknown, conversation?: string): Promise<ToolObservation> {
  const capture = deps.genAi?.captureContent ?? false;
  const attributes: Attributes = {
    [GEN_AI.operation]: 'execute_tool',
    [GEN_AI.toolName]: tool.name,
    'perflow.tool.type': tool.type,
    ...(deps.genAi?.latest ? { [GEN_AI.toolType]: 'function', ...ownerAttributes({ conversation }) } : {}),
    ...(capture && input !== undefined ? { [GEN_AI.toolArguments]: JSON.stringify(input) } : {}),
  };
  return inSpan(deps.tracer, `execute_tool ${tool.name}`, SpanKind.INTERNAL, attributes, async (span) => {
    const m = meter();
    m?.createCounter(PERFLOW_METRICS.toolCalls, 'calls', 'Tool calls, by tool').add(1, { tool: tool.name });
    const observation = await call().catch((err: unknown) => {
      m?.createCounter(PERFLOW_METRICS.toolErrors, 'calls', 'Tool calls that ended in an error, by tool').add(1, { tool: tool.name });
      throw err;
    });
    if (capture) span?.setAttribute(GEN_AI.toolResult, observation.content);
    if (observation.is_error) {
      m?.createCounter(PERFLOW_METRICS.toolErrors, 'calls', 'Tool calls that ended in an error, by tool').add(1, { tool: tool.name });
      span?.setAttribute('error.type', 'tool_error');
      span?.setStatus({ code: SpanStatusCode.ERROR, message: observation.content.slice(0, 300) });
    }
    return observation;
  });
}
