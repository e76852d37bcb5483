/**
 * A schedule's timing as people write it (`--cron`, `--every`, `--at`, `--timezone`,
 * `--overlap`, `--catchup-window`), checked before anything connects (one line per problem),
 * turned into Temporal's ScheduleSpec, described in words, and times shown in its zone. Pure.
 */
import type { ScheduleOverlapPolicy, ScheduleSpec } from '@temporalio/client';
import { PerflowError } from './errors';
import { OVERLAP_POLICIES, type OverlapPolicy, type ScheduleRecord, type ScheduleWhen } from './schedule-types';

/** Marks a schedule as perflow's (its memo): other schedules of the namespace are not shown nor changed. */
export const SCHEDULE_MARK = 'perflow_schedule';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `2s`, `15m`, `1h30m`, `1d`, `500ms` in milliseconds; `what` names it in the error. */
export function parseDuration(text: string, what: string): number {
  const trimmed = text.trim();
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const whole = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || whole !== trimmed) throw new PerflowError('invalid', `${what} expects a duration such as 30s, 15m, 1h30m or 1d, got "${text}"`);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS[unit], 0);
}

/** Checks an IANA time zone name with Intl (the zones Node knows are the ones Temporal's server knows, give or take a release). */
export function checkTimezone(zone: string, what = '--timezone'): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new PerflowError('invalid', `${what}: unknown time zone "${zone}" (an IANA name such as UTC, Europe/Berlin, America/New_York)`);
  }
  return zone;
}

const CRON_MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const CRON_FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES },
] as const;

/** Checks a 5-field cron expression (or a macro such as `@daily`); the error names the field that is wrong. */
export function checkCron(expr: string): string {
  const text = expr.trim();
  if (CRON_MACROS.includes(text.toLowerCase())) return text;
  const fields = text.split(/\s+/);
  const bad = (why: string) => new PerflowError('invalid', `--cron "${expr}": ${why} (5 fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5", or @hourly, @daily, @weekly, @monthly)`);
  if (fields.length !== 5) throw bad(`${fields.length} field${fields.length === 1 ? '' : 's'}`);
  fields.forEach((field, i) => {
    const spec = CRON_FIELDS[i];
    const value = (v: string): number => {
      const named = 'names' in spec ? (spec.names as readonly string[]).indexOf(v.toLowerCase()) : -1;
      const n = named >= 0 ? named + (spec.name === 'month' ? 1 : 0) : /^\d+$/.test(v) ? Number(v) : NaN;
      if (!(n >= spec.min && n <= spec.max)) throw bad(`${spec.name} "${v}" is not in ${spec.min}–${spec.max}`);
      return n;
    };
    for (const item of field.split(',')) {
      const [range, step, extra] = item.split('/');
      if (extra !== undefined || (step !== undefined && !/^[1-9]\d*$/.test(step))) throw bad(`${spec.name} "${item}" has a bad step`);
      if (range === '*' || range === '?') continue;
      const [from, to, more] = range.split('-');
      if (more !== undefined || from === '') throw bad(`${spec.name} "${item}" is not a number, range or *`);
      if (to !== undefined && value(to) < value(from)) throw bad(`${spec.name} range "${range}" runs backwards`);
      value(from);
    }
  });
  return text;
}

/** An overlap policy as given (`--overlap`); undefined when not given. */
export function parseOverlap(value: string | undefined, what = '--overlap'): OverlapPolicy | undefined {
  if (value === undefined || (OVERLAP_POLICIES as readonly string[]).includes(value)) return value as OverlapPolicy | undefined;
  throw new PerflowError('invalid', `${what} must be ${OVERLAP_POLICIES.slice(0, -1).join(', ')} or ${OVERLAP_POLICIES.at(-1)}, got "${value}"`);
}

/** Temporal's name of an overlap policy, and back. */
export const temporalOverlap = (p: OverlapPolicy): ScheduleOverlapPolicy => p.toUpperCase().replace(/-/g, '_') as ScheduleOverlapPolicy;
export const overlapOf = (p: ScheduleOverlapPolicy | undefined): OverlapPolicy => (p ? (p.toLowerCase().replace(/_/g, '-') as OverlapPolicy) : 'skip');

/** The wall-clock fields of `date` in `zone`, and the zone's UTC offset then (`+02:00`). */
export function zonedParts(date: Date, zone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number; offset: string } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'longOffset',
  }).formatToParts(date);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const gmt = get('timeZoneName'); // "GMT+02:00", or "GMT" at +00:00
  return { year: Number(get('year')), month: Number(get('month')), day: Number(get('day')), hour: Number(get('hour')), minute: Number(get('minute')), second: Number(get('second')), offset: gmt === 'GMT' ? '+00:00' : gmt.slice(3) };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `date` as ISO 8601 in `zone`, with that zone's offset at the time: `2027-03-28T09:00:00+02:00`. */
export function formatInZone(date: Date, zone: string): string {
  const z = zonedParts(date, zone);
  return `${pad(z.year, 4)}-${pad(z.month)}-${pad(z.day)}T${pad(z.hour)}:${pad(z.minute)}:${pad(z.second)}${z.offset}`;
}

/** `--at`: a Date, an ISO time with an offset or `Z`, or a wall-clock time (`2026-12-01T09:00`) in `zone`. */
export function parseAt(at: string | Date, zone: string, now = new Date()): Date {
  let date: Date;
  if (at instanceof Date) date = at;
  else if (/(Z|[+-]\d{2}:?\d{2})$/i.test(at.trim())) date = new Date(at.trim());
  else {
    const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(at.trim());
    if (!m) throw new PerflowError('invalid', `--at expects a time such as 2026-12-01T09:00 (in --timezone) or 2026-12-01T08:00:00Z, got "${at}"`);
    const [y, mo, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0));
    // The UTC instant whose wall clock in the zone reads so: two passes settle the zone's offset.
    const wall = Date.UTC(y, mo - 1, d, h, mi, s);
    let guess = wall;
    for (let i = 0; i < 2; i++) {
      const z = zonedParts(new Date(guess), zone);
      guess = wall - (Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second) - guess);
    }
    date = new Date(guess);
  }
  if (Number.isNaN(date.getTime())) throw new PerflowError('invalid', `--at: "${String(at)}" is not a time`);
  if (date.getTime() <= now.getTime()) throw new PerflowError('invalid', `--at ${formatInZone(date, zone)} is in the past: give a later time`);
  return date;
}

/** Exactly one of cron, every and at, checked; the record of it kept with the schedule. */
export function checkWhen(when: ScheduleWhen, zone: string, now = new Date()): Pick<ScheduleRecord, 'cron' | 'every' | 'at'> {
  const given = (['cron', 'every', 'at'] as const).filter((k) => when[k] !== undefined);
  if (given.length === 0) throw new PerflowError('invalid', 'a schedule needs one of --cron "EXPR", --every DURATION or --at TIME');
  if (given.length > 1) throw new PerflowError('invalid', `give one of --cron, --every and --at, not ${given.map((g) => `--${g}`).join(' and ')}`);
  if (when.cron !== undefined) return { cron: checkCron(when.cron) };
  if (when.every !== undefined) {
    if (parseDuration(when.every, '--every') < 1_000) throw new PerflowError('invalid', `--every ${when.every}: Temporal fires at most once a second; give 1s or more`);
    return { every: when.every.trim() };
  }
  return { at: parseAt(when.at!, zone, now).toISOString() };
}

/** Temporal's ScheduleSpec for a checked timing (`at`: a calendar matching that one second, in the zone). */
export function scheduleSpecOf(r: ScheduleRecord): ScheduleSpec {
  if (r.cron !== undefined) return { cronExpressions: [r.cron], timezone: r.timezone };
  if (r.every !== undefined) return { intervals: [{ every: parseDuration(r.every, '--every') }], timezone: r.timezone };
  const z = zonedParts(new Date(r.at!), r.timezone);
  return { calendars: [{ year: z.year, month: MONTHS[z.month - 1], dayOfMonth: z.day, hour: z.hour, minute: z.minute, second: z.second, comment: `once at ${r.at}` }], timezone: r.timezone };
}
const MONTHS = ['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'] as const;

/** How a schedule fires, in words: `every 2s`, `cron "0 9 * * 1-5" in Europe/Berlin`, `once at 2026-12-01T09:00:00+01:00`. */
export function describeWhen(r: ScheduleRecord): string {
  const zone = r.timezone === 'UTC' ? '' : ` in ${r.timezone}`;
  if (r.cron !== undefined) return `cron "${r.cron}"${zone}`;
  if (r.every !== undefined) return `every ${r.every}`;
  return `once at ${formatInZone(new Date(r.at!), r.timezone)}`;
}
