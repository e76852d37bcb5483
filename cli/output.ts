/** Where the CLI writes: results on stdout (with `--json` exactly one JSON document), notes on stderr. */
export const out = (line: string): void => void process.stdout.write(`${line}\n`);
export const note = (line: string): void => void process.stderr.write(`${line}\n`);
export const printJson = (value: unknown): void => out(JSON.stringify(value, null, 2));

/** A command's answer: `json` with `--json`, else the lines of its text view. */
export function answer(asJson: boolean | undefined, json: unknown, lines: () => string | readonly string[]): void {
  if (asJson) return printJson(json);
  const text = lines();
  for (const line of typeof text === 'string' ? [text] : text) out(line);
}
