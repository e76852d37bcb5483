/**
 * One call of the Bedrock Converse API, shared by the Bedrock interfaces: builds the client
 * (its own retries off), sends the command, and turns errors into `ApplicationFailure`s.
 */
import {
  ConverseCommand,
  type ContentBlock,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type Message,
} from '@aws-sdk/client-bedrock-runtime';
import { ApplicationFailure } from '@temporalio/activity';
import type { LlmClients } from './clients';
import { activitySignal, numberParam, otherParameters, stopParam, timeoutMs } from './call-options';
import { bedrockFailure } from './errors';

/** The settings the Bedrock interfaces read (a structural subset of `ModelSettings`). */
export interface BedrockModelSettings {
  /** Model or inference profile id, e.g. `us.anthropic.claude-3-7-sonnet-20250219-v1:0`. Required. */
  model?: string;
  /** Endpoint override (a local test server, a VPC endpoint). @default the worker's PERFLOW_BEDROCK_ENDPOINT, else the regional endpoint */
  base_url?: string;
  /** AWS region. @default the worker's AWS_REGION, else the SDK's default chain */
  region?: string;
  /** `temperature`, `top_p`, `max_tokens`, `stop`/`stop_sequences` and `timeout_ms` (@default 120000). */
  parameters?: Record<string, unknown>;
}

/** The parameters `inferenceConfig` holds; any other goes to `additionalModelRequestFields`. */
const INFERENCE_PARAMETERS = ['temperature', 'top_p', 'max_tokens', 'stop', 'stop_sequences'];

/** `inferenceConfig` from the model parameters; `undefined` when none is set. */
export function inferenceConfig(parameters: Record<string, unknown> | undefined): ConverseCommandInput['inferenceConfig'] {
  const config: NonNullable<ConverseCommandInput['inferenceConfig']> = {};
  const temperature = numberParam(parameters, 'temperature');
  const topP = numberParam(parameters, 'top_p');
  const maxTokens = numberParam(parameters, 'max_tokens');
  const stop = stopParam(parameters);
  if (temperature !== undefined) config.temperature = temperature;
  if (topP !== undefined) config.topP = topP;
  if (maxTokens !== undefined) config.maxTokens = Math.floor(maxTokens);
  if (stop) config.stopSequences = stop;
  return Object.keys(config).length > 0 ? config : undefined;
}

/**
 * Sends one `ConverseCommand` with `maxAttempts: 1`: Temporal's retry policy is the one retry
 * mechanism. Credentials come from the SDK's default chain.
 *
 * @param iface - interface name, for failure messages
 * @param input - the command input without `modelId` (taken from `model.model`)
 * @throws ApplicationFailure `Bedrock.<Kind>` (see `errors.ts`), `Bedrock.Configuration` when the model is missing
 */
export async function converse(
  iface: string,
  model: BedrockModelSettings,
  input: Omit<ConverseCommandInput, 'modelId'>,
  clients: LlmClients,
): Promise<ConverseCommandOutput> {
  if (!model.model) {
    throw ApplicationFailure.nonRetryable(`${iface} needs llm.model in the agent file`, 'Bedrock.Configuration');
  }
  const ctx = { interface: iface, model: model.model };
  const client = clients.bedrock({ region: model.region, endpoint: model.base_url, requestTimeoutMs: timeoutMs(model.parameters) });
  try {
    // Parameters inferenceConfig does not hold are the model's own fields (Claude's top_k …).
    const extra = otherParameters(model.parameters, INFERENCE_PARAMETERS);
    return await client.send(new ConverseCommand({ ...input, ...(extra ? { additionalModelRequestFields: extra as never } : {}), modelId: model.model }), { abortSignal: activitySignal() });
  } catch (err) {
    throw bedrockFailure(err, ctx);
  }
}

/** Maps a Converse `stopReason` to the provider-neutral stop reason. */
export function mapStopReason(reason: string | undefined): 'end_turn' | 'tool_use' | 'max_tokens' | 'other' {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end_turn';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return 'other';
  }
}

/** Appends blocks to the last message when it has the same role (Converse wants roles to alternate). */
export function pushBlocks(out: Message[], role: 'user' | 'assistant', blocks: ContentBlock[]): void {
  if (blocks.length === 0) return;
  const last = out[out.length - 1];
  if (last && last.role === role) last.content = [...(last.content ?? []), ...blocks];
  else out.push({ role, content: blocks });
}
