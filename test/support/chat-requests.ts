/** Chat requests as an executor sends them, for the unit tests of the provider clients. */
import type { ChatRequest } from '../../activities/llm/scripted';

/** An executor's first request of step 1 with one tool, search_index, and the conversation so far. */
export function executorRequest(messages: ChatRequest['messages']): ChatRequest {
  return {
    system: 'You are an executor.',
    position: { role: 'executor', step: 0, iteration: 1 },
    tools: [
      {
        name: 'search_index',
        description: 'Searches an index',
        input_schema: { type: 'object', properties: { index: { type: 'string' } }, required: ['index'] },
      },
    ],
    messages,
  };
}
