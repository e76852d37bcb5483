import { clientConfigFromEnv, workerConfigFromEnv } from '../../../config/env';
import { describeTelemetry, metricsConfigFromEnv, telemetryConfigFromEnv, tracingConfigFromEnv } from '../../../config/telemetry';
import { genAiSystem, observeModelCall, observeToolCall } from '../../../telemetry/model-and-tool-calls';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

describe('traces from the environment', () => {
  it('are off by default', () => {
    expect(tracingConfigFromEnv({})).toBeUndefined();
    expect(telemetryConfigFromEnv({})).toEqual({});
    expect(workerConfigFromEnv({}).telemetry).toEqual({});
    expect(clientConfigFromEnv({}).telemetry).toEqual({});
  });

  it('go to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces over http/protobuf, as the worker or the client service', () => {
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'perflow-worker')).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'perflow-worker',
      genAi: { latest: false, captureContent: false },
    });
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/otlp/' })?.url).toBe('https://otel.example.com/otlp/v1/traces');
    // A query string (a vendor's key, say) stays after the path.
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/otlp?team=a' })?.url).toBe('https://otel.example.com/otlp/v1/traces?team=a');
    expect(telemetryConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'client').traces?.serviceName).toBe('perflow-client');
  });

  it('take OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, and OTEL_SERVICE_NAME', () => {
    const config = tracingConfigFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/custom/traces',
      OTEL_SERVICE_NAME: 'agents',
    });
    expect(config).toEqual({ url: 'http://tempo:4318/custom/traces', protocol: 'http/protobuf', serviceName: 'agents', genAi: { latest: false, captureContent: false } });
  });

  it('take the latest GenAI conventions and message content only when asked', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracingConfigFromEnv({ ...env, OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental' })?.genAi).toEqual({ latest: true, captureContent: false });
    expect(tracingConfigFromEnv({ ...env, OTEL_SEMCONV_STABILITY_OPT_IN: 'http', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE' })?.genAi).toEqual({ latest: false, captureContent: true });
    expect(tracingConfigFromEnv({ ...env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' })?.genAi.captureContent).toBe(false);
  });

  it('take http/json from OTEL_EXPORTER_OTLP_PROTOCOL, the traces-specific variable winning', () => {
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })?.protocol).toBe('http/json');
    expect(
      tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })?.protocol,
    ).toBe('http/protobuf');
  });

  it('refuse grpc in one line that says to use http/protobuf', () => {
    const error = () => tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(error).toThrow('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: perflow exports traces over OTLP/HTTP; use http/protobuf');
    expect(() => tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported[^\n]*$/,
    );
    expect(() => clientConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow('use http/protobuf');
  });

  it('reject an unknown protocol and an endpoint that is not an http URL', () => {
    expect(() => tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL="thrift" is not an OTLP protocol perflow exports: use http/protobuf (the default) or http/json',
    );
    expect(() => tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(() => tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toThrow('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="not a url" is not a URL');
  });

  it('stay off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });
});

describe('metrics from the environment', () => {
  it('are off by default, and never the client’s', () => {
    expect(metricsConfigFromEnv({})).toBeUndefined();
    expect(telemetryConfigFromEnv({ PERFLOW_METRICS_ADDRESS: '127.0.0.1:9464' }, 'client')).toEqual({});
  });

  it('serve Prometheus on PERFLOW_METRICS_ADDRESS', () => {
    expect(metricsConfigFromEnv({ PERFLOW_METRICS_ADDRESS: '0.0.0.0:9464' })).toEqual({ prometheus: { bindAddress: '0.0.0.0:9464' } });
    expect(metricsConfigFromEnv({ PERFLOW_METRICS_ADDRESS: '[::1]:9464' })).toEqual({ prometheus: { bindAddress: '[::1]:9464' } });
    expect(describeTelemetry(workerConfigFromEnv({ PERFLOW_METRICS_ADDRESS: '127.0.0.1:9464' }).telemetry)).toBe('; metrics on http://127.0.0.1:9464/metrics');
    expect(() => metricsConfigFromEnv({ PERFLOW_METRICS_ADDRESS: '9464' })).toThrow('PERFLOW_METRICS_ADDRESS="9464" must be host:port');
    expect(() => metricsConfigFromEnv({ PERFLOW_METRICS_ADDRESS: 'host:99999' })).toThrow('must be host:port');
  });

  it('push OTLP to PERFLOW_METRICS_OTLP_ENDPOINT (HTTP, /v1/metrics by default; grpc:// for gRPC), not both', () => {
    expect(metricsConfigFromEnv({ PERFLOW_METRICS_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ otlp: { url: 'http://collector:4318/v1/metrics', http: true } });
    expect(metricsConfigFromEnv({ PERFLOW_METRICS_OTLP_ENDPOINT: 'http://collector:4318/otlp/v1/metrics' })).toEqual({
      otlp: { url: 'http://collector:4318/otlp/v1/metrics', http: true },
    });
    expect(metricsConfigFromEnv({ PERFLOW_METRICS_OTLP_ENDPOINT: 'grpc://collector:4317' })).toEqual({ otlp: { url: 'grpc://collector:4317', http: false } });
    expect(() => metricsConfigFromEnv({ PERFLOW_METRICS_ADDRESS: '127.0.0.1:9464', PERFLOW_METRICS_OTLP_ENDPOINT: 'http://c:4318' })).toThrow('not both');
  });
});

describe('the spans of model and tool calls', () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  beforeEach(() => exporter.reset());

  it('name the GenAI system of each interface', () => {
    expect(genAiSystem('openai/v1/chat/completions')).toBe('openai');
    expect(genAiSystem('bedrock/converse/claude')).toBe('aws.bedrock');
    expect(genAiSystem('bedrock/converse/deepseek_r1')).toBe('aws.bedrock');
    expect(genAiSystem('anthropic/v1/messages')).toBe('anthropic');
    expect(genAiSystem('google/generate_content')).toBe('gcp.gemini');
    expect(genAiSystem('openai/v1/responses')).toBe('openai');
    expect(genAiSystem('scripted')).toBe('scripted');
  });

  it('carry the GenAI attributes of a chat call with its token usage', async () => {
    const response = { content: 'hi', tool_calls: [], stop_reason: 'end_turn' as const, usage: { input_tokens: 12, output_tokens: 3 } };
    await expect(observeModelCall({ tracer }, { interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini' }, async () => response)).resolves.toBe(response);
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('chat gpt-4o-mini');
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['end_turn'],
    });
  });

  it('under the latest conventions: a planner call is a plan span; provider, agent, conversation and cache tokens by their new names; no content unless asked', async () => {
    const latest = { tracer, genAi: { latest: true, captureContent: false } };
    const response = { content: '{"steps": []}', tool_calls: [], stop_reason: 'end_turn' as const, usage: { input_tokens: 100, output_tokens: 5, cached_input_tokens: 60, cost_usd: 0.001 } };
    const request = { position: { role: 'planner' }, system: 'You plan.', messages: [{ role: 'user', content: 'secret question' }] };
    const owner = { agent: 'trip-planner', conversation: 'memory-1' };
    await observeModelCall(latest, { interface: 'bedrock/converse/claude', model: 'claude' }, async () => response, owner, request);
    await observeModelCall(latest, { interface: 'bedrock/converse/claude', model: 'claude' }, async () => response, owner, { position: { role: 'executor' } });
    await observeToolCall(latest, { name: 'calc', type: 'CalculatorTool' }, async () => ({ content: '2', is_error: false }), undefined, 'memory-1');
    // perflow 0.2's names: neither the agent nor the conversation.
    await observeToolCall({ tracer }, { name: 'calc', type: 'CalculatorTool' }, async () => ({ content: '2', is_error: false }), undefined, 'memory-1');
    const [plan, chat, tool, toolBefore] = exporter.getFinishedSpans();
    expect([plan.name, chat.name]).toEqual(['plan claude', 'chat claude']);
    expect(chat.attributes['gen_ai.conversation.id']).toBe('memory-1');
    expect(tool.attributes['gen_ai.conversation.id']).toBe('memory-1');
    expect(toolBefore.attributes['gen_ai.conversation.id']).toBeUndefined();
    expect(plan.attributes).toEqual({
      'gen_ai.operation.name': 'plan',
      'gen_ai.provider.name': 'aws.bedrock',
      'gen_ai.request.model': 'claude',
      'gen_ai.agent.name': 'trip-planner',
      'gen_ai.conversation.id': 'memory-1',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 60,
      'perflow.cost_usd': 0.001,
      'gen_ai.response.finish_reasons': ['end_turn'],
    });
    expect(JSON.stringify(plan.attributes)).not.toContain('secret question');
  });

  it('with message content asked for: the system instructions, messages, answer, tool arguments and result', async () => {
    const capture = { tracer, genAi: { latest: true, captureContent: true } };
    const response = { content: '', tool_calls: [{ id: 'c1', name: 'calc', input: { expression: '1+1' } }], stop_reason: 'tool_use' as const, usage: { input_tokens: 1, output_tokens: 1 } };
    await observeModelCall(capture, { interface: 'scripted' }, async () => response, { agent: 'a' }, { position: { role: 'executor' }, system: 'You act.', messages: [{ role: 'user', content: 'add 1 and 1' }] });
    await observeToolCall(capture, { name: 'calc', type: 'CalculatorTool' }, async () => ({ content: '2', is_error: false }), { expression: '1+1' });
    const [chat, tool] = exporter.getFinishedSpans();
    expect(JSON.parse(String(chat.attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: 'You act.' }]);
    expect(JSON.parse(String(chat.attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'add 1 and 1' }] }]);
    expect(JSON.parse(String(chat.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: '' }, { type: 'tool_call', id: 'c1', name: 'calc', input: { expression: '1+1' } }], finish_reason: 'tool_use' },
    ]);
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.type': 'function', 'gen_ai.tool.call.arguments': '{"expression":"1+1"}', 'gen_ai.tool.call.result': '2' });
  });

  it('mark a failed model call and a tool error observation as errors', async () => {
    const failure = Object.assign(new Error('rate limited\nmore'), { type: 'ModelInvocationError.RateLimit' });
    await expect(observeModelCall({ tracer }, { interface: 'scripted' }, () => Promise.reject(failure))).rejects.toBe(failure);
    await observeToolCall({ tracer }, { name: 'calc', type: 'CalculatorTool' }, async () => ({ content: 'Error: bad expression', is_error: true }));
    const [chat, tool] = exporter.getFinishedSpans();
    expect(chat.name).toBe('chat scripted');
    expect(chat.status).toEqual({ code: 2, message: 'rate limited' });
    expect(chat.attributes['error.type']).toBe('ModelInvocationError.RateLimit');
    expect(tool.name).toBe('execute_tool calc');
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'calc', 'error.type': 'tool_error' });
    expect(tool.status.code).toBe(2);
  });

  it('are not opened without a tracer', async () => {
    await observeToolCall({}, { name: 'calc', type: 'CalculatorTool' }, async () => ({ content: '42', is_error: false }));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
