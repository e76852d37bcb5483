/** Routes a chat request to the model adapter of the interface named in the agent file. */
import type { ModelSettings } from '../../core/activity-contract';
import type { RawChatResponse } from '../../core/llm-types';
import { applyResponseFilter } from './response-filter';
import type { OnDelta } from './call-options';
import { scriptedOnly, type ModelAdapters } from './adapters';
import type { ChatRequest, RecordedRequest } from './scripted';
import { observeModelCall, type CallSpanOwner, type TelemetryDeps } from '../../telemetry/model-and-tool-calls';
import { withCost } from '../../telemetry/model-prices';

export type { ModelSettings, OnDelta };

export interface ChatDeps extends TelemetryDeps {
  /** The worker's model adapters (`modelAdapters(context, added)`); without them only the scripted model answers. */
  llm?: ModelAdapters;
  /** Where the scripted model records the requests it receives when there is no `llm` (tests read it). */
  recorder?: RecordedRequest[];
}

/**
 * Sends one chat request to the adapter of `model.interface`; with `onDelta`, the provider
 * streams and each text delta goes to it as it arrives (the response is the same). Provider
 * errors arrive as `ApplicationFailure`s (the adapter's error mapping, see `errors.ts`):
 * Temporal's retry policy decides on another attempt. The response's usage carries the call's
 * cost (`cost_usd`, null when the model has no known price: telemetry/model-prices.ts); `owner`
 * names the agent (the agent file's name, which labels the cost counter) and the run's memory
 * ID, for the call's span. The provider's raw answer stays here; what it carries to the step's
 * next turn (`carry`) is returned for the execution activity to keep.
 */
export async function chat(model: ModelSettings, request: ChatRequest, deps: ChatDeps, onDelta?: OnDelta, owner: CallSpanOwner = {}): Promise<Omit<RawChatResponse, 'raw'>> {
  const adapters = deps.llm ?? scriptedOnly(deps.recorder);
  // The span and the token counts cover the provider call only (not loading prompts from memory).
  const { raw, ...response } = await observeModelCall(
    deps,
    model,
    async () => {
      const answer = await adapters.chat({ model, request, ...(onDelta ? { onDelta } : {}) });
      return { ...answer, usage: withCost(model, answer.usage) };
    },
    owner,
    request,
  );
  // The filter selects the answer text; a turn that calls tools has no answer to select.
  if (request.response_filter && raw !== undefined && response.tool_calls.length === 0) {
    response.content = applyResponseFilter(raw, request.response_filter, model.interface);
  }
  return response;
}
