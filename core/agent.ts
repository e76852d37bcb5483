/**
 * The agent file: a zod schema that mirrors the seed's register-agent body (name, type,
 * description, llm, memory, parameters, tools), plus run-time parameter resolution.
 *
 * Parse once where a definition enters (client and worker) with {@link parseAgentDefinition};
 * every error names its field path. Pure module: safe to import from workflow code.
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULT_DATETIME_FORMAT } from './datetime';
import { fallbackError, toIssues, type AgentDefinitionIssue } from './issues';
import { isIvyAgentFile, mapIvyAgent } from './ivy-agent';
import { TASK_KINDS, type TaskKind } from './llm-types';
import { BUILTIN_TOOL_TYPES } from './tool-types';
import { DEFAULT_REPLAN_KEYWORDS } from './agent-type-prompts';
import {
  DEFAULT_EXECUTOR_SYSTEM_PROMPT,
  DEFAULT_PLANNER_PROMPT,
  DEFAULT_PLANNER_PROMPT_TEMPLATE,
  DEFAULT_PLANNER_SYSTEM_PROMPT,
  DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE,
  DEFAULT_REFLECT_PROMPT,
  DEFAULT_REFLECT_PROMPT_TEMPLATE,
  PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT,
} from './prompts';

// ---------------------------------------------------------------------------------------------
// helpers

type PlainObject = Record<string, unknown>;

const isPlainObject = (v: unknown): v is PlainObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const requiredOr =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'is required' : message;

/** Accepts numbers given as strings ("20"), as the seed's API passes every parameter as a string. */
const toNumber = (v: unknown): unknown => {
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return v;
};

/** Accepts booleans given as strings ("true", "FALSE"). */
const toBoolean = (v: unknown): unknown => {
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return v;
};

const integerParam = (min: 0 | 1, defaultValue: number) => {
  const message = min === 1 ? 'expected a positive integer' : 'expected a non-negative integer';
  return z
    .preprocess(toNumber, z.number({ error: message }).int({ error: message }).min(min, { error: message }))
    .default(defaultValue);
};

const booleanParam = (defaultValue: boolean) =>
  z.preprocess(toBoolean, z.boolean({ error: 'expected true or false' })).default(defaultValue);

const stringParam = () => z.string({ error: 'expected a string' }).optional();

// ---------------------------------------------------------------------------------------------
// LLM interfaces

/** The model interfaces perflow can call. `scripted` replays a fixed script (tests, demos). */
export const LLM_INTERFACES = [
  'openai/v1/chat/completions',
  'bedrock/converse/claude',
  'bedrock/converse/deepseek_r1',
  'scripted',
] as const;

/** Alternative spellings accepted for an interface (the seed also names them with underscores). */
const INTERFACE_ALIASES: Record<string, (typeof LLM_INTERFACES)[number]> = {
  openai_v1_chat_completions: 'openai/v1/chat/completions',
  bedrock_converse_claude: 'bedrock/converse/claude',
  bedrock_converse_deepseek_r1: 'bedrock/converse/deepseek_r1',
};

const normalizeInterface = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  return INTERFACE_ALIASES[s] ?? s;
};

/**
 * An LLM interface name. Matching ignores case and surrounding spaces, and the seed's
 * underscore spellings (`bedrock_converse_claude`) are accepted too.
 */
export const LlmInterface = z.preprocess(
  normalizeInterface,
  z.enum(LLM_INTERFACES, { error: requiredOr(`expected one of ${LLM_INTERFACES.join(', ')}`) }),
);
/** An LLM interface name. */
export type LlmInterface = z.infer<typeof LlmInterface>;

const LLM_RESPONSE_FILTERS: Record<LlmInterface, string> = {
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
export function llmResponseFilterFor(iface: LlmInterface): string {
  return LLM_RESPONSE_FILTERS[iface];
}

// ---------------------------------------------------------------------------------------------
// models

const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A tool call in a scripted executor turn. */
export const ScriptedToolCall = z.object({
  /** Name of the tool to call. */
  name: z.string({ error: requiredOr('expected a string') }).min(1, { error: 'must not be empty' }),
  /** Tool input. */
  input: z.record(z.string(), z.unknown(), { error: requiredOr('expected an object') }),
  /**
   * Tool call ID.
   * @default generated
   */
  id: z.string({ error: 'expected a string' }).optional(),
});
/** A tool call in a scripted executor turn. */
export type ScriptedToolCall = z.infer<typeof ScriptedToolCall>;

/**
 * One scripted executor model turn: either a final answer `{content}` or tool calls
 * `{tool_calls, content?}`.
 */
export const ExecutorTurn = z.union(
  [
    z.strictObject({
      tool_calls: z.array(ScriptedToolCall).min(1, { error: 'must not be empty' }),
      content: z.string().optional(),
    }),
    z.strictObject({ content: z.string() }),
  ],
  { error: 'expected {"content": string} or {"tool_calls": [{"name", "input"}], "content"?: string}' },
);
/** One scripted executor model turn. */
export type ExecutorTurn = z.infer<typeof ExecutorTurn>;

/** The script of a `scripted` model. */
export const ModelScript = z.object({
  /** Planner answers, in call order (each is the raw text the planner "returns"). */
  planner: z.array(z.string({ error: 'expected a string' }), { error: requiredOr('expected an array of strings') }),
  /** Executor turns per executed step: `executor[i]` is the turn list of step i+1. */
  executor: z
    .array(z.array(ExecutorTurn, { error: 'expected an array of turns' }), {
      error: requiredOr('expected an array of turn arrays'),
    })
    .default([]),
  /** Answers of summary calls (the max-steps summary); without one the steps are listed instead. */
  summary: z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' }).optional(),
  ...Object.fromEntries(
    TASK_KINDS.map((kind) => [kind, z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' }).optional()]),
  ) as Record<TaskKind, z.ZodOptional<z.ZodArray<z.ZodString>>>,
});
/** The script of a `scripted` model. */
export type ModelScript = z.infer<typeof ModelScript>;

const ModelConfigObject = z
  .object({
    /** Which API to call. Taken from `parameters._llm_interface` when missing (seed style). */
    interface: LlmInterface,
    /**
     * Model name or ID (e.g. `gpt-4o`, `us.anthropic.claude-3-7-sonnet-20250219-v1:0`).
     * The seed's `model_id` is accepted as an alias. Required unless `interface` is `scripted`.
     */
    model: z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }).optional(),
    /**
     * Base URL of an OpenAI-compatible endpoint.
     * @default the worker's OPENAI_BASE_URL, else the provider's URL
     */
    base_url: z.url({ error: 'expected a URL' }).optional(),
    /**
     * AWS region of a Bedrock model.
     * @default the worker's AWS region
     */
    region: z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }).optional(),
    /**
     * Model call parameters (`temperature`, `max_tokens`, ...).
     * @default {}
     */
    parameters: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional(),
    /** The replayed answers; required when `interface` is `scripted`. */
    script: ModelScript.optional(),
    /**
     * Name of the worker's environment variable holding the API key (OpenAI interface). Never
     * the key itself: keys stay in the worker's environment.
     * @default OPENAI_API_KEY
     */
    api_key_env: z
      .string({ error: 'expected a string' })
      .regex(ENV_VAR_NAME, { error: 'expected the name of an environment variable (letters, digits, "_")' })
      .optional(),
  }, { error: requiredOr('expected an object') })
  .superRefine((cfg, ctx) => {
    if (cfg.interface === 'scripted') {
      if (cfg.script === undefined) {
        ctx.addIssue({ code: 'custom', path: ['script'], message: 'is required when interface is "scripted"' });
      }
    } else if (cfg.model === undefined) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: `is required for interface "${cfg.interface}"` });
    }
  });

/** Accepts the seed's `model_id` as `model`. */
const aliasModelId = (v: unknown): unknown => {
  if (!isPlainObject(v) || !('model_id' in v)) return v;
  const { model_id: modelId, ...rest } = v;
  return rest.model === undefined ? { ...rest, model: modelId } : rest;
};

/** Which model to call and how: `{interface, model, base_url?, region?, parameters?, script?}`. */
export const ModelConfig = z.preprocess(aliasModelId, ModelConfigObject);
/** Which model to call and how. */
export type ModelConfig = z.infer<typeof ModelConfig>;

// ---------------------------------------------------------------------------------------------
// parameters

/**
 * Agent parameters: every optional parameter of the seed under its seed name and with its
 * seed default, plus perflow's own. Numbers and booleans may be given as strings (`"20"`,
 * `"true"`), as in the seed's API. Unknown parameters are kept, so custom prompts can
 * reference any `${parameters.x}`.
 */
export const AgentParameters = z.looseObject({
  /**
   * Maximum number of steps to execute before the run stops with a summary.
   * @default 20
   */
  max_steps: integerParam(1, 20),
  /**
   * Maximum ReAct iterations (model calls) of the executor for one step.
   * @default 20
   */
  executor_max_iterations: integerParam(1, 20),
  /**
   * Number of previous messages of the conversation given to the planner as completed steps.
   * @default 10
   */
  message_history_limit: integerParam(0, 10),
  /**
   * Number of previous messages of the executor's memory given to the executor.
   * @default 10
   */
  executor_message_history_limit: integerParam(0, 10),
  /**
   * Whether the current date and time is appended to both system prompts.
   * @default false
   */
  inject_datetime: booleanParam(false),
  /**
   * strftime-like format of the injected date (`%Y %m %d %H %M %S %A %B %Z`); an invalid
   * format falls back to the default with a warning.
   * @default "%Y-%m-%d %H:%M:%S %Z"
   */
  datetime_format: stringParam(),
  /**
   * Planner system prompt.
   * @default DEFAULT_PLANNER_SYSTEM_PROMPT
   */
  system_prompt: stringParam(),
  /**
   * Executor system prompt.
   * @default DEFAULT_EXECUTOR_SYSTEM_PROMPT
   */
  executor_system_prompt: stringParam(),
  /**
   * Planner instruction, `${parameters.planner_prompt}` in the templates.
   * @default DEFAULT_PLANNER_PROMPT
   */
  planner_prompt: stringParam(),
  /**
   * Reflection instruction, `${parameters.reflect_prompt}` in the reflect template.
   * @default DEFAULT_REFLECT_PROMPT
   */
  reflect_prompt: stringParam(),
  /**
   * Template of the first planner call.
   * @default DEFAULT_PLANNER_PROMPT_TEMPLATE
   */
  planner_prompt_template: stringParam(),
  /**
   * Template of the planner calls after a step.
   * @default DEFAULT_REFLECT_PROMPT_TEMPLATE
   */
  reflect_prompt_template: stringParam(),
  /**
   * Template of the first planner call when the conversation has history.
   * @default DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE
   */
  planner_with_history_template: stringParam(),
  /**
   * LLM interface of the planner, seed spelling.
   * @default llm.interface
   */
  llm_interface: LlmInterface.optional(),
  /**
   * LLM interface of the planner as the seed's register-agent body names it; also used as
   * `llm.interface` when that is missing.
   * @default llm.interface
   */
  _llm_interface: LlmInterface.optional(),
  /**
   * JSONPath to the answer text in a raw model response.
   * @default per interface, see {@link llmResponseFilterFor}
   */
  llm_response_filter: stringParam(),
  /**
   * The user's question (the objective). Usually given at run time.
   * @default none
   */
  question: stringParam(),
  /**
   * Conversation to continue; its history becomes completed steps.
   * @default a new conversation
   */
  memory_id: stringParam(),
  /**
   * ID of an existing executor agent (seed parameter; perflow's executor is built in).
   * @default none
   */
  executor_agent_id: stringParam(),
  /**
   * Tenant identifier, stored with memory records.
   * @default none
   */
  tenant_id: stringParam(),
  /**
   * How many times an unparseable planner answer is retried (with the parse error appended to
   * the prompt) before the run fails. perflow's own parameter.
   * @default 3
   */
  max_parse_retries: integerParam(0, 3),
  /**
   * Token budget of a run (input + output tokens of every model call). When a step ends with
   * the budget used up, the run ends cleanly with "Token Budget Reached" and a summary, as at
   * max_steps. 0 means no budget. perflow's own parameter.
   * @default 0
   */
  token_budget: integerParam(0, 0),
  /**
   * Continue-as-new once the run's history holds this many events (checked between steps);
   * the run also continues-as-new whenever the Temporal server suggests it. 0: only then.
   * perflow's own parameter.
   * @default 0
   */
  continue_as_new_after_events: integerParam(0, 0),
  /**
   * step_by_step and todo_list: the most step executions (todo iterations) of a run, Axon Ivy's
   * `maxIterations`.
   * @default 20
   */
  max_iterations: integerParam(1, 20),
  /**
   * todo_list: iterations of a todo whose plan does not set `maxIterationsPerTodo`.
   * @default 5
   */
  max_iterations_per_todo: integerParam(1, 5),
  /**
   * plan_and_execute: attempts of a step before it counts as failed.
   * @default 3
   */
  max_step_attempts: integerParam(1, 3),
  /**
   * plan_and_execute: re-plan when a step failed after at least this many attempts.
   * @default 3
   */
  replan_after_failed_attempts: integerParam(1, 3),
  /**
   * plan_and_execute: words in a step's observation that signal a missing prerequisite or a
   * new requirement and trigger re-planning (case-insensitive). A comma-separated string works too.
   * @default DEFAULT_REPLAN_KEYWORDS
   */
  replan_keywords: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : v),
      z.array(z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }), { error: 'expected an array of strings' }),
    )
    .default([...DEFAULT_REPLAN_KEYWORDS]),
  /**
   * plan_and_execute: the viability check re-plans when it says the remaining plan will not
   * work with at least this confidence (0 to 1).
   * @default 0.7
   */
  replan_confidence_threshold: z
    .preprocess(toNumber, z.number({ error: 'expected a number from 0 to 1' }).min(0, { error: 'expected a number from 0 to 1' }).max(1, { error: 'expected a number from 0 to 1' }))
    .default(0.7),
});
/** Agent parameters as parsed (prompts not yet filled in; see {@link ResolvedParameters}). */
export type AgentParameters = z.infer<typeof AgentParameters>;

/**
 * Parameters of one run, fully defaulted: agent parameters overridden by run parameters,
 * prompts, interface and response filter filled in. Unknown parameters are carried through.
 */
export type ResolvedParameters = AgentParameters & {
  /** @default "%Y-%m-%d %H:%M:%S %Z" */
  datetime_format: string;
  /** @default DEFAULT_PLANNER_SYSTEM_PROMPT */
  system_prompt: string;
  /** @default DEFAULT_EXECUTOR_SYSTEM_PROMPT */
  executor_system_prompt: string;
  /** @default DEFAULT_PLANNER_PROMPT */
  planner_prompt: string;
  /** @default DEFAULT_REFLECT_PROMPT */
  reflect_prompt: string;
  /** @default DEFAULT_PLANNER_PROMPT_TEMPLATE */
  planner_prompt_template: string;
  /** @default DEFAULT_REFLECT_PROMPT_TEMPLATE */
  reflect_prompt_template: string;
  /** @default DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE */
  planner_with_history_template: string;
  /** The planner's interface. @default llm.interface */
  llm_interface: LlmInterface;
  /** JSONPath for the planner's interface. @default llmResponseFilterFor(llm_interface) */
  llm_response_filter: string;
  /** Always PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT, for custom prompts (as the seed sets it). */
  plan_execute_reflect_response_format: string;
};

// ---------------------------------------------------------------------------------------------
// agent definition

/**
 * Agent types: the seed's plan-execute-reflect agent, Axon Ivy's step-by-step and todo-list
 * agents, and structured plan-and-execute with re-planning triggers.
 */
export const AGENT_TYPES = ['plan_execute_and_reflect', 'step_by_step', 'todo_list', 'plan_and_execute'] as const;

/** An agent type; matching ignores case, so Axon Ivy's `STEP_BY_STEP` and `TODO_LIST` work too. */
export const AgentType = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.enum(AGENT_TYPES, { error: requiredOr(`expected one of ${AGENT_TYPES.join(', ')}`) }),
);
/** Agent types. */
export type AgentType = z.infer<typeof AgentType>;

/** A tool the agent may use, as in the seed's register-agent body (`{"type": "SearchIndexTool"}`). */
export const ToolSpec = z.object({
  /** Tool type, which selects the implementation. */
  type: z.string({ error: requiredOr('expected a string') }).min(1, { error: 'must not be empty' }),
  /**
   * Name the model calls the tool by.
   * @default the tool type's name
   */
  name: z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }).optional(),
  /**
   * Description shown to the planner and the executor.
   * @default the tool type's description
   */
  description: z.string({ error: 'expected a string' }).optional(),
  /**
   * Tool configuration.
   * @default {}
   */
  parameters: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional(),
});
/** A tool the agent may use. */
export type ToolSpec = z.infer<typeof ToolSpec>;

const serverName = z
  .string({ error: requiredOr('expected a string') })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'expected letters, digits, "_" or "-" (at most 64)' });

/** An MCP server whose tools the agent may use: a stdio command or a streamable HTTP URL. */
export const McpServerConfig = z.union(
  [
    z.strictObject({
      name: serverName,
      /** Program to start; it speaks MCP on stdin/stdout. */
      command: z.string().min(1, { error: 'must not be empty' }),
      args: z.array(z.string(), { error: 'expected an array of strings' }).optional(),
      /** Extra environment of the server process (on top of a minimal default). */
      env: z.record(z.string(), z.string(), { error: 'expected an object of strings' }).optional(),
      cwd: z.string().optional(),
    }),
    z.strictObject({
      name: serverName,
      /** Streamable HTTP endpoint. */
      url: z.url({ error: 'expected a URL' }),
      headers: z.record(z.string(), z.string(), { error: 'expected an object of strings' }).optional(),
    }),
  ],
  { error: 'expected {"name", "command", "args"?, "env"?, "cwd"?} or {"name", "url", "headers"?}' },
);
/** An MCP server whose tools the agent may use. */
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** Agent memory configuration. */
export const MemorySpec = z.object({
  /**
   * Memory kind.
   * @default "conversation_index"
   */
  type: z.enum(['conversation_index'], { error: 'expected one of conversation_index' }),
});
/** Agent memory configuration. */
export type MemorySpec = z.infer<typeof MemorySpec>;

/** An instruction for one phase (Axon Ivy `instructions[]`). */
export const Instruction = z.strictObject({
  type: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(['planning', 'execution'], { error: requiredOr('expected planning or execution') }),
  ),
  content: z.string({ error: requiredOr('expected a string') }),
});
/** An instruction for one phase. */
export type Instruction = z.infer<typeof Instruction>;

/** The contents of an agent's instructions of one type, in file order. */
export function instructionsOf(agent: { instructions?: Instruction[] }, type: Instruction['type']): string[] {
  return (agent.instructions ?? []).filter((i) => i.type === type).map((i) => i.content);
}

/** Fills `llm.interface` from `parameters._llm_interface` and lets `executor_llm` inherit from `llm`. */
const preprocessAgent = (input: unknown): unknown => {
  if (!isPlainObject(input)) return input;
  const out: PlainObject = { ...input };
  const params = isPlainObject(out.parameters) ? out.parameters : {};
  const paramInterface = params._llm_interface ?? params.llm_interface;
  if (isPlainObject(out.llm) && out.llm.interface === undefined && paramInterface !== undefined) {
    out.llm = { ...out.llm, interface: paramInterface };
  }
  if (isPlainObject(out.llm) && isPlainObject(out.executor_llm)) {
    const llm = out.llm;
    const exec: PlainObject = { ...out.executor_llm };
    if (exec.interface === undefined) exec.interface = llm.interface;
    if (normalizeInterface(exec.interface) === normalizeInterface(llm.interface)) {
      if (exec.base_url === undefined && llm.base_url !== undefined) exec.base_url = llm.base_url;
      if (exec.region === undefined && llm.region !== undefined) exec.region = llm.region;
      if (exec.script === undefined && llm.script !== undefined) exec.script = llm.script;
    }
    out.executor_llm = exec;
  }
  return out;
};

const AgentDefinitionObject = z.strictObject(
  {
    /** Agent name; must not be empty. */
    name: z
      .string({ error: requiredOr('expected a string') })
      .refine((s) => s.trim() !== '', { error: 'must not be empty' }),
    /** Agent type. */
    type: AgentType,
    /**
     * What the agent is for.
     * @default ""
     */
    description: z.string({ error: 'expected a string' }).default(''),
    /** The planner model (and the executor model unless `executor_llm` is set). */
    llm: ModelConfig,
    /**
     * The executor model. A partial object inherits `interface` (and, for the same interface,
     * `base_url`, `region` and `script`) from `llm`.
     * @default llm
     */
    executor_llm: ModelConfig.optional(),
    /**
     * MCP servers whose tools the agent may use besides `tools`, listed at run start.
     * @default []
     */
    mcp_servers: z.array(McpServerConfig, { error: 'expected an array' }).default([]),
    /**
     * Memory configuration.
     * @default {"type": "conversation_index"}
     */
    memory: MemorySpec.default({ type: 'conversation_index' }),
    /**
     * Tools the executor may call and the planner may plan with.
     * @default []
     */
    tools: z.array(ToolSpec, { error: 'expected an array' }).default([]),
    /**
     * Agent parameters, overridable per run.
     * @default every parameter at its default
     */
    parameters: AgentParameters.prefault({}),
    /**
     * Seed field naming the application type; stored, not interpreted.
     * @default none
     */
    app_type: z.string({ error: 'expected a string' }).optional(),
    /**
     * The agent's primary objective (Axon Ivy `goal`); required for step_by_step, used by
     * todo_list's goal assessment when given.
     * @default none
     */
    goal: z.string({ error: 'expected a string' }).optional(),
    /**
     * Planning and execution instructions (Axon Ivy `instructions`), added to the planning
     * prompt and the execution/assessment prompts of step_by_step, todo_list and plan_and_execute.
     * @default []
     */
    instructions: z.array(Instruction, { error: 'expected an array' }).default([]),
    /**
     * The agent's ID in another system (Axon Ivy `id`); stored, not interpreted.
     * @default none
     */
    agent_id: z.string({ error: 'expected a string' }).optional(),
  },
  { error: requiredOr('expected an object') },
).superRefine((a, ctx) => {
  if (a.type === 'step_by_step' && (a.goal === undefined || a.goal.trim() === '')) {
    ctx.addIssue({ code: 'custom', path: ['goal'], message: 'is required for a step_by_step agent' });
  }
});

/**
 * An agent file. Mirrors the seed's register-agent body; `executor_llm` is always set after
 * parsing (it defaults to `llm`).
 */
export const AgentDefinition = z.preprocess(
  preprocessAgent,
  AgentDefinitionObject.transform((a) => ({ ...a, executor_llm: a.executor_llm ?? a.llm })),
);
/** An agent file, parsed and defaulted. */
export type AgentDefinition = z.infer<typeof AgentDefinition>;

// ---------------------------------------------------------------------------------------------
// errors

export type { AgentDefinitionIssue };

/** An agent file or run parameters failed validation. The message lists every bad field on one line. */
export class AgentDefinitionError extends Error {
  /** Every problem found, in schema order. */
  readonly issues: AgentDefinitionIssue[];

  constructor(issues: AgentDefinitionIssue[], prefix = 'invalid agent file') {
    super(`${prefix}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'AgentDefinitionError';
    this.issues = issues;
  }
}

/**
 * Validates and defaults an agent file (already JSON-parsed).
 *
 * @param input - the agent file's content
 * @returns the definition with every default filled in
 * @throws AgentDefinitionError listing every bad field path in one line
 */
export function parseAgentDefinition(input: unknown, options: ParseOptions = {}): AgentDefinition {
  if (isIvyAgentFile(input)) {
    const mapped = mapIvyAgent(input);
    if (!mapped.ok) throw new AgentDefinitionError(mapped.issues, 'invalid Axon Ivy agent file');
    input = mapped.agent;
  }
  const parsed = AgentDefinition.safeParse(input, { error: fallbackError });
  if (!parsed.success) throw new AgentDefinitionError(toIssues(parsed.error));
  const known = options.toolTypes ?? BUILTIN_TOOL_TYPES;
  if (known !== 'any') {
    const unknown = parsed.data.tools.flatMap((t, i) =>
      known.includes(t.type) ? [] : [{ path: `tools[${i}].type`, message: `unknown tool type "${t.type}"; expected one of ${known.join(', ')}` }],
    );
    if (unknown.length > 0) throw new AgentDefinitionError(unknown);
  }
  return parsed.data;
}

export interface ParseOptions {
  /**
   * The tool types an agent may list: the built-in ones unless a worker offers others;
   * `'any'` leaves the check to the worker (which rejects unknown types at run start).
   */
  toolTypes?: readonly string[] | 'any';
}

/**
 * The parameters of one run: the agent's parameters overridden by run-time parameters (as in
 * the seed's execute API; `undefined` values do not override), validated, and defaulted.
 *
 * `llm_response_filter` is the planner's; the executor's interface may differ, so derive its
 * filter with {@link llmResponseFilterFor}(`agent.executor_llm.interface`).
 *
 * @param agent - a parsed agent definition
 * @param runParams - run-time parameters
 * @throws AgentDefinitionError with `parameters.` paths when a merged parameter is invalid
 */
export function resolveParameters(agent: AgentDefinition, runParams: Record<string, unknown> = {}): ResolvedParameters {
  const overrides = Object.fromEntries(Object.entries(runParams).filter(([, v]) => v !== undefined));
  const parsed = AgentParameters.safeParse({ ...agent.parameters, ...overrides }, { error: fallbackError });
  if (!parsed.success) {
    throw new AgentDefinitionError(toIssues(parsed.error, ['parameters']), 'invalid agent parameters');
  }
  const p = parsed.data;
  const llmInterface = p.llm_interface ?? p._llm_interface ?? agent.llm.interface;
  const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);
  return {
    ...p,
    datetime_format: p.datetime_format ?? DEFAULT_DATETIME_FORMAT,
    system_prompt: p.system_prompt ?? DEFAULT_PLANNER_SYSTEM_PROMPT,
    executor_system_prompt: p.executor_system_prompt ?? DEFAULT_EXECUTOR_SYSTEM_PROMPT,
    planner_prompt: p.planner_prompt ?? DEFAULT_PLANNER_PROMPT,
    reflect_prompt: p.reflect_prompt ?? DEFAULT_REFLECT_PROMPT,
    planner_prompt_template: p.planner_prompt_template ?? DEFAULT_PLANNER_PROMPT_TEMPLATE,
    reflect_prompt_template: p.reflect_prompt_template ?? DEFAULT_REFLECT_PROMPT_TEMPLATE,
    planner_with_history_template: p.planner_with_history_template ?? DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE,
    llm_interface: llmInterface,
    llm_response_filter: nonEmpty(p.llm_response_filter) ?? llmResponseFilterFor(llmInterface),
    plan_execute_reflect_response_format: PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT,
  };
}
