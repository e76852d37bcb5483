/**
 * Text helpers every side uses: one-line forms for messages, and bounded previews.
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */

/** Longest step result kept in workflow state and shown by queries. */
export const RESULT_PREVIEW_CHARS = 2_000;

/** The text on one line: line breaks and the spaces around them become one space. */
export const oneLine = (s: string): string => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/** At most `max` characters, with a note of how many more there were. */
export function preview(text: string, max = RESULT_PREVIEW_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** A short one-line quote of a text for error messages (`...` when cut). */
export function clip(s: string, n = 80): string {
  const flat = oneLine(s);
  return flat.length > n ? `${flat.slice(0, n - 3)}...` : flat;
}

/** An error and its causes, outermost first (`cause` links of Errors and Temporal failures). */
export function causeChain(err: unknown): Array<{ message?: string; code?: unknown }> {
  const chain: Array<{ message?: string; code?: unknown; cause?: unknown }> = [];
  for (let e = err; typeof e === 'object' && e !== null && chain.length < 20; e = (e as { cause?: unknown }).cause) {
    chain.push(e as { message?: string; code?: unknown });
  }
  return chain;
}

/** The first line of an error's message, for one-line reports. */
export function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
