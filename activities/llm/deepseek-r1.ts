/**
 * The `bedrock/converse/deepseek_r1` LLM interface: DeepSeek-R1 on Amazon Bedrock, which has no
 * native function calling. The tools are described in the system prompt with the seed's
 * protocol: the model answers a JSON object
 * `{"stop_reason": "tool_use"|"end_turn", "tool_calls": [{"id", "tool_name", "input"}], "message": ...}`,
 * and tool results go back as user text. Reasoning (`<think>…</think>`, `reasoningContent`
 * blocks) is dropped: it is never sent back in the history.
 */
import { randomUUID } from 'node:crypto';
import type { ChatMessage, ChatResponse, ToolCall, ToolSpec } from '../../core/llm-types';
import { builtinInterface } from '../../core/agent-file/llm-interfaces';
import { BEDROCK_ADAPTER, converse, converseUsage, inferenceConfig, pushBlocks, type BedrockClients } from './bedrock-converse';
import type { Message } from '@aws-sdk/client-bedrock-runtime';
import { extractJson } from '../../core/json-in-text';
import type { ModelAdapter } from './adapter';

/** Interface name, as in the agent file. */
export const DEEPSEEK_R1_INTERFACE = 'bedrock/converse/deepseek_r1';

/** The seed's tool-use instructions; `{{tools}}` is replaced by the tools as JSON. */
const TOOL_PROTOCOL_PROMPT =
  'You can ask Human to use tools to look up information that may be helpful in answering the users original question. The tools the human can use are:\n' +
  '[{{tools}}]\n\n' +
  'If need to use tool, return which tool should be used and the input to user is enough. User will run the tool to get information. ' +
  'To make it easier for user to parse the response to know whether they should invoke a tool or not, please also return "stop_reason", ' +
  'it only return one of two enum values: [end_turn, tool_use], add a random tool call id to differenciate in case same tool invoked multiple times. ' +
  'Tool call id follow this pattern "tool_use_<random string>". The random string should be some UUID.\n\n' +
  'For example, you should return a json like this if need to use tool:\n' +
  '{"stop_reason": "tool_use", "tool_calls": [{"id":"tool_use_IIHBxMgOTjGb6ascCiOILg","tool_name":"search_opensearch_index","input": {"index":"population_data","query":{"query":{"match":{"city":"New York City"}}}}}]}\n\n' +
  "If don't need to use tool, return a json like this:\n" +
  '{"stop_reason": "end_turn", "message": {"role":"user","content":[{"text":"What is the most popular song on WZPZ?"}]}}\n\n' +
  "NOTE: Don't wrap response in markdown ```json<response>```. For example don't return " +
  '```json\\n{"stop_reason": "end_turn", "message": {"role":"user","content":[{"text":"What is the most popular song on WZPZ?"}]}}```\n';

/** Where seed 002's DeepSeek-R1 prompt puts the tool list. */
export const TOOLS_PLACEHOLDER = '${parameters._tools.toString()}';

/**
 * The system prompt: the caller's, then the tool protocol when tools are offered. A prompt
 * that brings the protocol itself (seed 002's, passed as `executor_system_prompt`) gets the
 * tool list at its `${parameters._tools.toString()}` and no second protocol.
 */
export function deepSeekSystemPrompt(system: string, tools: ToolSpec[]): string {
  const described = tools.map((t) => JSON.stringify({ name: t.name, description: t.description, input_schema: t.input_schema })).join(', ');
  if (system.includes(TOOLS_PLACEHOLDER)) return system.split(TOOLS_PLACEHOLDER).join(described);
  if (tools.length === 0) return system;
  const protocol = TOOL_PROTOCOL_PROMPT.replace('{{tools}}', described);
  return system === '' ? protocol : `${system}\n\n${protocol}`;
}

/** Removes `<think>…</think>` reasoning (and an unclosed trailing `<think>` or a leading orphan `</think>`). */
export function stripReasoning(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/g, '');
  out = out.replace(/<think>[\s\S]*$/, '');
  const orphan = out.lastIndexOf('</think>');
  if (orphan >= 0) out = out.slice(orphan + '</think>'.length);
  return out.trim();
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const parsed = extractJson(text, 'object');
  const v = parsed.ok ? parsed.value : undefined;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function messageText(message: unknown): string | undefined {
  if (typeof message === 'string') return message;
  if (typeof message !== 'object' || message === null) return undefined;
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b: unknown) => (typeof b === 'string' ? b : typeof (b as { text?: unknown })?.text === 'string' ? (b as { text: string }).text : ''))
      .join('');
  }
  return undefined;
}

function asInput(v: unknown): Record<string, unknown> {
  if (typeof v === 'string') {
    try {
      return asInput(JSON.parse(v));
    } catch {
      return {};
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** What the model said, parsed: its answer text and the tools it asked for. */
export interface DeepSeekAnswer {
  content: string;
  tool_calls: ToolCall[];
}

/**
 * Parses a model answer (reasoning already stripped or not). JSON in a markdown fence or with
 * prose around it is tolerated; an answer that is not the protocol's JSON is plain text.
 */
export function parseDeepSeekAnswer(raw: string): DeepSeekAnswer {
  const text = stripReasoning(raw);
  const obj = parseObject(text);
  if (!obj || (obj.stop_reason === undefined && obj.tool_calls === undefined)) return { content: text, tool_calls: [] };
  const calls = Array.isArray(obj.tool_calls) ? obj.tool_calls : [];
  const toolCalls: ToolCall[] = calls.flatMap((c: unknown) => {
    if (typeof c !== 'object' || c === null) return [];
    const call = c as Record<string, unknown>;
    const name = typeof call.tool_name === 'string' ? call.tool_name : typeof call.name === 'string' ? call.name : undefined;
    if (!name) return [];
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : `tool_use_${randomUUID()}`;
    return [{ id, name, input: asInput(call.input) }];
  });
  const content = messageText(obj.message) ?? (toolCalls.length > 0 ? '' : typeof obj.result === 'string' ? obj.result : text);
  return { content, tool_calls: toolCalls };
}

/** An assistant turn as the model would have written it under the protocol (no reasoning). */
function assistantText(m: Extract<ChatMessage, { role: 'assistant' }>): string {
  const content = stripReasoning(m.content);
  const calls = m.tool_calls ?? [];
  if (calls.length === 0) return content;
  return JSON.stringify({
    stop_reason: 'tool_use',
    tool_calls: calls.map((c) => ({ id: c.id, tool_name: c.name, input: c.input })),
    ...(content !== '' ? { message: content } : {}),
  });
}

/** Maps the history to Converse messages: tool calls as protocol JSON, tool results as user text. */
export function toDeepSeekMessages(messages: ChatMessage[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      pushBlocks(out, 'user', m.content === '' ? [] : [{ text: m.content }]);
    } else if (m.role === 'assistant') {
      const text = assistantText(m);
      pushBlocks(out, 'assistant', text === '' ? [] : [{ text }]);
    } else {
      const verdict = m.is_error ? 'failed with error' : 'returned';
      pushBlocks(out, 'user', [{ text: `Tool "${m.name}" (tool call id ${m.tool_call_id}) ${verdict}:\n${m.content}` }]);
    }
  }
  return out;
}

/**
 * DeepSeek-R1 on Bedrock as a model adapter: Converse once, without `toolConfig`, and the
 * protocol's JSON answer parsed. With `onDelta`, streamed (`ConverseStream`): the deltas are the
 * model's raw text (protocol JSON, `<think>` reasoning and all), the response is the parsed
 * answer as without. Errors: `Bedrock.<Kind>` (see `errors.ts`).
 */
export const deepSeekR1Adapter: ModelAdapter<BedrockClients> = {
  spec: builtinInterface(DEEPSEEK_R1_INTERFACE),
  ...BEDROCK_ADAPTER,
  async chat(clients, { model, request, onDelta }) {
    const system = deepSeekSystemPrompt(request.system, request.tools ?? []);
    const output = await converse(DEEPSEEK_R1_INTERFACE, model, {
      ...(system !== '' ? { system: [{ text: system }] } : {}),
      messages: toDeepSeekMessages(request.messages),
      inferenceConfig: inferenceConfig(model.parameters),
      // No outputConfig for a typed answer: a tool turn must answer the protocol's JSON, so only the prompt states the schema.
    }, clients, onDelta);
    // reasoningContent blocks carry no `text`: only the answer text is kept.
    const raw = (output.output?.message?.content ?? []).flatMap((b) => (b.text !== undefined ? [b.text] : [])).join('');
    const answer = parseDeepSeekAnswer(raw);
    const stop: ChatResponse['stop_reason'] =
      answer.tool_calls.length > 0 ? 'tool_use' : output.stopReason === 'max_tokens' ? 'max_tokens' : 'end_turn';
    return {
      content: answer.content,
      tool_calls: answer.tool_calls,
      stop_reason: stop,
      usage: converseUsage(output.usage),
      raw: output,
    };
  },
};
