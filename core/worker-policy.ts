/**
 * The worker policy: what agent files may make a worker do. An agent file is code the caller
 * wrote; the worker runs it only as far as its operator allows: which MCP stdio commands it may
 * start, which hosts its MCP `url`s and model `base_url`s may reach, and which of the worker's
 * environment variables it may read (`${NAME}` in MCP `env` / `headers`, `api_key_env`).
 * Nothing is allowed unless the operator says so (config/env.ts reads PERFLOW_ALLOW_*); a
 * provider's own key (OPENAI_API_KEY) goes only to the endpoint the operator configured for it
 * or to an allowed host.
 *
 * Pure module: the CLI checks an agent file before it starts a run, the worker's activities
 * before they spawn, connect or read a secret.
 *
 * @module
 */
import { knownInterfaces } from './agent-file/known-interfaces';
import type { AgentDefinition } from './agent-file/definition';
import { subAgentTree } from './agent-file/sub-agents';
import { remoteAgentsOf } from './a2a-tool';

export interface WorkerPolicy {
  /** MCP stdio commands agent files may start, as they write them (`npx`, `/usr/bin/python3`); `*`: any. */
  readonly mcpCommands: readonly string[];
  /** Hosts MCP `url`s and model `base_url`s may reach: `host`, `host:port`, `*.example.com`; `*`: any. */
  readonly hosts: readonly string[];
  /** Worker variables agent files may read: `NAME`, `PREFIX_*`; `*`: any. */
  readonly envVars: readonly string[];
  /** Every run must name its tenant (`tenant_id`): runs without one are refused at start. @default false */
  readonly requireTenant?: boolean;
}

/** Why a run without a tenant is refused where the policy requires one. */
export const TENANT_REQUIRED = 'this deployment requires a tenant on every run (PERFLOW_REQUIRE_TENANT): give tenant_id (--param tenant_id=ID)';

/** The variables that set the policy, as the one-line refusals name them. */
export const POLICY_VARIABLES = { mcpCommands: 'PERFLOW_ALLOW_MCP_COMMANDS', hosts: 'PERFLOW_ALLOW_HOSTS', envVars: 'PERFLOW_ALLOW_ENV', requireTenant: 'PERFLOW_REQUIRE_TENANT' } as const;

/** Nothing allowed: a worker whose operator declared nothing. */
export const CLOSED_POLICY: WorkerPolicy = { mcpCommands: [], hosts: [], envVars: [] };

/** The endpoints the operator configured for the providers' own keys (each interface's `endpointVariable`: OPENAI_BASE_URL, PERFLOW_BEDROCK_ENDPOINT). */
export type OperatorEndpoints = readonly string[];

/** The operator's endpoints, as `read` gives the interfaces' endpoint variables. */
export function operatorEndpoints(read: (variable: string) => string | undefined): OperatorEndpoints {
  // Interfaces of one provider share its variable (the Bedrock ones): each endpoint once.
  const variables = new Set(knownInterfaces().flatMap((spec) => spec.endpointVariable ?? []));
  return [...variables].flatMap((variable) => read(variable) ?? []);
}

/** What of an agent file the policy judges: its models, its MCP servers and its remote agents. */
export interface PolicySubject {
  models: ReadonlyArray<{ where: string; base_url?: string; api_key_env?: string }>;
  mcp_servers: ReadonlyArray<{ name: string; command?: string; url?: string; env?: Record<string, string>; headers?: Record<string, string> }>;
  /** Remote A2A agents (`A2AAgentTool`): the host of their `url` and the variable of their token. */
  remote_agents?: ReadonlyArray<{ name: string; url: string; token_env?: string }>;
}

/** The providers' own key variables: an agent file may name them (Axon Ivy files do); they go only where the operator's endpoint rule lets them. */
const providerKeys = (): string[] => knownInterfaces().flatMap((spec) => [...(spec.apiKeyVariable ? [spec.apiKeyVariable] : []), ...(spec.otherKeyVariables ?? [])]);

const SECRET_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Whether the policy lets agent files read the worker variable `name`. */
export function envAllowed(policy: WorkerPolicy, name: string): boolean {
  return policy.envVars.some((p) => p === '*' || p === name || (p.endsWith('*') && name.startsWith(p.slice(0, -1))));
}

/** Whether the policy lets agent files start the MCP stdio command `command` (as written). */
export const commandAllowed = (policy: WorkerPolicy, command: string): boolean => policy.mcpCommands.some((c) => c === '*' || c === command);

/** Whether the policy lets agent files reach `url`'s host (and port). */
export function hostAllowed(policy: WorkerPolicy, url: string): boolean {
  const target = hostOf(url);
  if (!target) return false;
  return policy.hosts.some((entry) => {
    if (entry === '*') return true;
    const e = entry.toLowerCase();
    // `[v6]:port`, a bare IPv6 address (no port), or `name:port`.
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(e) ?? (e.split(':').length > 2 ? [e, e, undefined] : /^([^:]+)(?::(\d+))?$/.exec(e));
    if (!m) return false;
    const [name, port] = [m[1], m[2]];
    if (port !== undefined && port !== target.port) return false;
    return name.startsWith('*.') ? target.host.endsWith(name.slice(1)) : target.host === name;
  });
}

/** A URL's host (lower case, IPv6 without brackets) and port (the scheme's default when absent). */
function hostOf(url: string): { host: string; port: string } | undefined {
  try {
    const u = new URL(url);
    return { host: u.hostname.toLowerCase().replace(/^\[|\]$/g, ''), port: u.port || (u.protocol === 'https:' ? '443' : '80') };
  } catch {
    return undefined;
  }
}

const sameOrigin = (a: string | undefined, b: string): boolean => {
  if (a === undefined) return false;
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

/**
 * What the agent file asks that the policy does not allow: one line each, naming the rule and
 * the variable that allows it. Empty when the worker may run it.
 */
export function policyProblems(subject: PolicySubject, policy: WorkerPolicy, operator: OperatorEndpoints = []): string[] {
  const problems: string[] = [];
  const allow = (variable: string, value: string) => `allow it in the worker policy (${variable}=${value})`;
  const readable = (where: string, values: Record<string, string> | undefined) => {
    for (const [key, value] of Object.entries(values ?? {})) {
      for (const [, name] of value.matchAll(SECRET_REFERENCE)) {
        if (!envAllowed(policy, name)) problems.push(`${where}.${key} references \${${name}}, which this worker does not let agent files read; ${allow(POLICY_VARIABLES.envVars, name)}`);
      }
    }
  };
  for (const m of subject.models) {
    const url = m.base_url;
    if (url !== undefined && !operator.some((endpoint) => sameOrigin(endpoint, url)) && !hostAllowed(policy, url)) {
      problems.push(`${m.where}.base_url: host "${hostOf(url)?.host ?? url}" is not allowed on this worker; ${allow(POLICY_VARIABLES.hosts, hostOf(url)?.host ?? 'HOST')}`);
    }
    // The provider's own key named explicitly is the default key: where it may go is the endpoint rule above.
    if (m.api_key_env !== undefined && !providerKeys().includes(m.api_key_env) && !envAllowed(policy, m.api_key_env)) {
      problems.push(`${m.where}.api_key_env: ${m.api_key_env} is not a variable this worker lets agent files read; ${allow(POLICY_VARIABLES.envVars, m.api_key_env)}`);
    }
  }
  for (const s of subject.mcp_servers) {
    const where = `MCP server "${s.name}"`;
    if (s.command !== undefined && !commandAllowed(policy, s.command)) problems.push(`${where}: command "${s.command}" is not allowed on this worker; ${allow(POLICY_VARIABLES.mcpCommands, s.command)}`);
    if (s.url !== undefined && !hostAllowed(policy, s.url)) problems.push(`${where}: host "${hostOf(s.url)?.host ?? s.url}" is not allowed on this worker; ${allow(POLICY_VARIABLES.hosts, hostOf(s.url)?.host ?? 'HOST')}`);
    readable(`${where}: env`, s.env);
    readable(`${where}: headers`, s.headers);
  }
  for (const a of subject.remote_agents ?? []) {
    const where = `remote agent "${a.name}"`;
    if (!hostAllowed(policy, a.url)) problems.push(`${where}: host "${hostOf(a.url)?.host ?? a.url}" is not allowed on this worker; ${allow(POLICY_VARIABLES.hosts, hostOf(a.url)?.host ?? 'HOST')}`);
    if (a.token_env !== undefined && !envAllowed(policy, a.token_env)) problems.push(`${where}: token_env ${a.token_env} is not a variable this worker lets agent files read; ${allow(POLICY_VARIABLES.envVars, a.token_env)}`);
  }
  return problems;
}

/** The policy's problems as one refusal: the first, then the others after it; undefined when there are none. */
export function policyRefusal(problems: readonly string[]): string | undefined {
  if (problems.length === 0) return undefined;
  return problems.length > 1 ? `${problems[0]} (and ${problems.length - 1} more: ${problems.slice(1).join('; ')})` : problems[0];
}

/** The models of an agent file as the policy judges them (`llm`, `executor_llm`). */
export function policySubjectOf(agent: { llm: object; executor_llm?: object; mcp_servers?: PolicySubject['mcp_servers']; tools?: ReadonlyArray<{ type: string; name?: string; parameters?: Record<string, unknown> }> }): PolicySubject {
  const model = (where: string, m: object | undefined) => (m ? [{ where, ...(m as { base_url?: string; api_key_env?: string }) }] : []);
  return { models: [...model('llm', agent.llm), ...(agent.executor_llm !== agent.llm ? model('executor_llm', agent.executor_llm) : [])], mcp_servers: agent.mcp_servers ?? [], remote_agents: remoteAgentsOf(agent.tools ?? []) };
}

/**
 * The policy's problems with an agent and every sub-agent below it (an agent tree's run is
 * refused at its start, before any of it runs): a sub-agent's problems name its path.
 */
export function treePolicyProblems(agent: AgentDefinition, policy: WorkerPolicy, operator: OperatorEndpoints = []): string[] {
  return [
    ...policyProblems(policySubjectOf(agent), policy, operator),
    ...subAgentTree(agent).flatMap(({ path, sub }) => policyProblems(policySubjectOf(sub.definition), policy, operator).map((p) => `sub-agent ${path.slice(1).join(' → ')}: ${p}`)),
  ];
}

/** The policy on the worker's start line: what agent files may start, reach and read. */
export function describePolicy(policy: WorkerPolicy): string {
  const list = (values: readonly string[]) => (values.length === 0 ? 'none' : values.join(', '));
  return `agent files may start MCP commands: ${list(policy.mcpCommands)}; reach hosts: ${list(policy.hosts)}; read variables: ${list(policy.envVars)}${policy.requireTenant ? '; every run needs a tenant' : ''}`;
}
