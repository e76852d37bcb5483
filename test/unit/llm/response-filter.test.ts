import { applyResponseFilter } from '../../../activities/llm/response-filter';

const raw = { choices: [{ message: { content: 'hello' } }], output: { message: { content: [{ reasoningContent: {} }, { text: 'answer' }] } }, n: { a: 1 } };

describe('llm_response_filter', () => {
  it('selects the answer text with a JSONPath', () => {
    expect(applyResponseFilter(raw, '$.choices[0].message.content', 'openai')).toBe('hello');
    expect(applyResponseFilter(raw, '$.output.message.content[1].text', 'bedrock')).toBe('answer');
  });

  it('gives non-string selections as JSON', () => {
    expect(applyResponseFilter(raw, '$.n', 'openai')).toBe('{"a":1}');
  });

  it('fails non-retryably, naming the path, when nothing is selected', () => {
    expect(() => applyResponseFilter(raw, '$.choices[3].message.content', 'openai')).toThrow(
      'llm_response_filter "$.choices[3].message.content" selects nothing in the openai response',
    );
  });
});
