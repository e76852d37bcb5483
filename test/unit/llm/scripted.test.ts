import { chat } from '../../../activities/llm/chat';
import { fillPlaceholders, scriptedChat, type ChatRequest } from '../../../activities/llm/scripted';
import { formatCompletedSteps } from '../../../core/template';

const toolResult = { role: 'tool' as const, tool_call_id: 'c1', name: 'SearchCollectionTool', content: '{"database":"d","documents":[{"flights":9}]}' };

function executorRequest(content = toolResult.content): ChatRequest {
  return {
    system: 's',
    messages: [
      { role: 'user', content: 'count them' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'SearchCollectionTool', input: {} }] },
      { ...toolResult, content },
    ],
    position: { role: 'executor', step: 0, iteration: 1 },
  };
}

function plannerRequest(): ChatRequest {
  const steps = formatCompletedSteps([
    { step: 'count', result: 'There are 9 "direct" flights.\nAll checked.' },
    { step: 'other', result: 'second' },
  ]);
  return { system: 's', messages: [{ role: 'user', content: `Completed:\n${steps}\nNow answer.` }], position: { role: 'planner', call: 1 } };
}

describe('scripted answers quoting what the model was given', () => {
  it('{{observation:JSONPATH}} takes a value from the last tool result; {{observation}} the whole result', () => {
    expect(fillPlaceholders('There are {{observation:$.documents[0].flights}} flights.', executorRequest())).toBe('There are 9 flights.');
    expect(fillPlaceholders('Got {{observation}}', executorRequest())).toBe(`Got ${toolResult.content}`);
  });

  it('{{step_result:N}} takes step N\'s result from the prompt, JSON-escaped in a planner answer', () => {
    const answer = scriptedChat({ planner: ['x', '{"steps": [], "result": "{{step_result:1}}"}'] }, plannerRequest());
    expect(JSON.parse(answer.content)).toEqual({ steps: [], result: 'There are 9 "direct" flights.\nAll checked.' });
    expect(fillPlaceholders('{{step_result:2}}', { ...plannerRequest(), position: { role: 'summary' } })).toBe('second');
  });

  it('an unresolvable placeholder fails the call naming it (non-retryable)', () => {
    expect(() => fillPlaceholders('{{observation:$.nope}}', executorRequest())).toThrow(/placeholder \{\{observation:\$\.nope\}\}: selects nothing/);
    expect(() => fillPlaceholders('{{observation:$.a}}', executorRequest('plain text'))).toThrow(/is not JSON/);
    expect(() => fillPlaceholders('{{step_result:3}}', plannerRequest())).toThrow(/no <step-3-result> block/);
    const noTools: ChatRequest = { system: '', messages: [{ role: 'user', content: 'q' }], position: { role: 'executor', step: 0, iteration: 0 } };
    expect(() => fillPlaceholders('{{observation}}', noTools)).toThrow(/no tool result yet/);
  });

  it('text without placeholders is returned as written', () => {
    expect(fillPlaceholders('{"steps": ["a {b}"], "result": ""}', plannerRequest())).toBe('{"steps": ["a {b}"], "result": ""}');
  });
});

describe('scripted model latency', () => {
  afterEach(() => jest.useRealTimers());

  it('answers after llm.parameters.latency_ms, not before', async () => {
    jest.useFakeTimers();
    const request = { system: '', messages: [{ role: 'user' as const, content: 'q' }], position: { role: 'planner' as const, call: 0 } };
    let answered = false;
    const pending = chat({ interface: 'scripted', parameters: { latency_ms: 1_000 }, script: { planner: ['late'] } }, request, {}).then((r) => {
      answered = true;
      return r;
    });
    await jest.advanceTimersByTimeAsync(999);
    expect(answered).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect((await pending).content).toBe('late');
  });
});
