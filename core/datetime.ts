/**
 * Current-date injection into system prompts (`inject_datetime`, `datetime_format`).
 *
 * Pure module: the time comes in as an argument (in a workflow, from workflow time), so it is
 * safe to import from workflow code.
 *
 * The Java-style fields are formatted here rather than by a date library: date-fns and Luxon
 * format some of them otherwise (`z` as `GMT+0`, `VV` rejected; Luxon's `X` is epoch seconds),
 * and js-joda, which formats them as Java does, more than triples the workflow bundle every
 * worker loads (1.5 MB to 4.6 MB with its English locale data) and makes the bundler resolve
 * an optional `cldr-data` that reads files.
 *
 * @module
 */

/** Format used when `datetime_format` is not set or is invalid. */
export const DEFAULT_DATETIME_FORMAT = '%Y-%m-%d %H:%M:%S %Z';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

const DIRECTIVES: Record<string, (d: Date) => string> = {
  Y: (d) => pad(d.getUTCFullYear(), 4),
  m: (d) => pad(d.getUTCMonth() + 1),
  d: (d) => pad(d.getUTCDate()),
  H: (d) => pad(d.getUTCHours()),
  M: (d) => pad(d.getUTCMinutes()),
  S: (d) => pad(d.getUTCSeconds()),
  A: (d) => WEEKDAYS[d.getUTCDay()],
  B: (d) => MONTHS[d.getUTCMonth()],
  Z: () => 'UTC',
  '%': () => '%',
};

type Part = string | ((d: Date) => string);

/**
 * Java `DateTimeFormatter` / `SimpleDateFormat` fields as OpenSearch users write them
 * (`yyyy-MM-dd HH:mm:ss`), by run of the same letter. Zones are always UTC (workflow time).
 */
const JAVA_RUNS: Record<string, (d: Date) => string> = {
  yyyy: DIRECTIVES.Y,
  uuuu: DIRECTIVES.Y,
  yy: (d) => pad(d.getUTCFullYear() % 100),
  MMMM: DIRECTIVES.B,
  MMM: (d) => MONTHS[d.getUTCMonth()].slice(0, 3),
  MM: DIRECTIVES.m,
  M: (d) => String(d.getUTCMonth() + 1),
  dd: DIRECTIVES.d,
  d: (d) => String(d.getUTCDate()),
  HH: DIRECTIVES.H,
  H: (d) => String(d.getUTCHours()),
  mm: DIRECTIVES.M,
  ss: DIRECTIVES.S,
  EEEE: DIRECTIVES.A,
  EEE: (d) => WEEKDAYS[d.getUTCDay()].slice(0, 3),
  z: DIRECTIVES.Z,
  zzz: DIRECTIVES.Z,
  VV: DIRECTIVES.Z,
  Z: () => '+0000',
  X: () => 'Z',
  XX: () => 'Z',
  XXX: () => 'Z',
};

/** Supported syntax, named in warnings. */
const SUPPORTED = `strftime %Y %m %d %H %M %S %A %B %Z %%, or Java-style ${Object.keys(JAVA_RUNS).join(' ')} with 'quoted' text`;

/** A Java-style pattern as parts; a letter run outside {@link JAVA_RUNS} names the problem. */
function compileJava(format: string): { parts: Part[] } | { error: string } {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < format.length; ) {
    const c = format[i];
    if (c === "'") {
      const end = format.indexOf("'", i + 1);
      if (end === -1) return { error: 'a quote is not closed' };
      literal += end === i + 1 ? "'" : format.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      literal += c;
      i++;
      continue;
    }
    let j = i;
    while (format[j] === c) j++;
    const run = format.slice(i, j);
    const field = JAVA_RUNS[run];
    if (field === undefined) return { error: `"${run}" is not supported` };
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(field);
    i = j;
  }
  if (literal !== '') parts.push(literal);
  return { parts };
}

/** Splits a format into literal text and directive letters, or names the first bad directive. */
function compile(format: string): { parts: Part[] } | { error: string } {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c !== '%') {
      literal += c;
      continue;
    }
    const directive = format[i + 1];
    if (directive === undefined) return { error: 'it ends with a lone "%"' };
    if (!(directive in DIRECTIVES)) return { error: `"%${directive}" is not supported` };
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(DIRECTIVES[directive]);
    i++;
  }
  if (literal !== '') parts.push(literal);
  return { parts };
}

/**
 * What is wrong with a `datetime_format`, in one phrase naming the unsupported letter or
 * directive and what is supported; undefined when perflow formats it. Checked before a run
 * starts, so a run never falls back to the default format unseen.
 */
export function datetimeFormatProblem(format: string): string | undefined {
  if (format.trim() === '') return `it is empty; supported: ${SUPPORTED}`;
  const java = !format.includes('%') && /[A-Za-z]/.test(format);
  const compiled = java ? compileJava(format) : compile(format);
  return 'error' in compiled ? `${compiled.error}; supported: ${SUPPORTED}` : undefined;
}

/** Result of {@link formatDatetime}. */
export interface FormattedDatetime {
  /** The formatted date and time. */
  text: string;
  /** Set when the requested format was invalid and {@link DEFAULT_DATETIME_FORMAT} was used. */
  warning?: string;
}

/**
 * Formats a UTC instant with a small strftime subset: `%Y` (4-digit year), `%m`, `%d`, `%H`,
 * `%M`, `%S` (2 digits), `%A` (weekday name), `%B` (month name), `%Z` (always `UTC`) and `%%`;
 * or with the same fields in Java style, as OpenSearch users write them (`yyyy-MM-dd HH:mm:ss`,
 * `EEEE`, `MMMM`, `z`, `'quoted text'`).
 *
 * An empty format, or one with any other `%` directive, falls back to
 * {@link DEFAULT_DATETIME_FORMAT} and returns a `warning` saying why; it never throws for a bad
 * format, so a typo in an agent file cannot fail a run.
 *
 * @param epochMs - milliseconds since the Unix epoch (in a workflow: `Date.now()` is workflow time)
 * @param format - strftime-like format
 * @default format `%Y-%m-%d %H:%M:%S %Z`
 * @throws RangeError when `epochMs` is not a finite number
 */
export function formatDatetime(epochMs: number, format?: string): FormattedDatetime {
  if (!Number.isFinite(epochMs)) throw new RangeError(`formatDatetime: invalid time ${String(epochMs)}`);
  const date = new Date(epochMs);
  let warning: string | undefined;
  // A format without `%` but with letters is a Java-style pattern, never text to emit as it is.
  const java = format !== undefined && !format.includes('%') && /[A-Za-z]/.test(format);
  let compiled = java ? compileJava(format) : compile(format ?? DEFAULT_DATETIME_FORMAT);
  if (format !== undefined && format.trim() === '') {
    compiled = { error: 'it is empty' };
  }
  if ('error' in compiled) {
    warning = `datetime_format ${JSON.stringify(format)} is invalid (${compiled.error}); supported: ${SUPPORTED}; using "${DEFAULT_DATETIME_FORMAT}"`;
    compiled = compile(DEFAULT_DATETIME_FORMAT);
    if ('error' in compiled) throw new Error('unreachable: default datetime format is invalid');
  }
  const text = compiled.parts.map((p) => (typeof p === 'string' ? p : p(date))).join('');
  return warning === undefined ? { text } : { text, warning };
}

/**
 * Appends the current date and time to a system prompt, separated by a blank line as the seed
 * does: `<systemPrompt>\n\nCurrent date and time: <text>`.
 *
 * @param systemPrompt - the planner or executor system prompt
 * @param text - the formatted date, from {@link formatDatetime}
 */
export function injectDatetime(systemPrompt: string, text: string): string {
  return `${systemPrompt}\n\nCurrent date and time: ${text}`;
}

const DAY_MS = 86_400_000;

/** The UTC day of a time (YYYY-MM-DD): the day a tenant's daily dollar cap counts in. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The UTC day after `day` (YYYY-MM-DD). */
export const nextUtcDay = (day: string): string => utcDay(Date.parse(`${day}T00:00:00Z`) + DAY_MS);

/** Milliseconds from `now` until the UTC day `day` ends (at least a second: a timer of 0 would not wait). */
export function msUntilUtcDayEnds(day: string, now: number): number {
  return Math.max(1_000, Date.parse(`${day}T00:00:00Z`) + DAY_MS - now);
}
