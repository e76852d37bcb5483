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

/**
 * Terminal control characters shown instead of obeyed: ESC, BEL, CR and every other C0 control
 * but newline and tab, DEL, the C1 controls and the bidirectional overrides become `\x1b`-style
 * text. A model or a tool can write anything; on a terminal it must not set the title, clear the
 * screen, rewrite earlier lines or make a link lie. (`\r\n` is a line break.)
 */
export function visibleText(s: string): string {
  return s.replace(/\r\n/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

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

/**
 * A cost in US dollars for people: cents from a cent up (`$1.23`), else up to six decimals
 * (`$0.000175`), `<$0.000001` below that; `cost unknown` when a model had no known price (null)
 * or the usage predates costs (undefined).
 */
export function formatCost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return 'cost unknown';
  if (cost === 0) return '$0';
  if (cost >= 0.01) return `$${cost.toFixed(2)}`;
  if (cost < 0.000001) return '<$0.000001';
  return `$${cost.toFixed(6).replace(/0+$/, '')}`;
}

/**
 * A run's or call's token counts for people: `tokens in 120 / out 30`; `tokens unknown` when
 * the model reported none, `tokens in ≥120 / out ≥30 (not all reported)` when only some calls did.
 */
export function formatTokens(u: { input_tokens: number; output_tokens: number; tokens_unknown?: true }): string {
  if (!u.tokens_unknown) return `tokens in ${u.input_tokens} / out ${u.output_tokens}`;
  if (u.input_tokens + u.output_tokens === 0) return 'tokens unknown';
  return `tokens in ≥${u.input_tokens} / out ≥${u.output_tokens} (not all reported)`;
}

/** A duration in seconds to a tenth, for people: `1.5 s`. */
export const formatSeconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * A short digest of a text (its length and FNV-1a over its UTF-16 code units, 32 bits): tells a
 * cached copy from another text where a workflow names the text it saw. Not for security.
 */
export function textDigest(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${text.length}:${(h >>> 0).toString(16).padStart(8, '0')}`;
}
