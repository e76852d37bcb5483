/**
 * Which webhook URLs the worker policy lets a run name: http(s), on a host of PERFLOW_ALLOW_HOSTS.
 * The client checks a URL before it starts a run (where its environment declares the policy),
 * the worker's activity again before each delivery.
 *
 * @module
 */
import { hostAllowed, POLICY_VARIABLES, type WorkerPolicy } from './worker-policy';

/**
 * Why a run may not name `url` as its webhook (one line naming what to fix), or undefined.
 * `policy` absent: only the scheme is judged (the workers decide the host).
 */
export function webhookProblem(url: string, policy: WorkerPolicy | undefined): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `webhook: "${url}" is not a URL; give an http(s) URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `webhook: "${url}" is not an http(s) URL`;
  if (policy && !hostAllowed(policy, url)) {
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    return `webhook: host "${host}" is not allowed on this worker; allow it in the worker policy (${POLICY_VARIABLES.hosts}=${host})`;
  }
  return undefined;
}
