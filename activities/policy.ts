/**
 * The worker policy where agent files meet the worker: before an MCP server is started or
 * reached, before a model endpoint is called, before a worker variable is read for an agent
 * file. A refusal is non-retryable (`Policy.Refused`): retrying cannot change the operator's mind.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { McpServerConfig } from '../core/agent';
import { CLOSED_POLICY, envAllowed, policyProblems, policyRefusal, POLICY_VARIABLES, type OperatorEndpoints, type WorkerPolicy } from '../core/worker-policy';
import type { SecretReader } from './tools/mcp';

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
