/**
 * An eval's `regex` checks, in linear time: RE2's engine (re2js, pure JavaScript), which has no
 * backtracking, so no pattern a suite holds can stall the worker that scores it (a JavaScript
 * RegExp such as `(a+)+$` takes exponential time on a long answer). RE2 syntax is JavaScript's
 * without lookaround and backreferences; flags `i`, `m` and `s` mean what they mean in
 * JavaScript (`g`, `u` and `d` change nothing for a first match and are accepted).
 *
 * @module
 */
import type { RE2JS } from 're2js';

/** re2js, loaded on the first pattern compiled: agent files and suites without one (and every CLI command reading them) do not pay for it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const re2 = () => (require('re2js') as typeof import('re2js')).RE2JS;

/** The flags a check may give, as RE2JS flag bits. */
const FLAG_NAMES = ['i', 'm', 's', 'g', 'u', 'd'] as const;
const flagBits = (f: string): number => {
  const R = re2();
  return ({ i: R.CASE_INSENSITIVE, m: R.MULTILINE, s: R.DOTALL } as Record<string, number>)[f] ?? 0;
};

/** A compiled check pattern: its first match in a text, if any. */
export interface CheckRegex {
  firstMatch(text: string): string | undefined;
}

/** The pattern compiled, or the one line that says what is wrong with it (and which part: the pattern or the flags). */
export function compileCheckRegex(source: string, flags = ''): { ok: true; regex: CheckRegex } | { ok: false; field: 'regex' | 'flags'; problem: string } {
  const unknown = [...flags].filter((f) => !(FLAG_NAMES as readonly string[]).includes(f) || flags.indexOf(f) !== flags.lastIndexOf(f));
  if (unknown.length > 0) return { ok: false, field: 'flags', problem: `invalid RegExp flags "${flags}" (supported: i, m, s; g, u and d change nothing)` };
  let compiled: RE2JS;
  try {
    compiled = re2().compile(source, [...flags].reduce((all, f) => all | flagBits(f), 0));
  } catch (err) {
    const message = (err as Error).message.replace(/^error parsing regexp: /, '');
    return { ok: false, field: 'regex', problem: `invalid regular expression: ${message} (regex checks use RE2 syntax: no lookaround or backreferences)` };
  }
  return {
    ok: true,
    regex: {
      firstMatch(text) {
        const m = compiled.matcher(text);
        return m.find() ? (m.group() ?? '') : undefined;
      },
    },
  };
}
