/**
 * The LLM interfaces perflow can call and their default response filters. Schema-free, so
 * workflow code imports it without the agent file's schemas (workers/workflow-source.ts shares
 * it among all workflows of a worker).
 */

/** The model interfaces perflow can call. `scripted` replays a fixed script (tests, demos). */
export const LLM_INTERFACES = [
  'openai/v1/chat/completions',
  'bedrock/converse/claude',
  'bedrock/converse/deepseek_r1',
  'scripted',
] as const;

/** An LLM interface name. */
export type LlmInterfaceName = (typeof LLM_INTERFACES)[number];

/** Alternative spellings accepted for an interface (the seed also names them with underscores). */
const INTERFACE_ALIASES: Record<string, LlmInterfaceName> = {
  openai_v1_chat_completions: 'openai/v1/chat/completions',
  bedrock_converse_claude: 'bedrock/converse/claude',
  bedrock_converse_deepseek_r1: 'bedrock/converse/deepseek_r1',
};

/** An interface name as written, matched ignoring case, surrounding spaces and the seed's underscore spellings. */
export const normalizeInterface = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  return INTERFACE_ALIASES[s] ?? s;
};

const LLM_RESPONSE_FILTERS: Record<LlmInterfaceName, string> = {
  'openai/v1/chat/completions': '$.choices[0].message.content',
  'bedrock/converse/claude': '$.output.message.content[0].text',
  'bedrock/converse/deepseek_r1': '$.output.message.content[0].text',
  scripted: '$.content',
};

/**
 * The default `llm_response_filter` (JSONPath to the answer text in the raw response) of an
 * interface, as the seed sets it when the parameter is missing or empty.
 *
 * @param iface - the LLM interface
 */
export function llmResponseFilterFor(iface: LlmInterfaceName): string {
  return LLM_RESPONSE_FILTERS[iface];
}
