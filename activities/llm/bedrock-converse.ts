/**
 * One call of the Bedrock Converse API, shared by the Bedrock interfaces: their clients (their
 * own retries off), the command (streamed with `ConverseStream` when the caller takes the text as
 * it comes), and what both adapters declare alike (clients, error mapping).
 */
import type {
  BedrockRuntimeClient,
  ContentBlock,
  ConverseCommandInput,
  ConverseCommandOutput,
  ConverseStreamCommandInput,
  ConverseStreamCommandOutput,
  Message,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { bedrockSdk } from './sdks';
import { ApplicationFailure } from '@temporalio/activity';
import type { Usage } from '../../core/llm-types';
import type { ProviderConfig } from '../../core/provider-config';
import type { ModelAdapter } from './adapter';
import { activitySignal, numberParam, otherParameters, stopParam, timeoutMs, type OnDelta } from './call-options';
import { clientCache, type ClientCache } from './client-cache';
import { bedrockFailure, streamCutFailure, type ModelCallContext } from './errors';

/** The worker variables the Bedrock adapters read: a runtime endpoint (the operator's; a model's `base_url` wins) and the AWS region (a model's `region` wins). The rest of the AWS credential chain is the SDK's. */
export const BEDROCK_VARIABLES = { endpoint: 'PERFLOW_BEDROCK_ENDPOINT', region: 'AWS_REGION' } as const;

/** A Bedrock adapter's clients: one runtime client per region, endpoint and request timeout. */
export interface BedrockClients {
  providers: ProviderConfig;
  cache: ClientCache<{ region?: string; endpoint?: string; requestTimeoutMs: number }, BedrockRuntimeClient>;
}

/** What the Bedrock adapters share: their clients, error mapping and shutdown. */
export const BEDROCK_ADAPTER: Pick<ModelAdapter<BedrockClients>, 'connect' | 'failure' | 'close'> = {
  connect: ({ providers }) => ({
    providers,
    cache: clientCache(
      ({ region, endpoint, requestTimeoutMs }) =>
        new (bedrockSdk().BedrockRuntimeClient)({ maxAttempts: 1, ...(region ? { region } : {}), ...(endpoint ? { endpoint } : {}), requestHandler: { requestTimeout: requestTimeoutMs } }),
      (client) => client.destroy(),
    ),
  }),
  failure: bedrockFailure,
  close: (clients) => clients.cache.close(),
};

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

/** One content block of a streamed answer, as its deltas have built it so far. */
interface BlockSoFar {
  text?: string;
  toolUse?: { toolUseId?: string; name?: string; input: string };
  reasoning?: { text: string; signature?: string };
}

function finishedBlock(b: BlockSoFar): ContentBlock[] {
  if (b.toolUse) {
    const { toolUseId, name, input } = b.toolUse;
    let parsed: ToolUseBlock['input'] = {};
    try {
      parsed = input.trim() === '' ? {} : (JSON.parse(input) as ToolUseBlock['input']);
    } catch {
      // The executor sees the tool's own validation error and can try again.
    }
    return [{ toolUse: { toolUseId, name, input: parsed } }];
  }
  if (b.reasoning) return [{ reasoningContent: { reasoningText: b.reasoning } }];
  return b.text !== undefined ? [{ text: b.text }] : [];
}

/**
 * Reads a `ConverseStream` answer into what `ConverseCommand` returns (content blocks, stop
 * reason, usage), handing each text delta to `onDelta` as it arrives. Exceptions sent inside the
 * stream (`throttlingException`, `modelStreamErrorException`, ...) are thrown by the SDK here.
 */
async function readStream(output: ConverseStreamCommandOutput, onDelta: OnDelta, ctx: ModelCallContext): Promise<ConverseCommandOutput> {
  const blocks: BlockSoFar[] = [];
  let role: Message['role'] = 'assistant';
  let stop: Pick<ConverseCommandOutput, 'stopReason' | 'additionalModelResponseFields'> | undefined;
  let meta: Pick<ConverseCommandOutput, 'usage' | 'metrics'> = { usage: undefined, metrics: undefined };
  for await (const event of output.stream ?? []) {
    if (event.messageStart?.role) role = event.messageStart.role;
    const start = event.contentBlockStart;
    if (start?.start?.toolUse) {
      blocks[start.contentBlockIndex ?? 0] = { toolUse: { toolUseId: start.start.toolUse.toolUseId, name: start.start.toolUse.name, input: '' } };
    }
    const delta = event.contentBlockDelta?.delta;
    if (delta) {
      const block = (blocks[event.contentBlockDelta?.contentBlockIndex ?? 0] ??= {});
      if (delta.text !== undefined) {
        block.text = (block.text ?? '') + delta.text;
        onDelta(delta.text);
      } else if (delta.toolUse) {
        block.toolUse ??= { input: '' };
        block.toolUse.input += delta.toolUse.input ?? '';
      } else if (delta.reasoningContent) {
        // Reasoning is kept in the raw answer as the plain call has it, never handed to onDelta.
        block.reasoning ??= { text: '' };
        block.reasoning.text += delta.reasoningContent.text ?? '';
        if (delta.reasoningContent.signature) block.reasoning.signature = delta.reasoningContent.signature;
      }
    }
    if (event.messageStop) stop = { stopReason: event.messageStop.stopReason, additionalModelResponseFields: event.messageStop.additionalModelResponseFields };
    if (event.metadata) meta = { usage: event.metadata.usage, metrics: event.metadata.metrics };
  }
  // A stream that ends before messageStop was cut without an error.
  if (!stop?.stopReason) throw streamCutFailure('Bedrock', ctx);
  return {
    $metadata: output.$metadata,
    output: { message: { role, content: blocks.flatMap((b) => finishedBlock(b)) } },
    stopReason: stop.stopReason,
    ...(stop.additionalModelResponseFields !== undefined ? { additionalModelResponseFields: stop.additionalModelResponseFields } : {}),
    usage: meta.usage,
    metrics: meta.metrics,
  };
}

/**
 * Sends one `ConverseCommand` with `maxAttempts: 1`: Temporal's retry policy is the one retry
 * mechanism. Credentials come from the SDK's default chain. With `onDelta`, sends
 * `ConverseStreamCommand` instead and hands it each text delta; the output has the same shape.
 *
 * @param iface - interface name, for failure messages
 * @param input - the command input without `modelId` (taken from `model.model`)
 * @throws ApplicationFailure `Bedrock.Configuration` when the model is missing; the SDK's errors as they are (the adapter's `failure` maps them)
 */
export async function converse(
  iface: string,
  model: BedrockModelSettings,
  input: Omit<ConverseCommandInput, 'modelId'>,
  { providers, cache }: BedrockClients,
  onDelta?: OnDelta,
): Promise<ConverseCommandOutput> {
  if (!model.model) {
    throw ApplicationFailure.nonRetryable(`${iface} needs llm.model in the agent file`, 'Bedrock.Configuration');
  }
  const ctx = { interface: iface, model: model.model };
  const client = cache.get({
    region: model.region ?? providers.setting(BEDROCK_VARIABLES.region),
    endpoint: model.base_url ?? providers.setting(BEDROCK_VARIABLES.endpoint),
    requestTimeoutMs: timeoutMs(model.parameters),
  });
  // Parameters inferenceConfig does not hold are the model's own fields (Claude's top_k …).
  const extra = otherParameters(model.parameters, INFERENCE_PARAMETERS);
  const command = { ...input, ...(extra ? { additionalModelRequestFields: extra as never } : {}), modelId: model.model };
  const options = { abortSignal: activitySignal() };
  if (!onDelta) return await client.send(new (bedrockSdk().ConverseCommand)(command), options);
  // Only guardrailConfig differs between the two inputs, and perflow sets none.
  const streamed = await client.send(new (bedrockSdk().ConverseStreamCommand)(command as ConverseStreamCommandInput), options);
  return await readStream(streamed, onDelta, ctx);
}

/**
 * A Converse answer's usage in perflow's terms: `inputTokens` counts only the uncached input, so
 * the prompt cache's reads and writes are added to `input_tokens` and named as well (priced at
 * their own rates, see telemetry/model-prices.ts).
 */
export function converseUsage(usage: ConverseCommandOutput['usage']): Usage {
  const read = usage?.cacheReadInputTokens ?? 0;
  const written = usage?.cacheWriteInputTokens ?? 0;
  return {
    input_tokens: (usage?.inputTokens ?? 0) + read + written,
    output_tokens: usage?.outputTokens ?? 0,
    ...(read > 0 ? { cached_input_tokens: read } : {}),
    ...(written > 0 ? { cache_write_input_tokens: written } : {}),
  };
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
