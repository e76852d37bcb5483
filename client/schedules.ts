/**
 * Agents on a clock (`perflow schedule …`): Temporal Schedules whose firings start ordinary
 * perflow runs. A tenant sees and changes its own schedules only; any other answers as an
 * unknown ID does (`not_found`). Types: schedule-types.ts; timing: schedule-spec.ts; what a
 * firing starts: schedule-action.ts (loaded by create and update only: it reads agent files'
 * schemas, which listing and pausing need not load); views: schedule-views.ts.
 */
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type ScheduleDescription, type ScheduleHandle, type ScheduleOptions } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { searchAttributeRefused, type RunInput } from '../workflows/definitions';
import type { PerflowClient } from './connect';
import { isNotFound, PerflowError } from './errors';
import type { PlannedSchedule } from './schedule-action';
import { overlapOf, SCHEDULE_MARK, temporalOverlap } from './schedule-spec';
import type { CreateScheduleOptions, ScheduleRecord, ScheduleScope, ScheduleSummaryView, ScheduleView, UpdateScheduleOptions } from './schedule-types';
import { scheduleSummary, scheduleView } from './schedule-views';

export type * from './schedule-types';
export { OVERLAP_POLICIES } from './schedule-types';

const noSchedule = (perflow: PerflowClient, id: string) => new PerflowError('not_found', `no schedule ${id} in namespace ${perflow.client.options.namespace} (perflow schedule list)`);

/** The schedule's handle and description, when it is perflow's and in the scope; else `not_found`. */
async function scoped(perflow: PerflowClient, id: string, scope: ScheduleScope = {}): Promise<{ handle: ScheduleHandle; description: ScheduleDescription }> {
  const handle = perflow.client.schedule.getHandle(id);
  let description: ScheduleDescription;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError || isNotFound(err)) throw noSchedule(perflow, id);
    throw err;
  }
  const memo = description.memo ?? {};
  if (memo[SCHEDULE_MARK] === undefined || (scope.tenant !== undefined && memo.tenant_id !== scope.tenant)) throw noSchedule(perflow, id);
  return { handle, description };
}

/** Handle calls fail so when the schedule went between its describe and the call. */
async function onSchedule<T>(perflow: PerflowClient, id: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError || isNotFound(err)) throw noSchedule(perflow, id);
    throw err;
  }
}

/** The action's input and record, as the schedule was created or last updated. */
const actionOf = (d: ScheduleDescription) => ({ input: d.action.args?.[0] as RunInput, record: (d.action.memo?.schedule ?? {}) as ScheduleRecord });

/**
 * Creates a schedule: the agent file's definition and parameters are frozen into it (validated,
 * as `startRun` checks a run: worker policy, tenant, webhook); each firing starts a run. Returns
 * the schedule as `describeSchedule` shows it. An ID in use is a `conflict`.
 */
export async function createSchedule(perflow: PerflowClient, o: CreateScheduleOptions): Promise<ScheduleView> {
  const { checkScheduleId, openConversation, planSchedule } = await import('./schedule-action');
  const id = checkScheduleId(o.id);
  const plan = await planSchedule(perflow, id, o);
  if (plan.newMemory) await openConversation(perflow, plan.newMemory);
  const options: ScheduleOptions = {
    scheduleId: id,
    spec: plan.spec,
    action: plan.action,
    policies: policiesOf(plan, o.pauseOnFailure),
    memo: { [SCHEDULE_MARK]: 1, agent: plan.agentName, ...(plan.tenant !== undefined ? { tenant_id: plan.tenant } : {}) },
    state: { paused: o.paused ?? false, ...(o.note !== undefined ? { note: o.note } : {}), ...(plan.remainingActions !== undefined ? { remainingActions: plan.remainingActions } : {}) },
  };
  let attributes = plan.searchAttributes;
  let actionAttributes = plan.runSearchAttributes;
  for (;;) {
    try {
      await perflow.client.schedule.create({ ...options, typedSearchAttributes: attributes, action: { ...plan.action, typedSearchAttributes: actionAttributes } });
      break;
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw new PerflowError('conflict', `a schedule ${id} exists already (perflow schedule update ${id} …, or delete it first)`, { cause: err });
      // A namespace without some of perflow's search attributes still schedules, without them (as startRun does).
      const refused = searchAttributeRefused(err);
      if (refused === undefined || (attributes.length === 0 && actionAttributes.length === 0)) throw err;
      attributes = [];
      actionAttributes = refused === '' ? [] : actionAttributes.filter((a) => a.key.name !== refused);
    }
  }
  return describeSchedule(perflow, id, { tenant: plan.tenant });
}

function policiesOf(plan: PlannedSchedule, pauseOnFailure: boolean | undefined): NonNullable<ScheduleOptions['policies']> {
  return { overlap: temporalOverlap(plan.overlap), ...(plan.catchupWindowMs !== undefined ? { catchupWindow: plan.catchupWindowMs } : {}), pauseOnFailure: pauseOnFailure ?? false };
}

/** perflow's schedules (a tenant's only, with `scope.tenant`), by ID. */
export async function listSchedules(perflow: PerflowClient, scope: ScheduleScope = {}): Promise<ScheduleSummaryView[]> {
  const ids: string[] = [];
  for await (const s of perflow.client.schedule.list()) {
    if (s.memo?.[SCHEDULE_MARK] === undefined) continue;
    if (scope.tenant !== undefined && s.memo.tenant_id !== scope.tenant) continue;
    ids.push(s.scheduleId);
  }
  // Listing is eventually consistent; each is described for what it is now (one deleted since is left out).
  const described = await Promise.all(ids.map((id) => scoped(perflow, id, scope).then((s) => s.description, () => undefined)));
  return described.filter((d) => d !== undefined).map(scheduleSummary).sort((a, b) => a.id.localeCompare(b.id));
}

/** One schedule: its timing, next runs in its time zone, recent runs with status and cost, the fingerprint of what it runs. */
export async function describeSchedule(perflow: PerflowClient, id: string, scope: ScheduleScope = {}): Promise<ScheduleView> {
  const { description } = await scoped(perflow, id, scope);
  return scheduleView(perflow.client, description);
}

/** Pauses it: no firing until `unpauseSchedule` (runs going go on). */
export async function pauseSchedule(perflow: PerflowClient, id: string, note?: string, scope: ScheduleScope = {}): Promise<void> {
  const { handle } = await scoped(perflow, id, scope);
  await onSchedule(perflow, id, () => handle.pause(note ?? 'paused with perflow'));
}

/** Lets a paused schedule fire again. */
export async function unpauseSchedule(perflow: PerflowClient, id: string, note?: string, scope: ScheduleScope = {}): Promise<void> {
  const { handle } = await scoped(perflow, id, scope);
  await onSchedule(perflow, id, () => handle.unpause(note ?? 'unpaused with perflow'));
}

/** Fires it now, under its overlap policy (a `skip` schedule with a run going starts nothing). */
export async function triggerSchedule(perflow: PerflowClient, id: string, scope: ScheduleScope = {}): Promise<void> {
  const { handle, description } = await scoped(perflow, id, scope);
  await onSchedule(perflow, id, () => handle.trigger(description.policies.overlap));
}

/**
 * Starts the runs of every firing between `from` and `to` (a past window): one after another
 * (`buffer-all`), all at once for an `allow-all` schedule.
 */
export async function backfillSchedule(perflow: PerflowClient, id: string, from: Date, to: Date, scope: ScheduleScope = {}): Promise<void> {
  if (!(from.getTime() < to.getTime())) throw new PerflowError('invalid', 'backfill needs --from before --to');
  const { handle, description } = await scoped(perflow, id, scope);
  const overlap = description.policies.overlap === 'ALLOW_ALL' ? 'ALLOW_ALL' : 'BUFFER_ALL';
  await onSchedule(perflow, id, () => handle.backfill({ start: from, end: to, overlap }));
}

/**
 * Changes a schedule: what `changes` gives replaces the schedule's (a new `agent` is validated
 * and frozen again; a new `cron`/`every`/`at` replaces the timing); its tenant stays.
 */
export async function updateSchedule(perflow: PerflowClient, id: string, changes: UpdateScheduleOptions, scope: ScheduleScope = {}): Promise<ScheduleView> {
  const { loadedFromInput, openConversation, planSchedule } = await import('./schedule-action');
  const { handle, description } = await scoped(perflow, id, scope);
  const { input, record } = actionOf(description);
  const tenant = description.memo?.tenant_id as string | undefined;
  const newTiming = changes.cron !== undefined || changes.every !== undefined || changes.at !== undefined;
  if (changes.params !== undefined && changes.agent === undefined) throw new PerflowError('invalid', 'update --param needs --agent FILE: the parameters are resolved with the agent file');
  const sameMemory = changes.sameMemory ?? record.same_memory ?? false;
  const plan = await planSchedule(
    perflow,
    id,
    {
      ...(newTiming ? { cron: changes.cron, every: changes.every, at: changes.at } : { cron: record.cron, every: record.every, at: record.at }),
      timezone: changes.timezone ?? record.timezone,
      agent: changes.agent ?? loadedFromInput(input),
      question: changes.question ?? input.question,
      overlap: changes.overlap ?? overlapOf(description.policies.overlap),
      ...(changes.catchupWindow !== undefined ? { catchupWindow: changes.catchupWindow } : {}),
      ...(changes.params !== undefined ? { params: changes.params } : {}),
      ...(tenant !== undefined ? { tenant } : {}),
      sameMemory,
      ...(changes.memoryId !== undefined ? { memoryId: changes.memoryId } : !sameMemory && record.memory_id !== undefined ? { memoryId: record.memory_id } : {}),
      ...((changes.webhook ?? record.webhook) !== undefined ? { webhook: changes.webhook ?? record.webhook } : {}),
    },
    record.memory_id,
  );
  if (plan.newMemory) await openConversation(perflow, plan.newMemory);
  await onSchedule(perflow, id, () =>
    handle.update((prev) => ({
      spec: plan.spec,
      action: plan.action,
      policies: { ...policiesOf(plan, changes.pauseOnFailure ?? prev.policies.pauseOnFailure), ...(plan.catchupWindowMs === undefined ? { catchupWindow: prev.policies.catchupWindow } : {}) },
      state: { paused: changes.paused ?? prev.state.paused, note: changes.note ?? prev.state.note, ...(plan.remainingActions !== undefined ? { remainingActions: newTiming ? plan.remainingActions : prev.state.remainingActions } : {}) },
      typedSearchAttributes: new TypedSearchAttributes(plan.searchAttributes),
    })),
  );
  return describeSchedule(perflow, id, scope);
}

/** Deletes it: no more firings; runs it started go on. */
export async function deleteSchedule(perflow: PerflowClient, id: string, scope: ScheduleScope = {}): Promise<void> {
  const { handle } = await scoped(perflow, id, scope);
  await onSchedule(perflow, id, () => handle.delete());
}
