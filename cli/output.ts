/**
 * Where the CLI writes: results on stdout (with `--json` exactly one JSON document), notes on
 * stderr. Text for people shows terminal control characters as text ({@link visibleText}): what
 * a model or tool wrote cannot drive the terminal. JSON is written exactly.
 */
import { visibleText } from '../core/text';

export const out = (line: string): void => void process.stdout.write(`${visibleText(line)}\n`);
export const note = (line: string): void => void process.stderr.write(`${visibleText(line)}\n`);
/** JSON as it is: JSON.stringify escapes C0 controls; C1 ones stay, as the value holds them. */
export const printJson = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** A command's answer: `json` with `--json`, else the lines of its text view. */
export function answer(asJson: boolean | undefined, json: unknown, lines: () => string | readonly string[]): void {
  if (asJson) return printJson(json);
  const text = lines();
  for (const line of typeof text === 'string' ? [text] : text) out(line);
}
