/**
 * The `bedrock/converse/claude` LLM interface: Claude on Amazon Bedrock through the Converse API,
 * with native tool use (`toolConfig`, `toolUse` and `toolResult` blocks).
 */
import type { ContentBlock, ConverseCommandInput, Message, Tool } from '@aws-sdk/client-bedrock-runtime';
import type { ChatMessage, ToolCall, ToolSpec } from '../../core/llm-types';
import type { OutputFormat } from '../../core/activity-contract';
import { builtinInterface } from '../../core/agent-file/llm-interfaces';
import { BEDROCK_ADAPTER, converse, converseUsage, inferenceConfig, mapStopReason, pushBlocks, type BedrockClients } from './bedrock-converse';
import type { ModelAdapter } from './adapter';
import { claudeOutputSchema } from './output-format';

/** Interface name, as in the agent file. */
export const BEDROCK_CLAUDE_INTERFACE = 'bedrock/converse/claude';

/**
 * Maps the provider-neutral history to Converse messages: assistant tool calls become `toolUse`
 * blocks; consecutive tool results are merged into one user message of `toolResult` blocks
 * (`status: "error"` for failed tools).
 */
export function toConverseMessages(messages: ChatMessage[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      pushBlocks(out, 'user', m.content === '' ? [] : [{ text: m.content }]);
    } else if (m.role === 'assistant') {
      const blocks: ContentBlock[] = m.content.trim() === '' ? [] : [{ text: m.content }];
      for (const c of m.tool_calls ?? []) blocks.push({ toolUse: { toolUseId: c.id, name: c.name, input: c.input as never } });
      pushBlocks(out, 'assistant', blocks);
    } else {
      pushBlocks(out, 'user', [
        {
          toolResult: {
            toolUseId: m.tool_call_id,
            content: [{ text: m.content === '' ? '(empty result)' : m.content }],
            status: m.is_error ? 'error' : 'success',
          },
        },
      ]);
    }
  }
  return out;
}

/** Tool specs as Converse `toolSpec`s whose `inputSchema.json` is the tools' input JSON Schema. */
export function toConverseTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t) => ({
    toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.input_schema as never } },
  }));
}

/**
 * A typed answer as Converse's structured output (`outputConfig.textFormat`, the schema as JSON
 * text) in the form Claude takes (see `claudeOutputSchema`); none when the agent file gives
 * Claude's own `output_config.format` (sent in `additionalModelRequestFields`), which wins.
 */
export function converseOutputConfig(output: OutputFormat | undefined, parameters: Record<string, unknown> | undefined): Pick<ConverseCommandInput, 'outputConfig'> {
  const own = asInput(parameters?.output_config);
  const schema = output && own.format === undefined ? claudeOutputSchema(output) : undefined;
  if (!output || !schema) return {};
  return { outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { name: output.name, schema: JSON.stringify(schema) } } } } };
}

function asInput(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * Claude on Bedrock as a model adapter: Converse once with the tools in `toolConfig`; with
 * `onDelta`, streamed (`ConverseStream`), each answer text delta handed to it as it arrives and
 * the same response returned. Errors: `Bedrock.<Kind>` (see `errors.ts`).
 */
export const bedrockClaudeAdapter: ModelAdapter<BedrockClients> = {
  spec: builtinInterface(BEDROCK_CLAUDE_INTERFACE),
  ...BEDROCK_ADAPTER,
  async chat(clients, { model, request, onDelta }) {
    const tools = request.tools ?? [];
    const output = await converse(BEDROCK_CLAUDE_INTERFACE, model, {
      ...(request.system !== '' ? { system: [{ text: request.system }] } : {}),
      messages: toConverseMessages(request.messages),
      ...(tools.length > 0 ? { toolConfig: { tools: toConverseTools(tools) } } : {}),
      inferenceConfig: inferenceConfig(model.parameters),
      ...converseOutputConfig(request.output, model.parameters),
    }, clients, onDelta);
    const blocks = output.output?.message?.content ?? [];
    const text = blocks.flatMap((b) => (b.text !== undefined ? [b.text] : [])).join('');
    const toolCalls: ToolCall[] = blocks.flatMap((b) =>
      b.toolUse ? [{ id: b.toolUse.toolUseId ?? '', name: b.toolUse.name ?? '', input: asInput(b.toolUse.input) }] : [],
    );
    const stop = mapStopReason(output.stopReason);
    return {
      content: text,
      tool_calls: toolCalls,
      stop_reason: toolCalls.length > 0 ? 'tool_use' : stop,
      usage: converseUsage(output.usage),
      raw: output,
    };
  },
};
