/**
 * Axon Ivy's agent JSON (`id`, `name`, `usage`, `goal`, `agentType`, `maxIterations`,
 * `planningModel`, `planningModelKey`, `executionModel`, `executionModelKey`, `tools`,
 * `instructions`) mapped to perflow's agent file, so both formats run on the same engine.
 *
 * A `*ModelKey` is a reference to an environment variable of the worker, never a key: the run
 * carries the variable's name only (see {@link keyReferenceToEnv}).
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { z } from 'zod';
import { fallbackError, toIssues, type AgentDefinitionIssue } from './issues';
import { knownInterfaces, knownInterface } from './agent-file/known-interfaces';
import { OPENAI_INTERFACE } from './agent-file/llm-interfaces';

type PlainObject = Record<string, unknown>;

/** Whether an agent file is in Axon Ivy's format: it names `agentType` or a planning/execution model, and no perflow `type`. */
export function isIvyAgentFile(input: unknown): input is PlainObject {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const o = input as PlainObject;
  return o.type === undefined && ('agentType' in o || 'planningModel' in o || 'executionModel' in o);
}

/**
 * Well-known Axon Ivy variables and the worker environment variables they stand for. Any other
 * `${a.b.c}` becomes `A_B_C`; `${NAME}` is the variable NAME itself.
 */
export const IVY_KEY_VARIABLES: Readonly<Record<string, string>> = {
  'AI.OpenAI.APIKey': 'OPENAI_API_KEY',
  'AI.Azure.OpenAI.APIKey': 'AZURE_OPENAI_API_KEY',
  'AI.DeepSeek.APIKey': 'DEEPSEEK_API_KEY',
};

const REFERENCE = /^\$\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}$/;

/**
 * The environment variable a `*ModelKey` refers to, or an error when the value is not a
 * `${...}` reference (a literal key would end up in the workflow history).
 *
 * @param value - e.g. `${AI.OpenAI.APIKey}` → `OPENAI_API_KEY`
 */
export function keyReferenceToEnv(value: string): { env: string } | { error: string } {
  const m = REFERENCE.exec(value.trim());
  if (!m) {
    return { error: 'expected a reference such as ${AI.OpenAI.APIKey} or ${OPENAI_API_KEY}; a literal API key is not accepted: set it in the worker\'s environment' };
  }
  const name = m[1];
  const known = IVY_KEY_VARIABLES[name];
  if (known) return { env: known };
  return { env: name.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase() };
}

/**
 * The LLM interface a model name is served by: the first interface whose spec claims it
 * (`servesIvyModel`: `scripted`; a name with `claude` or `anthropic` → Bedrock Converse for
 * Claude; with `deepseek` → Bedrock Converse for DeepSeek-R1), else OpenAI Chat Completions (or
 * a compatible server at OPENAI_BASE_URL).
 */
export function interfaceForModel(model: string): string {
  const m = model.toLowerCase();
  return knownInterfaces().find((spec) => spec.servesIvyModel?.(m))?.name ?? OPENAI_INTERFACE;
}

const text = (what = 'a string') => z.string({ error: (i) => (i.input === undefined ? 'is required' : `expected ${what}`) });

const IvyAgentFile = z.looseObject({
  id: text().min(1, { error: 'must not be empty' }),
  name: text().min(1, { error: 'must not be empty' }),
  usage: text().optional(),
  goal: text().optional(),
  agentType: z
    .preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), z.enum(['STEP_BY_STEP', 'TODO_LIST'], { error: 'expected STEP_BY_STEP or TODO_LIST' }))
    .default('STEP_BY_STEP'),
  maxIterations: z.number({ error: 'expected a positive integer' }).int({ error: 'expected a positive integer' }).min(1, { error: 'expected a positive integer' }).default(20),
  planningModel: text().min(1, { error: 'must not be empty' }).optional(),
  planningModelKey: text().optional(),
  executionModel: text().min(1, { error: 'must not be empty' }).optional(),
  executionModelKey: text().optional(),
  tools: z.array(z.union([z.string().min(1), z.looseObject({ type: z.string() })], { error: 'expected a tool ID or a perflow tool object' }), {
    error: (i) => (i.input === undefined ? 'is required' : 'expected an array of tool IDs'),
  }),
  instructions: z.array(z.unknown(), { error: 'expected an array of {"type", "content"}' }).optional(),
  /** perflow extensions: run parameters, MCP servers, the script of a `scripted` model. */
  parameters: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional(),
  mcp_servers: z.array(z.unknown(), { error: 'expected an array' }).optional(),
  script: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional(),
});

/**
 * Maps an Axon Ivy agent file to perflow's agent file (validated afterwards by the agent schema).
 * Planning model → `llm`, execution model → `executor_llm` (the planning model when absent),
 * `usage` → `description`, `maxIterations` → `parameters.max_iterations`, tool IDs → tools of
 * that type, `id` → `agent_id`.
 */
export function mapIvyAgent(input: PlainObject): { ok: true; agent: PlainObject } | { ok: false; issues: AgentDefinitionIssue[] } {
  const parsed = IvyAgentFile.safeParse(input, { error: fallbackError });
  if (!parsed.success) return { ok: false, issues: toIssues(parsed.error) };
  const ivy = parsed.data;
  const issues: AgentDefinitionIssue[] = [];
  const planningName = ivy.planningModel ?? ivy.executionModel;
  if (planningName === undefined) issues.push({ path: 'planningModel', message: 'is required (or executionModel)' });
  const model = (name: string | undefined, key: string | undefined, keyField: string): PlainObject | undefined => {
    if (name === undefined) return undefined;
    const iface = interfaceForModel(name);
    const out: PlainObject = { interface: iface };
    if (iface === 'scripted') {
      if (ivy.script === undefined) issues.push({ path: 'script', message: 'is required when a model is "scripted"' });
      else out.script = ivy.script;
    } else {
      out.model = name;
    }
    if (key !== undefined && key.trim() !== '') {
      const ref = keyReferenceToEnv(key);
      if ('error' in ref) issues.push({ path: keyField, message: ref.error });
      else if (knownInterface(iface)?.apiKeyVariable !== undefined) out.api_key_env = ref.env;
    }
    return out;
  };
  const llm = model(planningName, ivy.planningModelKey ?? ivy.executionModelKey, ivy.planningModelKey !== undefined ? 'planningModelKey' : 'executionModelKey');
  const executor = model(ivy.executionModel ?? planningName, ivy.executionModelKey ?? ivy.planningModelKey, ivy.executionModelKey !== undefined ? 'executionModelKey' : 'planningModelKey');
  if (issues.length > 0) return { ok: false, issues };
  const agent: PlainObject = {
    name: ivy.name,
    type: ivy.agentType.toLowerCase(),
    description: ivy.usage ?? '',
    agent_id: ivy.id,
    llm,
    executor_llm: executor,
    tools: ivy.tools.map((t) => (typeof t === 'string' ? { type: t } : t)),
    parameters: { ...ivy.parameters, max_iterations: ivy.maxIterations },
  };
  if (ivy.goal !== undefined) agent.goal = ivy.goal;
  if (ivy.instructions !== undefined) agent.instructions = ivy.instructions;
  if (ivy.mcp_servers !== undefined) agent.mcp_servers = ivy.mcp_servers;
  return { ok: true, agent };
}
