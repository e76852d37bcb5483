/**
 * The registry of a worker's model adapters: the built-in ones and any the worker adds
 * (`createWorker({ modelAdapters })`). An adapter connects on its first call (its SDK clients,
 * built from the worker's provider settings) and its errors become the failures Temporal's retry
 * policy reads.
 */
import { keyValues, redactKeys } from './redact-keys';
import { ApplicationFailure } from '@temporalio/activity';
import type { RawChatResponse } from '../../core/llm-types';
import { addModelInterfaces } from '../../core/agent-file/known-interfaces';
import type { AdapterContext, ModelAdapter, ModelCall } from './adapter';
import { anthropicAdapter } from './anthropic-messages';
import { bedrockClaudeAdapter } from './bedrock-claude';
import { deepSeekR1Adapter } from './deepseek-r1';
import { geminiAdapter } from './google-gemini';
import { openAiAdapter } from './openai-chat';
import { openAiResponsesAdapter } from './openai-responses';
import { scriptedAdapter } from './scripted';

/** The adapters every worker has, one per built-in interface. */
export const BUILTIN_ADAPTERS: readonly ModelAdapter[] = [openAiAdapter, bedrockClaudeAdapter, deepSeekR1Adapter, anthropicAdapter, geminiAdapter, openAiResponsesAdapter, scriptedAdapter];

/** A worker's model adapters by interface name. */
export interface ModelAdapters {
  /** Sends one call to the adapter of `call.model.interface`. */
  chat(call: ModelCall): Promise<RawChatResponse>;
  /** The interfaces the worker serves. */
  names(): string[];
  /** Releases the adapters' clients (worker shutdown). */
  close(): void;
}

/**
 * The registry of a worker's adapters: the built-in ones, then `added`. The added adapters'
 * specs join the interfaces this process knows (core/agent-file/known-interfaces.ts), so their
 * calls are priced as the specs say.
 *
 * @throws Error when two adapters serve one interface, or an added one takes a built-in name
 */
export function modelAdapters(context: AdapterContext, added: readonly ModelAdapter[] = [], builtin: readonly ModelAdapter[] = BUILTIN_ADAPTERS): ModelAdapters {
  const byName = new Map<string, ModelAdapter>();
  for (const adapter of [...builtin, ...added]) {
    if (byName.has(adapter.spec.name)) throw new Error(`two model adapters serve interface "${adapter.spec.name}": give each a name of its own`);
    byName.set(adapter.spec.name, adapter);
  }
  addModelInterfaces(added.map((adapter) => adapter.spec));
  const connected = new Map<ModelAdapter, unknown>();
  const clientsOf = (adapter: ModelAdapter) => {
    if (!connected.has(adapter)) connected.set(adapter, adapter.connect(context));
    return connected.get(adapter);
  };
  return {
    async chat(call) {
      const adapter = byName.get(call.model.interface);
      if (!adapter) {
        throw ApplicationFailure.nonRetryable(
          `LLM interface "${call.model.interface}" is not available in this worker; use one of: ${[...byName.keys()].join(', ')}`,
          'LlmInterface.Unsupported',
        );
      }
      try {
        return await adapter.chat(clientsOf(adapter), call);
      } catch (err) {
        const failure = adapter.failure ? adapter.failure(err, { interface: adapter.spec.name, model: call.model.model }) : err;
        // A provider may quote the key it refused; the error goes on to history, memory and webhooks.
        throw redactKeys(failure, keyValues(call.model, context.providers));
      }
    },
    names: () => [...byName.keys()],
    close() {
      for (const [adapter, clients] of connected) adapter.close?.(clients);
      connected.clear();
    },
  };
}

/** The registry of a caller without provider settings: the scripted model only. */
export function scriptedOnly(recorder?: AdapterContext['recorder']): ModelAdapters {
  return modelAdapters({ providers: { secret: () => undefined, setting: () => undefined }, ...(recorder ? { recorder } : {}) }, [], [scriptedAdapter]);
}

