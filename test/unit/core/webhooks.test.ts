/** Which webhook URLs a run may name, and how `perflow status` writes a delivery. */
import { webhookProblem } from '../../../core/webhook-policy';
import { webhookIdOf } from '../../../core/webhooks';
import { webhookLine } from '../../../client/webhooks';
import type { WorkerPolicy } from '../../../core/worker-policy';

const policy: WorkerPolicy = { mcpCommands: [], hosts: ['hooks.example.com', '*.internal', '127.0.0.1:8080'], envVars: [] };

describe('webhookProblem', () => {
  it.each(['https://hooks.example.com/perflow', 'http://a.b.internal/x', 'http://127.0.0.1:8080/hook'])('lets %s through', (url) => {
    expect(webhookProblem(url, policy)).toBeUndefined();
  });

  it('refuses a host the policy does not allow, naming PERFLOW_ALLOW_HOSTS and the host', () => {
    expect(webhookProblem('https://evil.example.org/x', policy)).toBe('webhook: host "evil.example.org" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=evil.example.org)');
    expect(webhookProblem('http://127.0.0.1:9090/hook', policy)).toMatch(/PERFLOW_ALLOW_HOSTS=127\.0\.0\.1/);
  });

  it('refuses what is not an http(s) URL, with or without a policy', () => {
    expect(webhookProblem('ftp://hooks.example.com/x', undefined)).toBe('webhook: "ftp://hooks.example.com/x" is not an http(s) URL');
    expect(webhookProblem('not a url', policy)).toMatch(/is not a URL/);
    // Without a declared policy only the scheme is judged: the workers decide the host.
    expect(webhookProblem('https://anywhere.example.net/', undefined)).toBeUndefined();
  });
});

it('webhookIdOf is the same for a run whatever the attempt', () => {
  expect(webhookIdOf('agent-1a2b', 'run-9')).toBe('run-ended_agent-1a2b_run-9');
});

it('webhookLine says where a delivery stands in one line', () => {
  expect(webhookLine({ state: 'delivered', attempts: 3, last_status: 200 })).toBe('webhook: delivered (3 attempts, HTTP 200)');
  expect(webhookLine({ state: 'retrying', attempts: 1, last_status: 503, last_error: 'webhook receiver answered 503' })).toBe('webhook: retrying (1 attempt; last: webhook receiver answered 503)');
  expect(webhookLine({ state: 'given_up', last_error: 'gave up after 86400000 ms' })).toBe('webhook: given up (attempts unknown; gave up after 86400000 ms)');
  expect(webhookLine({ state: 'pending', attempts: 0 })).toBe('webhook: sending (0 attempts)');
});
