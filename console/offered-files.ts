/** The files the console offers from its folder: agent files, and suite files (JSON with `cases`). */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { PerflowError } from '../client/errors';

/** What the console reads of a JSON file in its folder. */
interface FileFields {
  name?: unknown;
  type?: unknown;
  description?: unknown;
  cases?: unknown;
  output_schema?: unknown;
}

/** The JSON files in the console's folder, parsed (unreadable ones left out). */
async function jsonFiles(dir: string): Promise<Array<{ file: string; json: FileFields }>> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json')).sort();
  const out: Array<{ file: string; json: FileFields }> = [];
  for (const file of names) {
    try {
      const json: unknown = JSON.parse(await readFile(join(dir, file), 'utf8'));
      if (typeof json === 'object' && json !== null) out.push({ file, json });
    } catch {
      // not JSON
    }
  }
  return out;
}

/** The agent files in the console's folder: file name, agent name, type, and description and output schema (when it has them). */
export async function agentFiles(dir: string): Promise<Array<{ file: string; name: string; type: string; description?: string; output_schema?: Record<string, unknown> }>> {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  return (await jsonFiles(dir)).flatMap(({ file, json }) =>
    typeof json.name === 'string' && json.cases === undefined
      ? [
          {
            file,
            name: json.name,
            type: typeof json.type === 'string' ? json.type : 'plan_execute_and_reflect',
            ...(typeof json.description === 'string' ? { description: json.description } : {}),
            ...(isObject(json.output_schema) ? { output_schema: json.output_schema } : {}),
          },
        ]
      : [],
  );
}

/** The suite files in the console's folder (JSON with `cases`): file and suite name. */
export async function suiteFiles(dir: string): Promise<Array<{ file: string; name: string }>> {
  return (await jsonFiles(dir)).flatMap(({ file, json }) => (typeof json.name === 'string' && Array.isArray(json.cases) ? [{ file, name: json.name }] : []));
}

/** The path of `name` when it is one of the files `list` offers in the folder (by name only), else a 400 listing them. */
export async function offeredFile(dir: string, name: string, what: 'agent' | 'suite', list: (dir: string) => Promise<Array<{ file: string }>>): Promise<string> {
  const offered = await list(dir);
  if (basename(name) !== name || !offered.some((a) => a.file === name)) {
    throw new PerflowError('invalid', `${what} "${name}" is not one of the console's ${what} files (${offered.map((a) => a.file).join(', ') || 'none'}): GET /api/${what}s`);
  }
  return join(dir, name);
}

/** An inline agent file or suite is code for the workers (an MCP server command, URLs): 403 unless the console allows it. */
export function refuseInline(o: { allowInlineAgents: boolean }, what: 'agent' | 'suite'): void {
  if (!o.allowInlineAgents) {
    throw new PerflowError('refused', `an inline ${what === 'agent' ? 'agent file' : 'suite'} is refused: name one of the console's ${what} files (GET /api/${what}s), or start the console with --allow-inline-agents`);
  }
}
