/**
 * The model provider extension point, used from outside as a provider of one's own would use it:
 * a test-only adapter (`test/echo`) registered with a worker's adapters, named by an agent file
 * the client validates, and called through `chat()` with its cost and span.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { chat } from '../../../activities/llm/chat';
import { modelAdapters } from '../../../activities/llm/adapters';
import { agentFromJson } from '../../../client/run';
import { clientConfigFromEnv, providerConfigFromEnv } from '../../../config/env';
import { addModelInterfaces, parseAgentDefinition } from '../../../core/agent';
import { llmResponseFilterFor } from '../../../core/agent-file/llm-interfaces';
import { interfaceForModel } from '../../../core/ivy-agent';
import { COST_ATTRIBUTE } from '../../../telemetry/model-and-tool-calls';
import { priceTableProvider } from '../../../telemetry/model-prices';
import { ECHO_INTERFACE, echoAdapter } from '../../support/echo-adapter';
import { rejectionOf } from '../../support/wire-server';

const agentFile = (iface: string) => ({ name: 'echoer', type: 'plan_execute_and_reflect', llm: { interface: iface, model: 'gpt-4o' } });
const question = { system: '', messages: [{ role: 'user' as const, content: 'hello there echo' }], position: { role: 'planner' as const, call: 0 } };

describe('a model provider of its own', () => {
  it('is refused in one line, naming the interfaces known, while the process does not know it', () => {
    expect(() => parseAgentDefinition(agentFile('test/unknown'))).toThrow(
      /^invalid agent file: llm\.interface: expected one of openai\/v1\/chat\/completions, bedrock\/converse\/claude, bedrock\/converse\/deepseek_r1, anthropic\/v1\/messages, google\/generate_content, openai\/v1\/responses, scripted(, [^;]*)?$/,
    );
  });

  it('is accepted by the client once PERFLOW_EXTRA_MODEL_INTERFACES names it', () => {
    const config = clientConfigFromEnv({ PERFLOW_EXTRA_MODEL_INTERFACES: ' Test/Echo , ' });
    expect(config.extraModelInterfaces).toEqual([ECHO_INTERFACE]);
    addModelInterfaces(config.extraModelInterfaces);
    const { agent, parameters } = agentFromJson(agentFile(' TEST/ECHO '), 'echo.json');
    expect(agent.llm.interface).toBe(ECHO_INTERFACE);
    // Workflow code knows the built-in interfaces only: an added one's answer is taken as its adapter returns it.
    expect(parameters.llm_response_filter).toBe(llmResponseFilterFor(ECHO_INTERFACE));
    expect(llmResponseFilterFor(ECHO_INTERFACE)).toBe('$.content');
  });

  it('answers through chat() with its cost and span, its clients built once per worker', async () => {
    const echo = echoAdapter();
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
    const llm = modelAdapters({ providers: providerConfigFromEnv({}) }, [echo]);
    const { agent } = agentFromJson(agentFile('test_echo'), 'echo.json');
    const deltas: string[] = [];
    const response = await chat(agent.llm, question, { llm, tracer }, (text) => deltas.push(text), { agent: agent.name });
    await chat(agent.llm, question, { llm, tracer });
    expect(response).toEqual({
      content: 'hello there echo',
      tool_calls: [],
      stop_reason: 'end_turn',
      // The spec names the price table's OpenAI prices: gpt-4o at $2.50 in, $10 out per million tokens.
      usage: { input_tokens: 1_000, output_tokens: 100, cost_usd: 0.0035 },
    });
    expect(deltas).toEqual(['hello ', 'there ', 'echo']);
    expect(echo.connects).toBe(1);
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('chat gpt-4o');
    expect(span.attributes[COST_ATTRIBUTE]).toBe(0.0035);
    expect(priceTableProvider(ECHO_INTERFACE)).toBe('openai');
    llm.close();
  });

  it('has its errors mapped by its own failure mapping', async () => {
    const llm = modelAdapters({ providers: providerConfigFromEnv({}) }, [echoAdapter()]);
    const failure = (await rejectionOf(chat({ interface: ECHO_INTERFACE, model: 'gpt-4o' }, { ...question, messages: [{ role: 'user', content: 'fail' }] }, { llm }))) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('Echo.Failed');
    expect(failure.message).toBe('test/echo model "gpt-4o" failed: the echo is out of breath');
  });

  it('is listed when a worker lacks the interface a call names', async () => {
    const llm = modelAdapters({ providers: providerConfigFromEnv({}) }, [echoAdapter()]);
    const failure = (await rejectionOf(chat({ interface: 'test/other', model: 'm' }, question, { llm }))) as ApplicationFailure;
    expect(failure.type).toBe('LlmInterface.Unsupported');
    expect(failure.message).toBe(
      'LLM interface "test/other" is not available in this worker; use one of: openai/v1/chat/completions, bedrock/converse/claude, bedrock/converse/deepseek_r1, anthropic/v1/messages, google/generate_content, openai/v1/responses, scripted, test/echo',
    );
  });

  it('cannot take a built-in name, nor share one with another adapter', () => {
    const providers = providerConfigFromEnv({});
    expect(() => modelAdapters({ providers }, [{ ...echoAdapter(), spec: { name: 'scripted' } }])).toThrow('two model adapters serve interface "scripted": give each a name of its own');
    expect(() => modelAdapters({ providers }, [echoAdapter(), echoAdapter()])).toThrow(`two model adapters serve interface "${ECHO_INTERFACE}"`);
    expect(() => addModelInterfaces(['bedrock/converse/claude'])).toThrow('model interface "bedrock/converse/claude" is built in: give an added adapter a name of its own');
  });

  it('may claim Axon Ivy model names', () => {
    addModelInterfaces([{ name: 'test/parrot', servesIvyModel: (model) => model.startsWith('parrot-') }]);
    expect(interfaceForModel('Parrot-1')).toBe('test/parrot');
    expect(interfaceForModel('gpt-4o')).toBe('openai/v1/chat/completions');
  });
});
