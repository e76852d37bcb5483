/** Routes a chat request to the model interface named in the agent file. */
import { ApplicationFailure } from '@temporalio/activity';
import type { ChatResponse } from '../../core/llm-types';
import { scriptedChat, type ChatRequest, type RecordedRequest, type Script } from './scripted';

export interface ModelSettings {
  interface: string;
  model?: string;
  base_url?: string;
  region?: string;
  parameters?: Record<string, unknown>;
  script?: Script;
}

export interface ChatDeps {
  /** Where the scripted model records the requests it receives (tests read it). */
  recorder?: RecordedRequest[];
}

export async function chat(model: ModelSettings, request: ChatRequest, deps: ChatDeps): Promise<ChatResponse> {
  switch (model.interface) {
    case 'scripted':
      return scriptedChat(model.script ?? {}, request, deps.recorder);
    default:
      throw ApplicationFailure.nonRetryable(
        `LLM interface "${model.interface}" is not available in this worker; use one of: scripted`,
        'LlmInterface.Unsupported',
      );
  }
}
