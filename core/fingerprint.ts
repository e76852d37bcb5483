/**
 * A run's fingerprint: a short stable hash of what shapes its behaviour — the agent type, the
 * prompts after defaults, the tools (with their settings and sub-agents), the models and their
 * parameters, the other run parameters, perflow's version and the Worker Deployment build — so that "these 40 runs used
 * the same prompts, tools and model" is one comparison. Each part has its own hash, so two
 * fingerprints that differ say which part does. What does not shape behaviour is left out: the
 * question, the memory IDs, the tenant, a model's price.
 *
 * Pure (no Node built-ins): the client and workflow code (an eval's case runs, a sub-agent's
 * run) compute it alike. The hash is FNV-1a on 64 bits over canonical JSON (keys sorted): an
 * identity, not a security measure.
 */
import type { AgentDefinition, ResolvedParameters } from './agent';

/** The parts of a fingerprint, each an 8-hex-digit hash (`version` as it is). */
export interface FingerprintParts {
  agent_type: string;
  prompts: string;
  tools: string;
  models: string;
  parameters: string;
  version?: string;
  /** The Worker Deployment build the run started on, when its worker is versioned. */
  build_id?: string;
}

export interface Fingerprint {
  /** 12 hex digits. */
  id: string;
  parts: FingerprintParts;
}

/** Run parameters that say which run this is, not how it behaves. */
const NOT_BEHAVIOUR = new Set(['memory_id', 'executor_agent_memory_id', 'tenant_id', 'question']);
/** A parameter that is a prompt text: its name says so. */
const isPrompt = (key: string) => /prompt|template|instruction/.test(key);

/** JSON with every object's keys sorted: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** FNV-1a, 64 bits, of a text's UTF-16 code units, as 16 hex digits. */
export function fnv1a64(text: string): string {
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * FNV_PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}

const partHash = (value: unknown) => fnv1a64(canonicalJson(value)).slice(0, 8);

/** A model's settings without its price (what it costs does not change what it answers). */
const modelOf = (llm: AgentDefinition['llm']) => {
  const { price: _price, ...rest } = llm as AgentDefinition['llm'] & { price?: unknown };
  return rest;
};

/**
 * The fingerprint of an agent run with these (dense) parameters; `version`: perflow's, when the
 * caller knows it; `buildId`: the Worker Deployment build it started on (the workflow adds it).
 */
export function fingerprintOf(agent: AgentDefinition, parameters: Partial<ResolvedParameters> | Record<string, unknown>, version?: string, buildId?: string): Fingerprint {
  const prompts: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) {
    if (NOT_BEHAVIOUR.has(key)) continue;
    (isPrompt(key) ? prompts : rest)[key] = value;
  }
  const parts: FingerprintParts = {
    agent_type: agent.type,
    prompts: partHash(prompts),
    tools: partHash(agent.tools),
    models: partHash({ llm: modelOf(agent.llm), executor_llm: modelOf(agent.executor_llm) }),
    parameters: partHash(rest),
    ...(version !== undefined ? { version } : {}),
    ...(buildId !== undefined ? { build_id: buildId } : {}),
  };
  return { id: fnv1a64(canonicalJson(parts)).slice(0, 12), parts };
}

/** The parts two fingerprints differ in (none: the same fingerprint). */
export function fingerprintDifference(a: FingerprintParts, b: FingerprintParts): Array<keyof FingerprintParts> {
  const keys: Array<keyof FingerprintParts> = ['agent_type', 'prompts', 'tools', 'models', 'parameters', 'version', 'build_id'];
  return keys.filter((k) => a[k] !== b[k]);
}
