/**
 * The types of perflow's schedules (client/schedules.ts): agents run on a clock by Temporal
 * Schedules. Each firing starts an ordinary run (the agent file validated and frozen when the
 * schedule is created or updated), with the workflow ID `<schedule ID>-<firing time>`.
 */
import type { LoadedAgent } from './run';

/** What to do with a firing while an earlier run of the schedule is still going (Temporal's overlap policies). */
export const OVERLAP_POLICIES = ['skip', 'buffer-one', 'buffer-all', 'cancel-other', 'allow-all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** When a schedule fires: exactly one of `cron`, `every` and `at`. */
export interface ScheduleWhen {
  /** A cron expression of 5 fields (`"0 9 * * 1-5"`), or `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`. */
  cron?: string;
  /** An interval such as `"2s"`, `"15m"`, `"1h30m"`, `"1d"` (at least 1 s). */
  every?: string;
  /** One firing at this time: a Date, an ISO time with offset, or a wall-clock time (`2026-12-01T09:00`) in `timezone`. */
  at?: string | Date;
}

/** `createSchedule`'s options (`updateSchedule` takes the same, all optional but `id`). */
export interface CreateScheduleOptions extends ScheduleWhen {
  /** The schedule ID: also the start of its runs' workflow IDs. Letters, digits, `.`, `_`, `-`; at most 200 characters. */
  id: string;
  /** The agent each firing runs, as `loadAgentFile` returns it (validated; frozen into the schedule). */
  agent: LoadedAgent;
  /** The question every run is asked. */
  question: string;
  /** An IANA time zone (`Europe/Berlin`) for `cron`, `at` and the next runs shown. @default 'UTC' */
  timezone?: string;
  /** @default 'skip': a firing while a run is still going is left out. */
  overlap?: OverlapPolicy;
  /** How late after a missed firing (server or worker down) it still runs, e.g. `"10m"` (at least 10 s). @default Temporal's: 1 year */
  catchupWindow?: string;
  /** Pause the schedule when a run fails or times out. @default false */
  pauseOnFailure?: boolean;
  /** Every run continues this existing conversation. */
  memoryId?: string;
  /** Every run continues one conversation, new at create: each run sees the earlier runs' answers. */
  sameMemory?: boolean;
  /**
   * Run parameters (`--param k=v`), resolved here against `agent.agent` (they replace the run
   * parameters `agent` was loaded with). Omit them when `agent` was loaded with them.
   */
  params?: Record<string, unknown>;
  /** The tenant the schedule and its runs belong to (`tenant_id`); a tenant-scoped caller's own. */
  tenant?: string;
  /** A signed POST to this URL when each run ends, as `startRun({ webhook })` (checked against the policy here). */
  webhook?: string;
  /** A note shown with the schedule (Temporal's schedule note). */
  note?: string;
  /** Create it paused. @default false */
  paused?: boolean;
}

/** `updateSchedule`'s changes: what is given replaces the schedule's; a new `cron`/`every`/`at` replaces its timing. */
export type UpdateScheduleOptions = Partial<Omit<CreateScheduleOptions, 'id' | 'tenant'>>;

/** Which tenant's schedules a call sees and changes: one tenant's, or (undefined) every tenant's. */
export interface ScheduleScope {
  tenant?: string;
}

/** A run a schedule started. */
export interface ScheduledRun {
  workflow_id: string;
  /** The firing time it was started for (ISO, UTC). */
  scheduled_at: string;
  /** When it was started (ISO, UTC). */
  started_at: string;
}

/** A schedule as `listSchedules` shows it. */
export interface ScheduleSummaryView {
  id: string;
  /** The agent's name. */
  agent: string;
  tenant?: string;
  paused: boolean;
  note?: string;
  /** How it fires, in words: `every 2s`, `cron "0 9 * * 1-5" in Europe/Berlin`, `once at …`. */
  spec: string;
  timezone: string;
  overlap: OverlapPolicy;
  /** The next firing times, ISO 8601 with the UTC offset of the schedule's time zone (so a DST change shows). */
  next_runs: string[];
  /** The latest runs it started, oldest first. */
  recent_runs: ScheduledRun[];
}

/** A run of a schedule with where it stands. */
export interface ScheduledRunView extends ScheduledRun {
  /** RUNNING, COMPLETED, TRIPPED, FAILED, CANCELLED, … (or UNKNOWN when Temporal no longer knows it). */
  status: string;
  /** Its cost in US dollars so far (null: unpriced or not known). */
  cost_usd: number | null;
}

/** A schedule as `describeSchedule` shows it. */
export interface ScheduleView extends Omit<ScheduleSummaryView, 'recent_runs'> {
  question: string;
  /** The fingerprint of the agent and parameters it runs (as each run's, core/fingerprint.ts). */
  fingerprint: string;
  catchup_window_ms: number;
  pause_on_failure: boolean;
  /** The conversation every run continues (`--memory-id` or `--same-memory`). */
  memory_id?: string;
  same_memory: boolean;
  webhook?: string;
  /** One firing only (`at`): how many are left (0 or 1). */
  remaining_actions?: number;
  recent_runs: ScheduledRunView[];
  /** Runs of it going now. */
  running: string[];
  actions_taken: number;
  skipped_overlap: number;
  missed_catchup_window: number;
  created_at: string;
}

/** What a schedule's firing runs is recorded with it (the action's memo, `schedule`): how `update` and `describe` know it. */
export interface ScheduleRecord {
  cron?: string;
  every?: string;
  /** ISO (UTC) of the one firing. */
  at?: string;
  timezone: string;
  same_memory?: boolean;
  memory_id?: string;
  webhook?: string;
}
