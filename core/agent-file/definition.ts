/**
 * The agent file as a whole: its type, tools, MCP servers, memory, instructions, typed output and
 * guardrails, and parsing with one-line errors. Over 300 lines on purpose: the top-level schema is
 * one object whose documented fields are the agent file's reference (its parts live beside it).
 */
import { z } from 'zod';
import { fallbackError, toIssues } from '../issues';
import { AgentDefinitionError } from './errors';
import { isIvyAgentFile, mapIvyAgent } from '../ivy-agent';
import { A2A_AGENT_TOOL_TYPE, AGENT_TOOL_TYPE, BUILTIN_TOOL_TYPES, SEED_TOOL_TYPES } from '../tool-types';
import { a2aToolProblems, isA2AAgentTool } from '../a2a-tool';
import { NEXUS_AGENT_TOOL_TYPE, SERVED_AGENT_NAME } from '../nexus-agents';
import { isPlainObject, requiredOr, type PlainObject } from './coerce';
import { INSTRUCTION_TYPES } from './instructions';
import type { AgentTypeName } from './agent-types';
import { missingFields, unusedFields, unusedParameters } from './applicability';
import { knownAgentType, knownAgentTypes } from './known-agent-types';
import { normalizeInterface } from './llm-interfaces';
import { ModelConfig } from './model';
import { AgentParameters } from './parameters';
import { outputSchemaProblem } from '../output-schema';
import { MAX_OUTPUT_RETRIES } from '../typed-output';
import { MAX_GUARDRAIL_RETRIES } from '../guardrails';
import { GuardrailsSchema } from './guardrails';
import { ScoringSchema } from './scoring';

// ---------------------------------------------------------------------------------------------
// agent definition

/** An `output_schema`: a JSON Schema object Ajv compiles, within the size and depth bounds. */
const OutputSchema = z.record(z.string(), z.unknown(), { error: 'expected a JSON Schema object' }).superRefine((schema, ctx) => {
  const problem = outputSchemaProblem(schema);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** The refusal of an agent type: the types this process knows, listed when it is asked. */
const expectedAgentType = (issue: { input?: unknown }): string => requiredOr(`expected one of ${knownAgentTypes().map((spec) => spec.type).join(', ')}`)(issue);

/**
 * An agent type: a built-in one (AGENT_TYPE_SPECS) or one this process added (`addAgentTypes`).
 * Matching ignores case, so Axon Ivy's `STEP_BY_STEP` and `TODO_LIST` work too. Typed as the
 * built-in names: an added type's name passes as one of them (see `addAgentTypes`).
 */
export const AgentType = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.custom<AgentTypeName>((v) => typeof v === 'string' && knownAgentType(v) !== undefined, { error: expectedAgentType }),
);
/** Agent types: the built-in names (an added type's name is cast to them). */
export type AgentType = z.infer<typeof AgentType>;

/** A tool the agent may use, as in the seed's register-agent body (`{"type": "SearchIndexTool"}`). */
export const ToolEntry = z.object({
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
  /**
   * A person approves each call before it runs (`perflow approve-tool` / `deny-tool`).
   * @default false
   */
  requires_approval: z.boolean({ error: 'expected true or false' }).optional(),
  /**
   * The seed's tool attributes (ml-commons `MLToolSpec.attributes`): `input_schema`, the JSON
   * Schema the model is shown instead of the tool's own, and `strict`, passed to function
   * calling where the interface has it (OpenAI). Other keys are kept.
   * @default none
   */
  attributes: z
    .looseObject(
      {
        input_schema: z.record(z.string(), z.unknown(), { error: 'expected a JSON Schema object' }).optional(),
        strict: z.boolean({ error: 'expected true or false' }).optional(),
      },
      { error: 'expected an object' },
    )
    .optional(),
});
/** A tool the agent may use, as the agent file lists it. */
export type ToolEntry = z.infer<typeof ToolEntry>;

/** MCP tools a person approves before each call: all of the server's (`true`) or those named. */
const mcpApproval = z.union([z.boolean(), z.array(z.string().min(1))], { error: 'expected true, false or an array of tool names' }).optional();
/** Seconds a call of the server's tools may take before it becomes an error observation, as a tool's `timeout_seconds` (default 90). */
const mcpTimeout = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number({ error: 'expected a number of seconds' }).positive({ error: 'expected a positive number of seconds' })).optional();

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
      requires_approval: mcpApproval,
      timeout_seconds: mcpTimeout,
    }),
    z.strictObject({
      name: serverName,
      /** Streamable HTTP endpoint. */
      url: z.url({ error: 'expected a URL' }),
      headers: z.record(z.string(), z.string(), { error: 'expected an object of strings' }).optional(),
      requires_approval: mcpApproval,
      timeout_seconds: mcpTimeout,
    }),
  ],
  { error: 'expected {"name", "command", "args"?, "env"?, "cwd"?, "requires_approval"?, "timeout_seconds"?} or {"name", "url", "headers"?, "requires_approval"?, "timeout_seconds"?}' },
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
    z.enum(INSTRUCTION_TYPES, { error: requiredOr(`expected ${INSTRUCTION_TYPES.join(' or ')}`) }),
  ),
  content: z.string({ error: requiredOr('expected a string') }),
});
/** An instruction for one phase. */
export type Instruction = z.infer<typeof Instruction>;

export { instructionsOf } from './instructions';

/** Fills `llm.interface` from `parameters._llm_interface` and lets `executor_llm` inherit from `llm` (its `price` only for the same model). */
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
      // The same model at the same price; another model is priced on its own.
      const modelOf = (m: PlainObject) => m.model ?? m.model_id;
      if (exec.price === undefined && llm.price !== undefined && modelOf(exec) === modelOf(llm)) exec.price = llm.price;
    }
    out.executor_llm = exec;
  }
  if (Array.isArray(out.tools)) {
    // The seeds' OpenSearch tools become the MongoDB tools that play their roles, keeping the
    // seed's name toward the model (custom prompts name them so) unless the file names them otherwise.
    out.tools = out.tools.map((t: unknown) =>
      isPlainObject(t) && typeof t.type === 'string' && Object.hasOwn(SEED_TOOL_TYPES, t.type) ? { ...t, type: SEED_TOOL_TYPES[t.type], name: t.name ?? t.type } : t,
    );
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
    tools: z.array(ToolEntry, { error: 'expected an array' }).default([]),
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
    /**
     * A JSON Schema (draft 2020-12) the run's answer conforms to: the answer becomes a JSON value
     * (`output`), asked of the planning model with its provider's structured-output feature and
     * validated, asked again with the validator's errors up to `output_retries` times
     * (docs/output-and-guardrails.md). At most 32 KB and 16 levels deep.
     * @default none (the answer is text)
     */
    output_schema: OutputSchema.optional(),
    /**
     * How many times a reply that does not conform to `output_schema` is asked again before the
     * run fails with `Output.Invalid`.
     * @default 2
     */
    output_retries: z.number({ error: 'expected a number' }).int({ error: 'expected a whole number' }).min(0, { error: 'must not be negative' }).max(MAX_OUTPUT_RETRIES, { error: `must be at most ${MAX_OUTPUT_RETRIES}` }).optional(),
    /**
     * Checks of the eval language on the question (`input`, before any model call) and the
     * answer (`output`, before it is typed and the run ends), each with `on_fail`: `stop` (the run
     * ends `tripped`) or `retry` (output only: the answer is asked again with the reason, up to
     * `guardrail_retries` times, then it stops). See docs/output-and-guardrails.md.
     * @default none
     */
    guardrails: GuardrailsSchema.optional(),
    /**
     * How many times an answer an output guardrail with `retry` refuses is asked again.
     * @default 2
     */
    guardrail_retries: z.number({ error: 'expected a number' }).int({ error: 'expected a whole number' }).min(0, { error: 'must not be negative' }).max(MAX_GUARDRAIL_RETRIES, { error: `must be at most ${MAX_GUARDRAIL_RETRIES}` }).optional(),
    /**
     * Online scoring: after a run ends, a sampled fraction of runs (`sample`, decided from the
     * workflow ID) is scored in the background by `checks` of the eval language, judges
     * included; the scores are kept in MongoDB (`perflow scores`). See docs/output-and-guardrails.md.
     * @default none
     */
    scoring: ScoringSchema.optional(),
  },
  { error: requiredOr('expected an object') },
).superRefine((a, ctx) => {
  for (const issue of [...missingFields(a), ...unusedFields(a)]) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
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
  // Checked on the file's own parameters: the parsed ones hold every default.
  const given = isPlainObject(input) && isPlainObject(input.parameters) ? input.parameters : {};
  const unused = unusedParameters(parsed.data.type, given);
  if (unused.length > 0) throw new AgentDefinitionError(unused);
  const known = options.toolTypes ?? BUILTIN_TOOL_TYPES;
  if (known !== 'any') {
    const unknown = parsed.data.tools.flatMap((t, i) =>
      known.includes(t.type) || t.type === AGENT_TOOL_TYPE || t.type === NEXUS_AGENT_TOOL_TYPE || t.type === A2A_AGENT_TOOL_TYPE ? [] : [{ path: `tools[${i}].type`, message: `unknown tool type "${t.type}"; expected one of ${[...known, AGENT_TOOL_TYPE, NEXUS_AGENT_TOOL_TYPE, A2A_AGENT_TOOL_TYPE].join(', ')}` }],
    );
    if (unknown.length > 0) throw new AgentDefinitionError(unknown);
  }
  // An agent tool names the agent file it runs (read by the client: see client/sub-agents.ts).
  const unnamed = parsed.data.tools.flatMap((t, i) =>
    t.type === AGENT_TOOL_TYPE && (typeof t.parameters?.agent !== 'string' || t.parameters.agent.trim() === '') ? [{ path: `tools[${i}].parameters.agent`, message: 'expected the path of the agent file this tool runs (relative to this file)' }] : [],
  );
  // An agent behind a Nexus endpoint: the endpoint and the name the serving worker knows it by.
  for (const [i, t] of parsed.data.tools.entries()) {
    if (t.type !== NEXUS_AGENT_TOOL_TYPE) continue;
    if (typeof t.parameters?.endpoint !== 'string' || t.parameters.endpoint.trim() === '') unnamed.push({ path: `tools[${i}].parameters.endpoint`, message: 'expected the name of a Nexus endpoint (temporal operator nexus endpoint list)' });
    if (typeof t.parameters?.agent !== 'string' || !SERVED_AGENT_NAME.test(t.parameters.agent)) unnamed.push({ path: `tools[${i}].parameters.agent`, message: 'expected the name of an agent the endpoint\'s worker serves (its file name without .json)' });
  }
  // A remote A2A agent: an http(s) URL and, for its token, a variable name.
  for (const [i, t] of parsed.data.tools.entries()) if (isA2AAgentTool(t)) unnamed.push(...a2aToolProblems(t.parameters).map((p) => ({ ...p, path: `tools[${i}].${p.path}` })));
  if (unnamed.length > 0) throw new AgentDefinitionError(unnamed);
  return parsed.data;
}

export interface ParseOptions {
  /**
   * The tool types an agent may list: the built-in ones unless a worker offers others;
   * `'any'` leaves the check to the worker (which rejects unknown types at run start).
   */
  toolTypes?: readonly string[] | 'any';
}

