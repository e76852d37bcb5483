import { clientConfigFromEnv } from '../../../config/env';
import type { PerflowClient } from '../../../client/connect';
import { PerflowError } from '../../../client/errors';
import { agentFromJson } from '../../../client/run';
import { planSchedule } from '../../../client/schedule-action';
import type { RunInput } from '../../../workflows/definitions';

/** A client that must not be asked anything: planning a schedule without `memoryId` reads nothing. */
const perflow = (env: NodeJS.ProcessEnv = {}) => ({ config: clientConfigFromEnv({ PERFLOW_TASK_QUEUE: 'q', ...env }) }) as unknown as PerflowClient;
const agent = agentFromJson({ name: 'reporter', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } } }, 'reporter.json', { max_steps: 4 });
const names = (pairs: { key: { name: string }; value: unknown }[]) => Object.fromEntries(pairs.map((p) => [p.key.name, p.value]));

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(PerflowError);
  return (err as Error).message;
}

describe("a schedule's action", () => {
  it('starts the run startRun would start, its memory IDs left to each run, under the schedule ID', async () => {
    const plan = await planSchedule(perflow(), 'nightly', { agent, question: 'what changed?', every: '1h', tenant: 'acme' });
    const input = plan.action.args![0] as RunInput;
    expect(plan.action).toMatchObject({ type: 'startWorkflow', workflowType: 'planExecuteReflect', workflowId: 'nightly', taskQueue: 'q' });
    expect(input).toMatchObject({ question: 'what changed?', ids: {}, parameters: { max_steps: 4, tenant_id: 'acme' } });
    expect(input).not.toHaveProperty('continues_conversation');
    // Each run's own conversation: no PerflowMemory to share, the tenant's attribute for caps and listing.
    expect(names(plan.runSearchAttributes)).toEqual({ PerflowAgent: 'reporter', PerflowStatus: 'running', PerflowPending: 'none', PerflowFingerprint: plan.fingerprint, PerflowTenant: 'acme' });
    expect(plan.action.memo).toMatchObject({ agent: 'reporter', tenant_id: 'acme', fingerprint: plan.fingerprint, schedule: { every: '1h', timezone: 'UTC' } });
    expect(plan).toMatchObject({ overlap: 'skip', tenant: 'acme', spec: { intervals: [{ every: 3_600_000 }], timezone: 'UTC' } });
    expect(plan.newMemory).toBeUndefined();
    // A webhook reaches each run's input as `run --webhook` puts it there.
    const hooked = await planSchedule(perflow({ PERFLOW_ALLOW_HOSTS: 'hooks.example.com' }), 'nightly', { agent, question: 'q', every: '1h', webhook: 'https://hooks.example.com/perflow' });
    expect([(hooked.action.args![0] as RunInput).webhook, hooked.record.webhook]).toEqual([{ url: 'https://hooks.example.com/perflow' }, 'https://hooks.example.com/perflow']);
  });

  it('continues one conversation, opened at create, with --same-memory', async () => {
    const plan = await planSchedule(perflow(), 'diary', { agent, question: 'news?', cron: '0 9 * * *', timezone: 'Europe/Berlin', sameMemory: true });
    const input = plan.action.args![0] as RunInput;
    expect(plan.newMemory).toMatchObject({ memory_id: input.ids!.memory_id, name: 'news?', app_type: 'plan_execute_and_reflect' });
    expect(input).toMatchObject({ continues_conversation: true, ids: { memory_id: plan.newMemory!.memory_id } });
    expect(names(plan.runSearchAttributes).PerflowMemory).toBe(plan.newMemory!.memory_id);
    expect(plan.record).toEqual({ cron: '0 9 * * *', timezone: 'Europe/Berlin', same_memory: true, memory_id: plan.newMemory!.memory_id });
    // An update keeps the conversation it has.
    const again = await planSchedule(perflow(), 'diary', { agent, question: 'news?', cron: '0 9 * * *', sameMemory: true }, plan.newMemory!.memory_id);
    expect([again.newMemory, (again.action.args![0] as RunInput).ids]).toEqual([undefined, { memory_id: plan.newMemory!.memory_id }]);
  });

  it('refuses what would break a run or a conversation, in one line', async () => {
    expect(await refusal(planSchedule(perflow(), 's', { agent, question: 'q', every: '1h', sameMemory: true, overlap: 'allow-all' }))).toMatch(/^--overlap allow-all would run one conversation twice at once/);
    expect(await refusal(planSchedule(perflow(), 's', { agent, question: 'q', every: '1h', sameMemory: true, memoryId: 'm' }))).toBe('give --memory-id ID or --same-memory, not both');
    expect(await refusal(planSchedule(perflow(), 's', { agent, question: 'q', every: '1h', catchupWindow: '5s' }))).toBe("--catchup-window 5s: Temporal's minimum is 10s");
    expect(await refusal(planSchedule(perflow({ PERFLOW_REQUIRE_TENANT: 'true' }), 's', { agent, question: 'q', every: '1h' }))).toMatch(/tenant/);
    expect(await refusal(planSchedule(perflow({ PERFLOW_ALLOW_HOSTS: 'hooks.example.com' }), 's', { agent, question: 'q', every: '1h', webhook: 'https://evil.example/x' }))).toMatch(/^webhook: host "evil\.example" is not allowed/);
    expect(await refusal(planSchedule(perflow(), 's', { agent, question: 'q', every: '1h', params: { max_steps: 'many' } }))).toMatch(/^--param: .*max_steps/);
  });
});
