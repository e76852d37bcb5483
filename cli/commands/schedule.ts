/** `perflow schedule create|list|describe|pause|unpause|trigger|backfill|update|delete`: agents on a clock (Temporal Schedules). */
import { PerflowError } from '../../client/errors';
import { checkTimezone, checkWhen, parseDuration, parseOverlap } from '../../client/schedule-spec';
import type { CreateScheduleOptions, ScheduleScope, ScheduleSummaryView, ScheduleView, UpdateScheduleOptions } from '../../client/schedule-types';
import { formatCost } from '../../core/text';
import { withClient, type CommandContext, type CommandHandler } from '../context';
import { answer, note } from '../output';

const SUBCOMMANDS = ['create', 'list', 'describe', 'pause', 'unpause', 'trigger', 'backfill', 'update', 'delete'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

export const schedule: CommandHandler = async (ctx) => {
  const [sub, ...rest] = ctx.positionals;
  if (!(SUBCOMMANDS as readonly (string | undefined)[]).includes(sub)) {
    throw new PerflowError('invalid', `schedule needs one of ${SUBCOMMANDS.join(', ')}: perflow schedule create ID --agent FILE --question TEXT --every 1h${sub !== undefined ? ` (got "${sub}")` : ''}`);
  }
  const id = rest[0];
  if (sub !== 'list' && !id) throw new PerflowError('invalid', `schedule ${sub} needs a schedule ID: perflow schedule ${sub} ID`);
  return HANDLERS[sub as Sub](ctx, id!);
};

const scopeOf = (ctx: CommandContext): ScheduleScope => (ctx.o.tenant !== undefined ? { tenant: ctx.o.tenant } : {});

const HANDLERS: Record<Sub, (ctx: CommandContext, id: string) => Promise<number>> = {
  create: async (ctx, id) => {
    const { o } = ctx;
    if (!o.agent) throw new PerflowError('invalid', 'schedule create needs --agent FILE');
    if (o.question === undefined) throw new PerflowError('invalid', 'schedule create needs --question TEXT');
    const options = await scheduleOptions(ctx, true);
    return withClient(ctx, async (perflow) => {
      const { createSchedule } = await import('../../client/schedules');
      const view = await createSchedule(perflow, { id, ...options } as CreateScheduleOptions);
      answer(o.json, view, () => [`schedule ${id} created`, ...viewLines(view)]);
      return 0;
    });
  },
  update: async (ctx, id) => {
    const options = await scheduleOptions(ctx, false);
    return withClient(ctx, async (perflow) => {
      const { updateSchedule } = await import('../../client/schedules');
      const view = await updateSchedule(perflow, id, options, scopeOf(ctx));
      answer(ctx.o.json, view, () => [`schedule ${id} updated`, ...viewLines(view)]);
      return 0;
    });
  },
  list: (ctx) =>
    withClient(ctx, async (perflow) => {
      const { listSchedules } = await import('../../client/schedules');
      const list = await listSchedules(perflow, scopeOf(ctx));
      answer(ctx.o.json, list, () => (list.length === 0 ? ['no schedules'] : list.map(summaryLine)));
      return 0;
    }),
  describe: (ctx, id) =>
    withClient(ctx, async (perflow) => {
      const { describeSchedule } = await import('../../client/schedules');
      const view = await describeSchedule(perflow, id, scopeOf(ctx));
      answer(ctx.o.json, view, () => [`schedule ${id}`, ...viewLines(view)]);
      return 0;
    }),
  pause: (ctx, id) => simple(ctx, id, 'paused', async (perflow, s) => s.pauseSchedule(perflow, id, ctx.o.note, scopeOf(ctx))),
  unpause: (ctx, id) => simple(ctx, id, 'unpaused', async (perflow, s) => s.unpauseSchedule(perflow, id, ctx.o.note, scopeOf(ctx))),
  trigger: (ctx, id) => simple(ctx, id, 'triggered', async (perflow, s) => s.triggerSchedule(perflow, id, scopeOf(ctx))),
  delete: (ctx, id) => simple(ctx, id, 'deleted (its running runs go on)', async (perflow, s) => s.deleteSchedule(perflow, id, scopeOf(ctx))),
  backfill: async (ctx, id) => {
    const from = timeOption(ctx.o.from, '--from');
    const to = timeOption(ctx.o.to, '--to');
    return simple(ctx, id, `backfilled from ${from.toISOString()} to ${to.toISOString()}`, async (perflow, s) => s.backfillSchedule(perflow, id, from, to, scopeOf(ctx)));
  },
};

type Schedules = typeof import('../../client/schedules');
async function simple(ctx: CommandContext, id: string, done: string, act: (perflow: Parameters<Schedules['pauseSchedule']>[0], s: Schedules) => Promise<void>): Promise<number> {
  return withClient(ctx, async (perflow) => {
    await act(perflow, await import('../../client/schedules'));
    answer(ctx.o.json, { id, done: done.split(' ')[0] }, () => `schedule ${id} ${done}`);
    return 0;
  });
}

/** `--from` / `--to`: an ISO time (with an offset or Z). */
function timeOption(raw: string | undefined, name: string): Date {
  if (raw === undefined) throw new PerflowError('invalid', `schedule backfill needs ${name} TIME (ISO, e.g. 2026-11-01T00:00:00Z)`);
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) throw new PerflowError('invalid', `${name} expects an ISO time such as 2026-11-01T00:00:00Z, got "${raw}"`);
  return date;
}

/** The options of `create` and `update`, checked before anything connects (the library checks them again). */
async function scheduleOptions(ctx: CommandContext, creating: boolean): Promise<UpdateScheduleOptions & { tenant?: string }> {
  const { o, config } = ctx;
  const timezone = o.timezone !== undefined ? checkTimezone(o.timezone) : undefined;
  if (creating || o.cron !== undefined || o.every !== undefined || o.at !== undefined) checkWhen({ cron: o.cron, every: o.every, at: o.at }, timezone ?? 'UTC');
  const overlap = parseOverlap(o.overlap);
  if (o['catchup-window'] !== undefined) parseDuration(o['catchup-window'], '--catchup-window');
  if (o['same-memory'] && o['memory-id'] !== undefined) throw new PerflowError('invalid', 'give --memory-id ID or --same-memory, not both');
  if ((o['same-memory'] || o['memory-id'] !== undefined) && overlap === 'allow-all') throw new PerflowError('invalid', '--overlap allow-all would run one conversation twice at once: use skip, buffer-one, buffer-all or cancel-other with --same-memory or --memory-id');
  if (!creating && o.param !== undefined && o.agent === undefined) throw new PerflowError('invalid', 'schedule update --param needs --agent FILE');
  let agent;
  if (o.agent !== undefined) {
    // The agent-file schemas load only for the commands that read one.
    const { loadAgentFile, parseParams } = await import('../../client/run');
    const loaded = await loadAgentFile(o.agent, { ...parseParams(o.param ?? []), ...(o.tenant !== undefined ? { tenant_id: o.tenant } : {}) }, { extraToolTypes: config.extraToolTypes, ...(config.limits ? { limits: config.limits } : {}) });
    for (const warning of loaded.warnings) note(`perflow: warning: ${warning}`);
    for (const line of loaded.notes) note(`perflow: note: ${line}`);
    agent = loaded;
  }
  return {
    ...(agent ? { agent } : {}),
    ...(o.question !== undefined ? { question: o.question } : {}),
    ...(o.cron !== undefined ? { cron: o.cron } : {}),
    ...(o.every !== undefined ? { every: o.every } : {}),
    ...(o.at !== undefined ? { at: o.at } : {}),
    ...(timezone !== undefined ? { timezone } : {}),
    ...(overlap !== undefined ? { overlap } : {}),
    ...(o['catchup-window'] !== undefined ? { catchupWindow: o['catchup-window'] } : {}),
    ...(o['pause-on-failure'] ? { pauseOnFailure: true } : {}),
    ...(o['memory-id'] !== undefined ? { memoryId: o['memory-id'] } : {}),
    ...(o['same-memory'] ? { sameMemory: true } : {}),
    ...(creating && o.tenant !== undefined ? { tenant: o.tenant } : {}),
    ...(o.webhook !== undefined ? { webhook: o.webhook } : {}),
    ...(o.note !== undefined ? { note: o.note } : {}),
  };
}

const NEXT_SHOWN = 5;

function summaryLine(s: ScheduleSummaryView): string {
  const next = s.next_runs[0] !== undefined ? `next ${s.next_runs[0]}` : 'no next run';
  return `${s.id}  ${s.agent}${s.tenant !== undefined ? ` (tenant ${s.tenant})` : ''}  ${s.spec}  ${s.paused ? 'PAUSED' : next}  ${s.recent_runs.length} recent run(s)${s.note ? `  note: ${s.note}` : ''}`;
}

function viewLines(v: ScheduleView): string[] {
  return [
    `  agent: ${v.agent} (fingerprint ${v.fingerprint})${v.tenant !== undefined ? `, tenant ${v.tenant}` : ''}`,
    `  question: ${v.question}`,
    `  when: ${v.spec} (time zone ${v.timezone}); overlap ${v.overlap}${v.pause_on_failure ? ', pauses on failure' : ''}`,
    ...(v.memory_id !== undefined ? [`  conversation: ${v.memory_id}${v.same_memory ? ' (every run continues it)' : ''}`] : []),
    ...(v.webhook !== undefined ? [`  webhook: ${v.webhook}`] : []),
    `  state: ${v.paused ? 'PAUSED' : 'active'}${v.note ? ` (${v.note})` : ''}; ${v.actions_taken} run(s) started, ${v.skipped_overlap} firing(s) skipped by overlap, ${v.missed_catchup_window} missed`,
    v.next_runs.length > 0 ? `  next runs (${v.timezone}):` : '  no next run',
    ...v.next_runs.slice(0, NEXT_SHOWN).map((t) => `    ${t}`),
    ...(v.recent_runs.length > 0 ? ['  recent runs:'] : []),
    ...v.recent_runs.map((r) => `    ${r.workflow_id}  ${r.status}  ${formatCost(r.cost_usd)}  (scheduled ${r.scheduled_at})`),
  ];
}
