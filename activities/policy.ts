/**
 * The worker policy where agent files meet the worker: before an MCP server is started or
 * reached, before a model endpoint is called, before a worker variable is read for an agent
 * file. A refusal is non-retryable (`Policy.Refused`): retrying cannot change the operator's mind.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { MAX_AGENT_DEPTH, subAgentOf, subAgentTree, type McpServerConfig, type ToolEntry } from '../core/agent';
import { CLOSED_POLICY, envAllowed, policyProblems, policyRefusal, POLICY_VARIABLES, treePolicyProblems, type OperatorEndpoints, type WorkerPolicy } from '../core/worker-policy';
import { remoteAgentsOf } from '../core/a2a-tool';
import type { SecretReader } from './tools/mcp';
import { webhookProblem } from '../core/webhook-policy';

export interface PolicyDeps {
  /** What agent files may make this worker do. @default nothing (core/worker-policy.ts CLOSED_POLICY) */
  policy?: WorkerPolicy;
  /** The endpoints the operator configured for the providers' own keys, read when a check asks (a setting may change). */
  operator?: () => OperatorEndpoints;
}

function refuse(problems: string[]): void {
  const refusal = policyRefusal(problems);
  if (refusal !== undefined) throw ApplicationFailure.nonRetryable(refusal, 'Policy.Refused');
}

/** Refuses MCP servers the policy does not allow, before any is started or reached. */
export function checkMcpServers(deps: PolicyDeps, servers: readonly McpServerConfig[]): void {
  refuse(policyProblems({ models: [], mcp_servers: servers }, deps.policy ?? CLOSED_POLICY, deps.operator?.()));
}

/**
 * Refuses an agent tree the policy does not allow (each sub-agent's models and MCP servers), or
 * one deeper than MAX_AGENT_DEPTH, at the root's start: before any of the tree runs.
 */
export function checkSubAgents(deps: PolicyDeps, tools: readonly ToolEntry[]): void {
  for (const ref of tools) {
    const sub = subAgentOf(ref);
    if (!sub) continue;
    const deepest = Math.max(2, ...subAgentTree(sub.definition, ['', '']).map((n) => n.path.length));
    if (deepest > MAX_AGENT_DEPTH) throw ApplicationFailure.nonRetryable(`sub-agent ${sub.definition.name}: the agent tree is deeper than ${MAX_AGENT_DEPTH} levels`, 'Policy.Refused');
    refuse(treePolicyProblems(sub.definition, deps.policy ?? CLOSED_POLICY, deps.operator?.()).map((p) => (p.startsWith('sub-agent ') ? p.replace('sub-agent ', `sub-agent ${sub.definition.name} → `) : `sub-agent ${sub.definition.name}: ${p}`)));
  }
}

/** Refuses remote A2A agents (their hosts, their token variables) the policy does not allow, before any is reached. */
export function checkRemoteAgents(deps: PolicyDeps, tools: readonly ToolEntry[]): void {
  refuse(policyProblems({ models: [], mcp_servers: [], remote_agents: remoteAgentsOf(tools) }, deps.policy ?? CLOSED_POLICY, deps.operator?.()));
}

/** A check of each request a remote agent's client makes: its host must be allowed (a card may point anywhere). */
export function remoteHostCheck(deps: PolicyDeps, name: string): (url: string) => void {
  return (url) => refuse(policyProblems({ models: [], mcp_servers: [], remote_agents: [{ name, url }] }, deps.policy ?? CLOSED_POLICY, deps.operator?.()));
}

/** Refuses a model endpoint or key variable the policy does not allow, before the call. */
export function checkModel(deps: PolicyDeps, model: { base_url?: string; api_key_env?: string }, where = 'llm'): void {
  refuse(policyProblems({ models: [{ where, ...model }], mcp_servers: [] }, deps.policy ?? CLOSED_POLICY, deps.operator?.()));
}

/** The worker's variables as agent files may read them: only those the policy allows. */
export function policySecrets(deps: PolicyDeps, secret: SecretReader): SecretReader {
  return (name) => {
    if (!envAllowed(deps.policy ?? CLOSED_POLICY, name)) throw ApplicationFailure.nonRetryable(`\${${name}} is not a variable this worker lets agent files read; allow it in the worker policy (${POLICY_VARIABLES.envVars}=${name})`, 'Policy.Refused');
    return secret(name);
  };
}

/** Refuses a webhook URL the policy does not allow (http(s) on an allowed host), before each delivery. */
export function checkWebhook(deps: PolicyDeps, url: string): void {
  const problem = webhookProblem(url, deps.policy ?? CLOSED_POLICY);
  if (problem !== undefined) throw ApplicationFailure.nonRetryable(problem, 'Policy.Refused');
}
