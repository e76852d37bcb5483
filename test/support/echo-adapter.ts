/**
 * A test-only model provider, `test/echo`: it answers the last user message back, streamed word
 * by word, at the price table's OpenAI prices for the model it is given. What a provider of one's
 * own declares, and nothing more: a spec, clients built once per worker, a chat call and its
 * errors' mapping.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ModelAdapter } from '../../activities/llm/adapter';

export const ECHO_INTERFACE = 'test/echo';

/** What the echo adapter's `connect` builds: a count of the calls its clients served, to show they are built once. */
export interface EchoClients {
  calls: number;
}

/** The adapter; `connects` counts how often a worker built its clients. */
export function echoAdapter(): ModelAdapter<EchoClients> & { connects: number } {
  return {
    connects: 0,
    spec: { name: ECHO_INTERFACE, aliases: ['test_echo'], priceTableProvider: 'openai' },
    connect() {
      this.connects++;
      return { calls: 0 };
    },
    async chat(clients, { request, onDelta }) {
      clients.calls++;
      const last = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      if (last === 'fail') throw new Error('the echo is out of breath');
      for (const word of last.split(/(?<= )/)) onDelta?.(word);
      return { content: last, tool_calls: [], stop_reason: 'end_turn', usage: { input_tokens: 1_000, output_tokens: 100 }, raw: { echoed: last } };
    },
    failure: (err, ctx) =>
      ApplicationFailure.create({ type: 'Echo.Failed', message: `${ctx.interface} model "${ctx.model}" failed: ${(err as Error).message}`, nonRetryable: false }),
  };
}
