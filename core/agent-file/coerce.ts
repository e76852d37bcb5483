/** Coercions and field builders of the agent file's schema: the seed's API passes numbers and booleans as strings. */
import { z } from 'zod';

export type PlainObject = Record<string, unknown>;

export const isPlainObject = (v: unknown): v is PlainObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const requiredOr =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'is required' : message;

/** Accepts numbers given as strings ("20"), as the seed's API passes every parameter as a string. */
export const toNumber = (v: unknown): unknown => {
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return v;
};

/** Accepts booleans given as strings ("true", "FALSE"). */
export const toBoolean = (v: unknown): unknown => {
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return v;
};

export const integerParam = (min: 0 | 1, defaultValue: number) => {
  const message = min === 1 ? 'expected a positive integer' : 'expected a non-negative integer';
  return z
    .preprocess(toNumber, z.number({ error: message }).int({ error: message }).min(min, { error: message }))
    .default(defaultValue);
};

export const booleanParam = (defaultValue: boolean) =>
  z.preprocess(toBoolean, z.boolean({ error: 'expected true or false' })).default(defaultValue);

export const stringParam = () => z.string({ error: 'expected a string' }).optional();

const DURATION_UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3_600, d: 86_400 };
const DURATION_MESSAGE = 'expected a duration such as "90s", "15m", "2h" or "1d" (a number is seconds)';

/** A duration in seconds from seconds (`90`, `"90"`) or `<number><ms|s|m|h|d>` (`"15m"`); undefined stays undefined. */
export const durationParam = () =>
  z
    .preprocess((v) => {
      if (typeof v !== 'string') return v;
      const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(v);
      return m ? Number(m[1]) * DURATION_UNITS[m[2] ?? 's'] : v;
    }, z.number({ error: DURATION_MESSAGE }).positive({ error: DURATION_MESSAGE }))
    .optional();
