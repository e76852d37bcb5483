import { checkCron, checkTimezone, checkWhen, describeWhen, formatInZone, parseAt, parseDuration, parseOverlap, scheduleSpecOf, temporalOverlap, overlapOf } from '../../../client/schedule-spec';
import { PerflowError } from '../../../client/errors';

/** The one-line message a call throws. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PerflowError);
    expect((err as PerflowError).kind).toBe('invalid');
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  }
  throw new Error('it did not throw');
}

describe('schedule timing', () => {
  it('parses durations, single and compound, and refuses others naming the option', () => {
    expect(parseDuration('2s', '--every')).toBe(2_000);
    expect(parseDuration('1h30m', '--every')).toBe(5_400_000);
    expect(parseDuration('1d', '--every')).toBe(86_400_000);
    expect(parseDuration('500ms', '--every')).toBe(500);
    for (const bad of ['', '2', 'two seconds', '2x', '1h 30m', '-1s']) expect(refusal(() => parseDuration(bad, '--every'))).toMatch(/^--every expects a duration such as 30s/);
  });

  it('checks time zones with Intl', () => {
    expect(checkTimezone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(refusal(() => checkTimezone('Mars/Olympus'))).toBe('--timezone: unknown time zone "Mars/Olympus" (an IANA name such as UTC, Europe/Berlin, America/New_York)');
  });

  it('accepts 5-field cron expressions and macros, and names the field that is wrong', () => {
    for (const ok of ['0 9 * * 1-5', '*/15 * * * *', '0 0 1 jan,jul *', '30 6 * * mon-fri', '@daily', '0 0 * * 7']) expect(checkCron(ok)).toBe(ok);
    expect(refusal(() => checkCron('0 9 * *'))).toMatch(/^--cron "0 9 \* \*": 4 fields \(5 fields: minute hour/);
    expect(refusal(() => checkCron('61 * * * *'))).toContain('minute "61" is not in 0–59');
    expect(refusal(() => checkCron('0 25 * * *'))).toContain('hour "25" is not in 0–23');
    expect(refusal(() => checkCron('0 9 * * 5-1'))).toContain('day of week range "5-1" runs backwards');
    expect(refusal(() => checkCron('*/0 * * * *'))).toContain('minute "*/0" has a bad step');
    expect(refusal(() => checkCron('0 9 * foo *'))).toContain('month "foo" is not in 1–12');
  });

  it('wants exactly one of cron, every and at', () => {
    expect(refusal(() => checkWhen({}, 'UTC'))).toBe('a schedule needs one of --cron "EXPR", --every DURATION or --at TIME');
    expect(refusal(() => checkWhen({ cron: '0 9 * * *', every: '1h' }, 'UTC'))).toBe('give one of --cron, --every and --at, not --cron and --every');
    expect(refusal(() => checkWhen({ every: '500ms' }, 'UTC'))).toContain('Temporal fires at most once a second');
    expect(checkWhen({ every: ' 2s ' }, 'UTC')).toEqual({ every: '2s' });
  });

  it('reads --at as a wall-clock time in the zone, or as an instant with an offset, and refuses the past', () => {
    const now = new Date('2026-11-28T12:00:00Z');
    // Berlin is UTC+1 in winter, UTC+2 in summer.
    expect(parseAt('2026-12-01T09:00', 'Europe/Berlin', now).toISOString()).toBe('2026-12-01T08:00:00.000Z');
    expect(parseAt('2027-07-01T09:00', 'Europe/Berlin', now).toISOString()).toBe('2027-07-01T07:00:00.000Z');
    expect(parseAt('2026-12-01T09:00:00-05:00', 'Europe/Berlin', now).toISOString()).toBe('2026-12-01T14:00:00.000Z');
    expect(refusal(() => parseAt('2026-11-01T09:00', 'UTC', now))).toBe('--at 2026-11-01T09:00:00+00:00 is in the past: give a later time');
    expect(refusal(() => parseAt('tomorrow', 'UTC', now))).toMatch(/^--at expects a time such as/);
  });

  it('shows times in the zone with its offset, so a DST change shows', () => {
    // Europe/Berlin leaves summer time on the last Sunday of October (2026-10-25 at 03:00 local).
    expect(formatInZone(new Date('2026-10-24T07:00:00Z'), 'Europe/Berlin')).toBe('2026-10-24T09:00:00+02:00');
    expect(formatInZone(new Date('2026-10-26T08:00:00Z'), 'Europe/Berlin')).toBe('2026-10-26T09:00:00+01:00');
    expect(formatInZone(new Date('2026-10-26T08:00:00Z'), 'UTC')).toBe('2026-10-26T08:00:00+00:00');
  });

  it("builds Temporal's spec and says in words how it fires", () => {
    expect(scheduleSpecOf({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' })).toEqual({ cronExpressions: ['0 9 * * 1-5'], timezone: 'Europe/Berlin' });
    expect(scheduleSpecOf({ every: '1h30m', timezone: 'UTC' })).toEqual({ intervals: [{ every: 5_400_000 }], timezone: 'UTC' });
    const once = scheduleSpecOf({ at: '2026-12-01T08:00:00.000Z', timezone: 'Europe/Berlin' });
    expect(once.calendars?.[0]).toMatchObject({ year: 2026, month: 'DECEMBER', dayOfMonth: 1, hour: 9, minute: 0, second: 0 });
    expect(describeWhen({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' })).toBe('cron "0 9 * * 1-5" in Europe/Berlin');
    expect(describeWhen({ every: '2s', timezone: 'UTC' })).toBe('every 2s');
    expect(describeWhen({ at: '2026-12-01T08:00:00.000Z', timezone: 'Europe/Berlin' })).toBe('once at 2026-12-01T09:00:00+01:00');
  });

  it('maps overlap policies both ways and refuses unknown ones', () => {
    expect(parseOverlap('buffer-one')).toBe('buffer-one');
    expect(parseOverlap(undefined)).toBeUndefined();
    expect(temporalOverlap('buffer-one')).toBe('BUFFER_ONE');
    expect(overlapOf('CANCEL_OTHER')).toBe('cancel-other');
    expect(overlapOf(undefined)).toBe('skip');
    expect(refusal(() => parseOverlap('terminate'))).toBe('--overlap must be skip, buffer-one, buffer-all, cancel-other or allow-all, got "terminate"');
  });
});
