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

/**
 * FNV-1a, 64 bits, of a text's UTF-16 code units, as 16 hex digits. In four 16-bit limbs: a
 * BigInt per code unit made a run's start (its prompts hashed in its first workflow task) cost
 * ~1 ms of the worker's workflow thread.
 */
export function fnv1a64(text: string): string {
  // The offset basis 0xcbf29ce484222325, low limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < text.length; i++) {
    h0 ^= text.charCodeAt(i);
    // × the prime 0x100000001b3 = 2^40 + 0x1b3, mod 2^64: each limb × 0x1b3, plus h << 40.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  return [h3, h2, h1, h0].map((h) => h.toString(16).padStart(4, '0')).join('');
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
