/** The worker policy checked before a run starts, where the caller's environment declares it. */
import { declaresWorkerPolicy, workerPolicyFromEnv } from '../config/env';
import { policyProblems, policySubjectOf } from '../core/worker-policy';
import type { AgentDefinition } from '../core/agent';
import { PerflowError } from './errors';

/**
 * Refuses (`refused`, one line) an agent file the workers' policy would refuse, when this
 * environment declares that policy (PERFLOW_ALLOW_*): the run is not started at all. Without a
 * declaration the workers decide, at the run's start.
 */
export function checkWorkerPolicy(agent: AgentDefinition, env: NodeJS.ProcessEnv): void {
  if (!declaresWorkerPolicy(env)) return;
  const problems = policyProblems(policySubjectOf(agent), workerPolicyFromEnv(env), { openaiBaseUrl: env.OPENAI_BASE_URL || undefined, bedrockEndpoint: env.PERFLOW_BEDROCK_ENDPOINT || undefined });
  if (problems.length > 0) throw new PerflowError('refused', problems.length > 1 ? `${problems[0]} (and ${problems.length - 1} more)` : problems[0]);
}
