/** perflow's own llm.parameters: typed in the agent file, refused in one line naming the field, read by the model calls with the same coercions. */
import { parseAgentDefinition } from '../../../core/agent';
import { PERFLOW_MODEL_PARAMETERS, perflowModelParameters } from '../../../core/agent-file/model-parameters';
import { otherParameters, timeoutMs } from '../../../activities/llm/call-options';

const withParameters = (parameters: unknown) =>
  parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o', parameters } });

describe("perflow's own llm.parameters", () => {
  it.each([
    [{ stream: 'no' }, 'llm.parameters.stream: expected true or false'],
    [{ parallel_tool_calls: 1 }, 'llm.parameters.parallel_tool_calls: expected true or false'],
    [{ latency_ms: -5 }, 'llm.parameters.latency_ms: expected a number of milliseconds, 0 or more'],
    [{ latency_ms: 'soon' }, 'llm.parameters.latency_ms: expected a number of milliseconds, 0 or more'],
    [{ timeout_ms: 0 }, 'llm.parameters.timeout_ms: expected a number of milliseconds above 0'],
    [{ stream_chunk_chars: 2.5 }, 'llm.parameters.stream_chunk_chars: expected a positive integer'],
    [{ stream_chunk_chars: '0' }, 'llm.parameters.stream_chunk_chars: expected a positive integer'],
  ])('refuses %j in one line naming the field', (parameters, message) => {
    expect(() => withParameters(parameters)).toThrow(new Error(`invalid agent file: ${message}`));
  });

  it('refuses each of them given a value of the wrong type', () => {
    for (const key of PERFLOW_MODEL_PARAMETERS) {
      expect(() => withParameters({ [key]: { wrong: 'type' } })).toThrow(new RegExp(`^invalid agent file: llm\\.parameters\\.${key}: expected `));
    }
  });

  it('types them, taking the seed\'s strings, and passes every other key on as it is', () => {
    const agent = withParameters({ stream: 'FALSE', parallel_tool_calls: 'true', latency_ms: '0', timeout_ms: '5000', stream_chunk_chars: '40', temperature: '0.2', top_k: 'any' });
    expect(agent.llm.parameters).toEqual({ stream: false, parallel_tool_calls: true, latency_ms: 0, timeout_ms: 5000, stream_chunk_chars: 40, temperature: '0.2', top_k: 'any' });
    expect(otherParameters(agent.llm.parameters, ['temperature'])).toEqual({ top_k: 'any' });
  });

  it('are read by the model calls with the same coercions; a value no schema checked counts as unset', () => {
    expect(perflowModelParameters({ stream: 'false', timeout_ms: '2500', stream_chunk_chars: 8 })).toEqual({ stream: false, timeout_ms: 2500, stream_chunk_chars: 8 });
    expect(perflowModelParameters({ stream: 'no', latency_ms: -1, stream_chunk_chars: 2.5 })).toEqual({});
    expect(timeoutMs({ timeout_ms: -1 })).toBe(120_000);
    expect(timeoutMs(undefined)).toBe(120_000);
  });
});
