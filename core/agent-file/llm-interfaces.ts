/**
 * The model interfaces perflow ships, as specs: the pure half of each model adapter (the I/O
 * half is activities/llm/, one module per provider). Schema-free, so workflow code imports it
 * without the agent file's schemas (workers/workflow-source.ts shares it among all workflows of
 * a worker); the interfaces a process adds are in known-interfaces.ts, which workflow code never
 * sees.
 */

/** What perflow knows of a model interface without calling it. */
export interface ModelInterfaceSpec {
  /** The name an agent file gives in `llm.interface`. */
  readonly name: string;
  /** Other spellings accepted for it (the seed's underscore names), matched ignoring case and surrounding spaces. */
  readonly aliases?: readonly string[];
  /**
   * The default `llm_response_filter`: the JSONPath to the answer text in the raw response.
   * Workflow code knows only the built-in interfaces' filters: an added interface's is
   * {@link ADDED_INTERFACE_RESPONSE_FILTER}.
   */
  readonly responseFilter?: string;
  /** The price table's provider (`@pydantic/genai-prices` ids: `openai`, `aws`, `anthropic`, `google`); none: only an agent file's `price` prices it. */
  readonly priceTableProvider?: string;
  /** Whether an Axon Ivy model name (lower case) is served by this interface; the OpenAI interface serves the names no spec claims. */
  readonly servesIvyModel?: (model: string) => boolean;
  /** The worker variable holding the provider's key, which a model's `api_key_env` replaces (an Axon Ivy `*ModelKey` sets it). */
  readonly apiKeyVariable?: string;
  /** Other variables the provider's own SDK reads the key from (Gemini's `GOOGLE_API_KEY`): provider keys as that one is. */
  readonly otherKeyVariables?: readonly string[];
  /** The worker variable naming the operator's endpoint for the provider: its key may always go there, whatever the worker policy says. */
  readonly endpointVariable?: string;
  /** The provider as OpenTelemetry's GenAI conventions name it (`gen_ai.system`); default the interface name. */
  readonly genAiProvider?: string;
}

/** The interface that serves what no spec claims (Axon Ivy model names): OpenAI Chat Completions or a compatible server. */
export const OPENAI_INTERFACE = 'openai/v1/chat/completions';

/** The model interfaces perflow ships, in the order refusals list them. `scripted` replays a fixed script (tests, demos). */
export const BUILTIN_MODEL_INTERFACES = [
  {
    name: OPENAI_INTERFACE,
    aliases: ['openai_v1_chat_completions'],
    responseFilter: '$.choices[0].message.content',
    priceTableProvider: 'openai',
    apiKeyVariable: 'OPENAI_API_KEY',
    endpointVariable: 'OPENAI_BASE_URL',
    genAiProvider: 'openai',
  },
  {
    name: 'bedrock/converse/claude',
    aliases: ['bedrock_converse_claude'],
    responseFilter: '$.output.message.content[0].text',
    priceTableProvider: 'aws',
    endpointVariable: 'PERFLOW_BEDROCK_ENDPOINT',
    genAiProvider: 'aws.bedrock',
    servesIvyModel: (model: string) => model.includes('claude') || model.includes('anthropic'),
  },
  {
    name: 'bedrock/converse/deepseek_r1',
    aliases: ['bedrock_converse_deepseek_r1'],
    responseFilter: '$.output.message.content[0].text',
    priceTableProvider: 'aws',
    endpointVariable: 'PERFLOW_BEDROCK_ENDPOINT',
    genAiProvider: 'aws.bedrock',
    servesIvyModel: (model: string) => model.includes('deepseek'),
  },
  {
    name: 'anthropic/v1/messages',
    aliases: ['anthropic_v1_messages'],
    // The first text block: a thinking block may come before it.
    responseFilter: "$.content[?(@.type=='text')].text",
    priceTableProvider: 'anthropic',
    apiKeyVariable: 'ANTHROPIC_API_KEY',
    endpointVariable: 'ANTHROPIC_BASE_URL',
    genAiProvider: 'anthropic',
  },
  {
    name: 'google/generate_content',
    aliases: ['google_generate_content'],
    // The first answer text part: thought parts (marked `thought`) come before it.
    responseFilter: "$.candidates[0].content.parts[?(@.text && !@.thought)].text",
    priceTableProvider: 'google',
    apiKeyVariable: 'GEMINI_API_KEY',
    otherKeyVariables: ['GOOGLE_API_KEY'],
    endpointVariable: 'GEMINI_BASE_URL',
    genAiProvider: 'gcp.gemini',
  },
  {
    name: 'openai/v1/responses',
    aliases: ['openai_v1_responses'],
    // The assistant message's text: reasoning and function-call items may come before it.
    responseFilter: "$.output[?(@.type=='message')].content[?(@.type=='output_text')].text",
    priceTableProvider: 'openai',
    apiKeyVariable: 'OPENAI_API_KEY',
    endpointVariable: 'OPENAI_BASE_URL',
    genAiProvider: 'openai',
  },
  { name: 'scripted', responseFilter: '$.content', servesIvyModel: (model: string) => model === 'scripted' },
] as const satisfies readonly ModelInterfaceSpec[];

/** The built-in model interfaces' names. */
export const LLM_INTERFACES = BUILTIN_MODEL_INTERFACES.map((spec) => spec.name);

/** A built-in model interface's name. */
export type LlmInterfaceName = (typeof BUILTIN_MODEL_INTERFACES)[number]['name'];

/**
 * The default `llm_response_filter` of an interface no built-in spec describes: the answer text
 * in perflow's own response shape. Workflow code never sends a default filter, so an added
 * adapter's answer is taken as it returns it unless the agent file sets a filter of its own.
 */
export const ADDED_INTERFACE_RESPONSE_FILTER = '$.content';

/** The built-in spec of an interface name (canonical), if it is one. */
export function builtinInterface(name: LlmInterfaceName): ModelInterfaceSpec;
export function builtinInterface(name: string): ModelInterfaceSpec | undefined;
export function builtinInterface(name: string): ModelInterfaceSpec | undefined {
  return BUILTIN_MODEL_INTERFACES.find((spec) => spec.name === name);
}

/**
 * An interface name as written, matched ignoring case, surrounding spaces and the specs'
 * aliases (the seed's underscore spellings); anything else is returned as it is.
 *
 * @param specs - the interfaces whose aliases count: the built-in ones unless given
 */
export const normalizeInterface = (v: unknown, specs: readonly ModelInterfaceSpec[] = BUILTIN_MODEL_INTERFACES): unknown => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  return specs.find((spec) => spec.aliases?.includes(s))?.name ?? s;
};

/**
 * The default `llm_response_filter` (JSONPath to the answer text in the raw response) of an
 * interface, as the seed sets it when the parameter is missing or empty;
 * {@link ADDED_INTERFACE_RESPONSE_FILTER} for an interface added to a worker.
 *
 * @param iface - the LLM interface
 */
export function llmResponseFilterFor(iface: string): string {
  return builtinInterface(iface)?.responseFilter ?? ADDED_INTERFACE_RESPONSE_FILTER;
}
