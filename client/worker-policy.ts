/** The worker policy checked before a run starts, where the client's environment declares it. */
import { policyRefusal, treePolicyProblems } from '../core/worker-policy';
import type { AgentDefinition } from '../core/agent';
import type { ClientConfig } from '../config/env';
import { PerflowError } from './errors';
import { webhookProblem } from '../core/webhook-policy';

/**
 * Refuses (`refused`, one line) an agent file (or one of its sub-agents) the workers' policy would refuse, when the client's
 * environment declares that policy (PERFLOW_ALLOW_*, `config.workerPolicy`): the run is not
 * started at all. Without a declaration the workers decide, at the run's start.
 */
export function checkWorkerPolicy(agent: AgentDefinition, config: Pick<ClientConfig, 'workerPolicy'>): void {
  if (!config.workerPolicy) return;
  const refusal = policyRefusal(treePolicyProblems(agent, config.workerPolicy.policy, config.workerPolicy.endpoints));
  if (refusal !== undefined) throw new PerflowError('refused', refusal);
}

/**
 * Refuses (`invalid`, `refused`: one line) a webhook URL that is not http(s), or whose host the
 * workers' policy does not allow when the client's environment declares it (PERFLOW_ALLOW_HOSTS).
 */
export function checkWebhookUrl(url: string, config: Pick<ClientConfig, 'workerPolicy'>): void {
  const scheme = webhookProblem(url, undefined);
  if (scheme !== undefined) throw new PerflowError('invalid', scheme);
  const host = webhookProblem(url, config.workerPolicy?.policy);
  if (host !== undefined) throw new PerflowError('refused', host);
}
