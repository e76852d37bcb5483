import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { DEFAULT_DATETIME_FORMAT, formatDatetime, injectDatetime, msUntilUtcDayEnds, nextUtcDay, utcDay } from '../../../core/datetime';

const T = Date.UTC(2025, 2, 7, 4, 5, 9); // Friday 7 March 2025, 04:05:09 UTC

describe('formatDatetime', () => {
  it('uses the default format when none is given', () => {
    expect(DEFAULT_DATETIME_FORMAT).toBe('%Y-%m-%d %H:%M:%S %Z');
    expect(formatDatetime(T)).toEqual({ text: '2025-03-07 04:05:09 UTC' });
  });

  it('supports weekday and month names, literal text and %%', () => {
    expect(formatDatetime(T, '%A, %d %B %Y at %H:%M (100%%)').text).toBe('Friday, 07 March 2025 at 04:05 (100%)');
  });

  it('falls back to the default with a warning for an unsupported directive', () => {
    const out = formatDatetime(T, '%Y-%j');
    expect(out.text).toBe('2025-03-07 04:05:09 UTC');
    expect(out.warning).toContain('"%j" is not supported');
    expect(out.warning).toContain('"%Y-%j"');
  });

  it('falls back to the default with a warning for an empty format or a trailing %', () => {
    expect(formatDatetime(T, '').warning).toMatch(/is empty/);
    expect(formatDatetime(T, '%Y %').warning).toMatch(/lone "%"/);
    expect(formatDatetime(T, '%Y %').text).toBe('2025-03-07 04:05:09 UTC');
  });

  it('rejects a time that is not a finite number', () => {
    expect(() => formatDatetime(Number.NaN)).toThrow(RangeError);
  });
});

describe('injectDatetime', () => {
  it('appends the date after a blank line', () => {
    expect(injectDatetime('You plan.', '2025-03-07 04:05:09 UTC')).toBe(
      'You plan.\n\nCurrent date and time: 2025-03-07 04:05:09 UTC',
    );
  });
});

describe('a datetime_format perflow cannot format', () => {
  const agent = (datetime_format: string) => ({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, parameters: { inject_datetime: true, datetime_format } });

  it.each([
    ['hh:mm a', '"hh" is not supported'],
    ['yyyy-MM-dd HH:mm:ss.SSS', '"SSS" is not supported'],
    ['%Y-%m-%d %I', '"%I" is not supported'],
  ])('is refused before the run starts, naming what: %s', (format, what) => {
    expect(() => parseAgentDefinition(agent(format))).toThrow(`invalid agent file: parameters.datetime_format: ${what}; supported: strftime`);
    expect(() => resolveParameters(parseAgentDefinition(agent('%Y')), { datetime_format: format })).toThrow(`invalid agent parameters: parameters.datetime_format: ${what}`);
  });

  it('is the default when blank (ml-commons AgentUtils.getCurrentDateTime: isBlank(format) falls back to its default)', () => {
    for (const blank of ['', '  ']) expect(resolveParameters(parseAgentDefinition(agent(blank))).datetime_format).toBe('%Y-%m-%d %H:%M:%S %Z');
  });

  it('is accepted when perflow formats it', () => {
    expect(resolveParameters(parseAgentDefinition(agent('yyyy-MM-dd HH:mm:ss z'))).datetime_format).toBe('yyyy-MM-dd HH:mm:ss z');
  });
});

describe('the UTC day a tenant’s daily cap counts in', () => {
  it('is the date in UTC, whatever the time of day', () => {
    expect(utcDay(Date.UTC(2025, 2, 7, 0, 0, 0))).toBe('2025-03-07');
    expect(utcDay(Date.UTC(2025, 2, 7, 23, 59, 59, 999))).toBe('2025-03-07');
    expect(nextUtcDay('2025-02-28')).toBe('2025-03-01');
    expect(nextUtcDay('2024-12-31')).toBe('2025-01-01');
  });

  it('ends at the next UTC midnight: the wait at the cap times out there', () => {
    expect(msUntilUtcDayEnds('2025-03-07', T)).toBe(Date.UTC(2025, 2, 8) - T);
    expect(msUntilUtcDayEnds('2025-03-07', Date.UTC(2025, 2, 7, 23, 59, 59, 500))).toBe(1_000);
    // A wait that begins after its day ended (the call was refused just before midnight) ends at once.
    expect(msUntilUtcDayEnds('2025-03-06', T)).toBe(1_000);
  });
});
