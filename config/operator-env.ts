/**
 * What the operator lets agent files and runs make a worker do, from the environment: the worker
 * policy (PERFLOW_ALLOW_*, PERFLOW_REQUIRE_TENANT), the operator's own model endpoints and model
 * prices (PERFLOW_MODEL_PRICES). Part of config/env.ts's set of variables (it re-exports these).
 */
import type { ModelPrice } from '../core/agent-file/model';
import { operatorEndpoints, POLICY_VARIABLES, type OperatorEndpoints, type WorkerPolicy } from '../core/worker-policy';

/** A comma-separated variable's entries, trimmed, empty ones dropped. */
export const commaList = (value: string | undefined): string[] => (value ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');

/**
 * PERFLOW_MODEL_PRICES: a JSON object of model name → `{"input_per_million": N,
 * "output_per_million": N, "cached_input_per_million"?: N}` in US dollars, as an agent file's
 * `price`. A model priced here has a cost even where the price table has none, and may serve a
 * tenant with a daily cap. Errors are one line naming the variable and the model.
 */
export function modelPricesFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, ModelPrice> {
  const raw = env.PERFLOW_MODEL_PRICES?.trim();
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new Error(`PERFLOW_MODEL_PRICES is not JSON (${(err as Error).message}): give {"MODEL": {"input_per_million": N, "output_per_million": N}}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('PERFLOW_MODEL_PRICES: expected a JSON object {"MODEL": {"input_per_million": N, "output_per_million": N}}');
  // The agent file's schemas (zod) load only when prices are set: every CLI command reads this.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ModelPrice: priceSchema } = require('../core/agent-file/model') as typeof import('../core/agent-file/model');
  return Object.fromEntries(
    Object.entries(json).map(([model, price]) => {
      const parsed = priceSchema.safeParse(price);
      if (!parsed.success) throw new Error(`PERFLOW_MODEL_PRICES: "${model}": ${parsed.error.issues[0]?.message ?? 'not a price'}`);
      return [model, parsed.data];
    }),
  );
}

/**
 * The worker policy from PERFLOW_ALLOW_MCP_COMMANDS, PERFLOW_ALLOW_HOSTS and PERFLOW_ALLOW_ENV
 * (comma-separated; `*` allows any): what agent files may start, reach and read. Unset: nothing.
 */
export function workerPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerPolicy {
  const list = (name: string) => commaList(env[name]);
  return {
    mcpCommands: list(POLICY_VARIABLES.mcpCommands),
    hosts: list(POLICY_VARIABLES.hosts),
    envVars: list(POLICY_VARIABLES.envVars),
    ...(yesOrNo(env, POLICY_VARIABLES.requireTenant) ? { requireTenant: true } : {}),
  };
}

/** A yes/no variable: 1, true or yes; 0, false, no or unset. Anything else is a one-line error naming it. */
function yesOrNo(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(value)) return true;
  if (['', '0', 'false', 'no'].includes(value)) return false;
  throw new Error(`${name}="${env[name]}" is not yes or no: use 1 or 0`);
}

/** Whether the environment declares a worker policy (any PERFLOW_ALLOW_* set): the CLI then checks agent files against it before starting a run. */
export const declaresWorkerPolicy = (env: NodeJS.ProcessEnv): boolean => Object.values(POLICY_VARIABLES).some((name) => env[name] !== undefined);

/** The model endpoints the operator configured (OPENAI_BASE_URL, PERFLOW_BEDROCK_ENDPOINT): agent files may use them whatever the policy says. */
export function operatorEndpointsFromEnv(env: NodeJS.ProcessEnv = process.env): OperatorEndpoints {
  return operatorEndpoints((variable) => env[variable] || undefined);
}
