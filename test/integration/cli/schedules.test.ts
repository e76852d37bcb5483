/**
 * `perflow schedule …` as a user runs it, on a real Temporal server: schedules fire runs that
 * answer, overlap policies around a run waiting for its plan's approval, one conversation across
 * runs, pause, unpause, trigger, backfill, delete, tenants, DST in `describe`, one-line errors,
 * and a worker SIGKILLed between firings and during a run. Every schedule made here is deleted
 * after the file's tests, whatever they did (one left behind would fire into other files' servers).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { nonEmptyLines, useCli } from '../../support/cli';
import { final, plan, requestsAbout } from '../../support/harness';
import { useWorkerProcess } from '../../support/spawn-worker';
import { serverEnv } from '../../support/env';
import { getResult, listRuns, runSummary, type RunSummary } from '../../../client/ops';
import { describeSchedule } from '../../../client/schedules';
import type { ScheduleSummaryView, ScheduleView } from '../../../client/schedule-types';

jest.setTimeout(360_000);

const cli = useCli('schedules');
const crash = useWorkerProcess('schedule-crash');
const tag = randomUUID().slice(0, 6);
/** Every schedule this file creates, with the client that can delete it. */
const created: { id: string; client: () => Client }[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A scripted plan_execute_and_reflect agent file: one planner call answering `answer`, or a one-step plan to approve. */
function agentFile(name: string, o: { answer?: string; approval?: boolean } = {}) {
  const script = o.approval ? { planner: [plan('step A'), final(o.answer ?? 'approved answer')], executor: [[{ content: 'result A' }]] } : { planner: [final(o.answer ?? 'tick answer')] };
  return cli.agentFile(name, { name, type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script }, ...(o.approval ? { parameters: { plan_approval: 'first' } } : {}) });
}

/** `perflow ARGS --json`, its document; a failure throws with its stderr. */
async function json<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const r = await cli.perflow([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`perflow ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Creates a schedule (remembered for deletion) and returns its view. */
async function create(id: string, args: string[], env: Record<string, string> = {}, client: () => Client = () => cli.harness.client): Promise<ScheduleView> {
  created.push({ id, client });
  return json<ScheduleView>(['schedule', 'create', id, ...args], env);
}

/** Polls `check` until it returns a value (bounded). */
async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

// Polling goes through the library in this process (a CLI process per poll would cost a second each); the CLI shows what is polled for.
const runsOf = async (id: string): Promise<RunSummary[]> => (await listRuns(cli.harness.client, undefined, 100, undefined, undefined, undefined, id)).map(runSummary);
const viewOf = (id: string, perflow = () => cli.harness.perflow) => describeSchedule(perflow(), id);
const resultOf = (workflowId: string) => getResult(cli.harness.client, workflowId);
async function waitingForPlan(id: string): Promise<string | undefined> {
  for await (const wf of cli.harness.client.workflow.list({ query: `TemporalScheduledById = '${id}' AND PerflowPending = 'plan'` })) return wf.workflowId;
  return undefined;
}

// The tests run at once (each on schedules of its own), so the file takes the time of its longest test.
describe('perflow schedule', () => {
  afterAll(async () => {
    for (const { id, client } of created) {
      await client()
        .schedule.getHandle(id)
        .delete()
        .catch(() => undefined);
      // Runs left waiting for a person (or a worker) end here too.
      for await (const wf of client().workflow.list({ query: `TemporalScheduledById = '${id}' AND ExecutionStatus = 'Running'` })) {
        await client().workflow.getHandle(wf.workflowId).terminate('test cleanup').catch(() => undefined);
      }
    }
  });

  it.concurrent('fires runs every 2s that answer; list --schedule, describe, pause, unpause and delete (running runs stay)', async () => {
    const id = `tick-${tag}`;
    const view = await create(id, ['--agent', agentFile('ticker'), '--question', `tick ${tag}`, '--every', '2s', '--note', 'ticking']);
    expect(view).toMatchObject({ id, agent: 'ticker', spec: 'every 2s', timezone: 'UTC', overlap: 'skip', paused: false, note: 'ticking', same_memory: false });
    expect(view.next_runs.length).toBeGreaterThan(0);
    expect(view.fingerprint).toMatch(/^[0-9a-f]+/);

    const done = await until('two answered runs', async () => {
      const runs = (await runsOf(id)).filter((r) => r.status === 'COMPLETED');
      return runs.length >= 2 && runs;
    });
    const listed0 = await json<RunSummary[]>(['list', '--schedule', id]);
    expect(listed0.length).toBeGreaterThanOrEqual(2);
    for (const run of listed0) expect(run.workflow_id).toMatch(new RegExp(`^${id}-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));
    expect(await json<{ response: string }>(['result', done[0].workflow_id])).toMatchObject({ response: 'tick answer' });

    const described = await json<ScheduleView>(['schedule', 'describe', id]);
    expect(described.recent_runs.length).toBeGreaterThanOrEqual(2);
    expect(described.recent_runs.some((r) => r.status === 'COMPLETED' && r.workflow_id.startsWith(`${id}-`))).toBe(true);
    const listed = await json<ScheduleSummaryView[]>(['schedule', 'list']);
    expect(listed.find((s) => s.id === id)).toMatchObject({ agent: 'ticker', spec: 'every 2s', paused: false });

    expect((await cli.perflow(['schedule', 'pause', id, '--note', 'lunch'])).stdout.trim()).toBe(`schedule ${id} paused`);
    const paused = await json<ScheduleView>(['schedule', 'describe', id]);
    expect(paused).toMatchObject({ paused: true, note: 'lunch' });
    await sleep(3_000); // a firing or more, were it not paused
    expect((await viewOf(id)).actions_taken).toBe(paused.actions_taken);
    await json(['schedule', 'unpause', id]);
    await until('a firing after unpause', async () => (await viewOf(id)).actions_taken > paused.actions_taken);

    // A run going when the schedule is deleted goes on.
    const running = await until('a running run', async () => (await viewOf(id)).running[0], 40_000);
    await json(['schedule', 'delete', id]);
    expect(await resultOf(running)).toMatchObject({ response: 'tick answer' });
    const gone = await cli.perflow(['schedule', 'describe', id]);
    expect([gone.code, nonEmptyLines(gone.stderr)]).toEqual([2, [expect.stringMatching(new RegExp(`^perflow: no schedule ${id} in namespace \\S+ \\(perflow schedule list\\)$`))]]);
  });

  it.concurrent('overlap skip leaves out firings while a run waits for approval; buffer-one runs one after it', async () => {
    const skip = `skip-${tag}`;
    const buffer = `buffer-${tag}`;
    const approver = agentFile('approver', { approval: true });
    await create(skip, ['--agent', approver, '--question', `skip ${tag}`, '--every', '2s']);
    await create(buffer, ['--agent', approver, '--question', `buffer ${tag}`, '--every', '2s', '--overlap', 'buffer-one']);
    const waiting = (id: string) => until(`a run of ${id} waiting for its plan`, () => waitingForPlan(id));
    const first = { workflow_id: await waiting(skip) };
    const held = { workflow_id: await waiting(buffer) };
    await sleep(4_500); // two firings or more, each while a run waits
    const skipView = await json<ScheduleView>(['schedule', 'describe', skip]);
    expect(skipView.skipped_overlap).toBeGreaterThanOrEqual(1);
    expect(skipView.running).toEqual([first.workflow_id]);
    expect(await runsOf(skip)).toHaveLength(1);
    expect(await runsOf(buffer)).toHaveLength(1);
    await json(['schedule', 'pause', skip]);

    // Approved, the skip run answers and nothing else was started; the buffered firing starts as the first run ends.
    await json(['approve', first.workflow_id]);
    await json(['approve', held.workflow_id]);
    expect(await resultOf(first.workflow_id)).toMatchObject({ response: 'approved answer' });
    expect(await resultOf(held.workflow_id)).toMatchObject({ response: 'approved answer' });
    const second = await until('the buffered run', async () => (await runsOf(buffer)).find((r) => r.workflow_id !== held.workflow_id));
    const heldRun = (await runsOf(buffer)).find((r) => r.workflow_id === held.workflow_id)!;
    expect(new Date(second.start_time).getTime()).toBeGreaterThanOrEqual(new Date(heldRun.close_time!).getTime() - 1_000);
    await json(['schedule', 'pause', buffer]);
    expect(await runsOf(skip)).toHaveLength(1);
  });

  it.concurrent('--same-memory: each run continues one conversation and sees the answers before it', async () => {
    const id = `same-${tag}`;
    const question = `what happened since ${tag}?`;
    const view = await create(id, ['--agent', agentFile('diarist', { answer: 'all quiet' }), '--question', question, '--every', '2s', '--same-memory']);
    expect(view).toMatchObject({ same_memory: true, overlap: 'skip' });
    const memoryId = view.memory_id!;
    await until('three answered runs', async () => (await runsOf(id)).filter((r) => r.status === 'COMPLETED').length >= 3);
    await json(['schedule', 'delete', id]);

    // The planner's prompts: the first run's shows no earlier exchange, later ones the answers before them.
    const prompts = requestsAbout(cli.harness, question).filter((r) => r.position.role === 'planner').map((r) => r.messages[0].content);
    const earlier = (p: string) => p.split(`${question}, all quiet`).length - 1;
    expect(prompts.map(earlier).slice(0, 3)).toEqual([0, 1, 2]);
    expect(prompts[2]).toContain(`You have currently executed the following steps:\n[${question}, all quiet, ${question}, all quiet]`);
    expect((await cli.perflow(['memory', memoryId], { MONGODB_URI: cli.memoryUri })).stdout).toContain(question);
  });

  it.concurrent('trigger and backfill start runs; a tenant sees only its own schedules; describe shows DST in the next runs', async () => {
    const id = `yearly-${tag}`;
    const tenant = { tenant: 'acme' };
    await create(id, ['--agent', agentFile('yearly'), '--question', `yearly ${tag}`, '--cron', '0 0 1 1 *', '--tenant', tenant.tenant]);
    expect((await cli.perflow(['schedule', 'describe', id, '--tenant', 'other'])).code).toBe(2);
    expect((await json<ScheduleSummaryView[]>(['schedule', 'list', '--tenant', 'other'])).some((s) => s.id === id)).toBe(false);
    expect((await json<ScheduleSummaryView[]>(['schedule', 'list', '--tenant', 'acme'])).find((s) => s.id === id)).toMatchObject({ tenant: 'acme' });

    await json(['schedule', 'trigger', id, '--tenant', 'acme']);
    await until('the triggered run', async () => (await runsOf(id)).length === 1);
    // Three new years in the window: 2024, 2025 and 2026, one run each, one after another.
    await json(['schedule', 'backfill', id, '--from', '2023-12-31T00:00:00Z', '--to', '2026-01-02T00:00:00Z']);
    const runs = await until('four answered runs', async () => {
      const all = await runsOf(id);
      return all.length >= 4 && all.every((r) => r.status === 'COMPLETED') && all;
    });
    expect(runs).toHaveLength(4);
    expect(runs.map((r) => r.workflow_id).filter((w) => /-202[456]-01-01T00:00:00Z$/.test(w))).toHaveLength(3);
    expect((await json<RunSummary[]>(['list', '--tenant', 'acme'])).filter((r) => r.workflow_id.startsWith(`${id}-`))).toHaveLength(4);

    // Berlin leaves winter time on 2027-03-28: 09:00 local is +01:00 before, +02:00 after.
    const dst = `dst-${tag}`;
    await create(dst, ['--agent', agentFile('yearly'), '--question', 'dst', '--cron', '0 9 25-31 3 *', '--timezone', 'Europe/Berlin']);
    const text = await cli.perflow(['schedule', 'describe', dst]);
    expect(text.stdout).toContain('when: cron "0 9 25-31 3 *" in Europe/Berlin (time zone Europe/Berlin)');
    expect(text.stdout).toContain('    2027-03-27T09:00:00+01:00\n    2027-03-28T09:00:00+02:00\n');
    // Moved to October, when Berlin goes back to +01:00 (2027-10-31); the agent it runs stays.
    const before = await viewOf(dst);
    const moved = await json<ScheduleView>(['schedule', 'update', dst, '--cron', '0 9 25-31 10 *', '--note', 'autumn']);
    expect(moved).toMatchObject({ spec: 'cron "0 9 25-31 10 *" in Europe/Berlin', fingerprint: before.fingerprint, question: 'dst', note: 'autumn' });
    expect(moved.next_runs).toEqual(expect.arrayContaining(['2027-10-30T09:00:00+02:00', '2027-10-31T09:00:00+01:00']));
    await json(['schedule', 'delete', dst]);
  });

  it.concurrent('refuses bad input in one line before anything is scheduled', async () => {
    const bad = cli.agentFile('bad-agent', { name: 'bad', type: 'plan_execute_and_reflect', llm: { interface: 'scripted' }, parameters: { max_steps: 'many' } });
    const good = agentFile('fine');
    const cases: [string[], RegExp][] = [
      [['--agent', bad, '--question', 'q', '--every', '1h'], /^perflow: .*bad-agent\.json: .*max_steps/],
      [['--agent', good, '--question', 'q', '--cron', '0 9 * *'], /^perflow: --cron "0 9 \* \*": 4 fields/],
      [['--agent', good, '--question', 'q', '--every', '1h', '--timezone', 'Mars/Base'], /^perflow: --timezone: unknown time zone "Mars\/Base"/],
      [['--agent', good, '--question', 'q', '--every', 'soon'], /^perflow: --every expects a duration/],
      [['--agent', good, '--question', 'q', '--cron', '0 9 * * *', '--every', '1h'], /^perflow: give one of --cron, --every and --at, not --cron and --every$/],
      [['--agent', good, '--question', 'q', '--every', '1h', '--same-memory', '--overlap', 'allow-all'], /^perflow: --overlap allow-all would run one conversation twice at once/],
      [['--agent', good, '--question', 'q', '--every', '1h', '--webhook', 'https://elsewhere.example/hook'], /^perflow: .*elsewhere\.example/],
    ];
    for (const [args, message] of cases) {
      const id = `bad-${tag}`;
      const r = await cli.perflow(['schedule', 'create', id, ...args], { PERFLOW_ALLOW_HOSTS: '127.0.0.1' });
      expect([r.code, nonEmptyLines(r.stderr)]).toEqual([2, [expect.stringMatching(message)]]);
    }
    expect((await cli.perflow(['schedule', 'describe', `bad-${tag}`])).code).toBe(2);
  });

  it.concurrent('loses nothing when its worker is SIGKILLed during a run and between firings', async () => {
    await crash.restart();
    const env = { PERFLOW_TASK_QUEUE: crash.taskQueue, MONGODB_URI: `${serverEnv().mongoUri.replace(/\/$/, '')}/${crash.memory.db.databaseName}`, PERFLOW_EXTRA_TOOL_TYPES: 'SlowTool' };
    const id = `crash-${tag}`;
    const file = cli.agentFile('slow', {
      name: 'slow',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner: [plan('slow step'), final('slow answer')], executor: [[{ tool_calls: [{ name: 'SlowTool', input: { label: 'x', ms: 1_500 } }] }, { content: 'slow done' }]] } },
      tools: [{ type: 'SlowTool' }],
    });
    await create(id, ['--agent', file, '--question', `slow ${tag}`, '--every', '3s'], env, () => crash.client);
    await until('a run in flight', async () => (await runsOf(id)).some((r) => r.status === 'RUNNING'));
    await sleep(700);
    await crash.restart(); // during a run
    // The killed run's activity is retried after its heartbeat timeout, on a worker that starts under load: bounded generously.
    await until('a finished run', async () => (await runsOf(id)).some((r) => r.status === 'COMPLETED'), 150_000);
    await until('no run going', async () => (await viewOf(id, () => crash.perflow)).running.length === 0, 30_000);
    await crash.restart(); // between firings
    // Two more firings on a worker that starts under load: bounded as generously as the first wait.
    await until('a run after the restart', async () => (await runsOf(id)).filter((r) => r.status === 'COMPLETED').length >= 3, 150_000);
    await json(['schedule', 'pause', id], env);
    const view = await json<ScheduleView>(['schedule', 'describe', id], env);
    const runs = await until('every started run answered', async () => {
      const all = await runsOf(id);
      return all.length === view.actions_taken && all.every((r) => r.status === 'COMPLETED') && all;
    });
    for (const run of runs) expect(await getResult(crash.client, run.workflow_id)).toMatchObject({ response: 'slow answer' });
  });
});
