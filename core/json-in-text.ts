/**
 * The JSON value in a model's answer: models wrap JSON in markdown fences or prose, so this
 * tries a fenced block, the whole text, then the outermost brackets.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { clip, oneLine } from './text';

/** A parse outcome; errors are one line, fit for a retry prompt or a failure message. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const FENCE = /```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/;

/**
 * The JSON value in `raw`: a fenced block, the whole text, or the outermost `[...]` / `{...}`
 * (of the kind wanted). `subject` names the text in error messages.
 */
export function extractJson(raw: string, want: 'array' | 'object' | 'any' = 'any', subject = 'answer'): Parsed<unknown> {
  const fenced = FENCE.exec(raw);
  const candidate = (fenced ? fenced[1] : raw).trim();
  const attempts = [candidate];
  const brackets = want === 'object' ? [['{', '}']] : want === 'array' ? [['[', ']']] : [['[', ']'], ['{', '}']];
  for (const [open, close] of brackets) {
    for (const text of [candidate, raw]) {
      const first = text.indexOf(open);
      const last = text.lastIndexOf(close);
      if (first !== -1 && last > first) attempts.push(text.slice(first, last + 1));
    }
  }
  let error = 'no JSON found';
  for (const text of attempts) {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch (e) {
      error = oneLine((e as Error).message);
    }
  }
  if (want !== 'any' && attempts.length === 1) return { ok: false, error: `${subject} contains no JSON ${want}: "${clip(raw)}"` };
  return { ok: false, error: `${subject} is not valid JSON (${error}): "${clip(raw)}"` };
}
