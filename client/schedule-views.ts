/** A schedule's description as perflow shows it: its summary (`listSchedules`) and its view with its runs' status and cost (`describeSchedule`). */
import type { Client, ScheduleDescription, ScheduleExecutionResult } from '@temporalio/client';
import { progressQuery, SearchAttributes, type RunInput } from '../workflows/definitions';
import { describeWhen, formatInZone, overlapOf } from './schedule-spec';
import type { ScheduledRun, ScheduledRunView, ScheduleRecord, ScheduleSummaryView, ScheduleView } from './schedule-types';

/** How long one run's cost is waited for: a schedule whose workers are down is shown without it. */
const COST_QUERY_MS = 3_000;

const recordOf = (d: ScheduleDescription): ScheduleRecord => ({ timezone: d.spec.timezone ?? 'UTC', ...((d.action.memo?.schedule ?? {}) as Partial<ScheduleRecord>) });

const runOf = (a: ScheduleExecutionResult): ScheduledRun => ({ workflow_id: a.action.workflow.workflowId, scheduled_at: a.scheduledAt.toISOString(), started_at: a.takenAt.toISOString() });

/** The schedule as `listSchedules` lists it. */
export function scheduleSummary(d: ScheduleDescription): ScheduleSummaryView {
  const record = recordOf(d);
  const memo = d.memo ?? {};
  const agent = d.typedSearchAttributes.get(SearchAttributes.agent) ?? (typeof d.action.memo?.agent === 'string' ? d.action.memo.agent : String(memo.agent ?? ''));
  return {
    id: d.scheduleId,
    agent,
    ...(typeof memo.tenant_id === 'string' ? { tenant: memo.tenant_id } : {}),
    paused: d.state.paused,
    ...(d.state.note ? { note: d.state.note } : {}),
    spec: describeWhen(record),
    timezone: record.timezone,
    overlap: overlapOf(d.policies.overlap),
    next_runs: d.info.nextActionTimes.map((t) => formatInZone(t, record.timezone)),
    recent_runs: d.info.recentActions.map(runOf),
  };
}

/** The schedule as `describeSchedule` shows it: each recent run's status and cost asked of Temporal. */
export async function scheduleView(client: Client, d: ScheduleDescription): Promise<ScheduleView> {
  const summary = scheduleSummary(d);
  const record = recordOf(d);
  const input = d.action.args?.[0] as RunInput | undefined;
  const recent = await Promise.all(d.info.recentActions.map((a) => runView(client, runOf(a))));
  return {
    ...summary,
    question: input?.question ?? String(d.action.memo?.question ?? ''),
    fingerprint: String(d.action.memo?.fingerprint ?? ''),
    catchup_window_ms: d.policies.catchupWindow,
    pause_on_failure: d.policies.pauseOnFailure,
    ...(record.memory_id !== undefined ? { memory_id: record.memory_id } : {}),
    same_memory: record.same_memory === true,
    ...(record.webhook !== undefined ? { webhook: record.webhook } : {}),
    ...(d.state.remainingActions !== undefined && record.at !== undefined ? { remaining_actions: d.state.remainingActions } : {}),
    recent_runs: recent,
    running: d.info.runningActions.map((a) => a.workflow.workflowId),
    actions_taken: d.info.numActionsTaken,
    skipped_overlap: d.info.numActionsSkippedOverlap,
    missed_catchup_window: d.info.numActionsMissedCatchupWindow,
    created_at: d.info.createdAt.toISOString(),
  };
}

async function runView(client: Client, run: ScheduledRun): Promise<ScheduledRunView> {
  const handle = client.workflow.getHandle(run.workflow_id);
  const described = await handle.describe().catch(() => undefined);
  if (!described) return { ...run, status: 'UNKNOWN', cost_usd: null };
  const tripped = described.typedSearchAttributes.get(SearchAttributes.status) === 'tripped';
  const progress = await client.withDeadline(Date.now() + COST_QUERY_MS, () => handle.query(progressQuery)).catch(() => undefined);
  return { ...run, status: tripped ? 'TRIPPED' : described.status.name, cost_usd: progress?.usage.cost_usd ?? null };
}
