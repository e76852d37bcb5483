/**
 * An agent's typed answer (`output_schema`): the schema's bounds, its validation with Ajv
 * (JSON Schema draft 2020-12, formats included), and a model's reply read as JSON. Ajv compiles
 * a schema to code, so it runs in clients and activities, never in workflow code; it is loaded on
 * first use (only agents with an `output_schema` pay for it).
 */
import type { ValidateFunction } from 'ajv';

/** The largest `output_schema` an agent file may give (bytes of its JSON). */
export const OUTPUT_SCHEMA_MAX_BYTES = 32_768;
/** The deepest nesting of objects and arrays an `output_schema` may have. */
export const OUTPUT_SCHEMA_MAX_DEPTH = 16;

/** What the validator says of a value that does not conform: `path: message` lines, the first failing path first. */
export interface OutputProblems {
  problems: string[];
  /** The JSON Pointer of the first failing value (`/` for the whole). */
  path: string;
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce((deepest: number, child) => Math.max(deepest, depthOf(child)), 0);
}

/* eslint-disable @typescript-eslint/no-require-imports */
type Ajv = import('ajv').default;
let ajv: Ajv | undefined;
/** The one validator of this process: draft 2020-12, every error, formats checked, unknown keywords allowed (annotations). */
function validator(): Ajv {
  if (ajv) return ajv;
  const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default;
  const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
  ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}
/* eslint-enable @typescript-eslint/no-require-imports */

const compiled = new Map<string, ValidateFunction>();
/** The schema's validator, compiled once per schema text (bounded: a worker serves few agents). */
function compile(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    if (compiled.size >= 200) compiled.delete(compiled.keys().next().value as string);
    validate = validator().compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** Why an `output_schema` cannot be used (too big, too deep, not a valid JSON Schema), in one line; `undefined` when it can. */
export function outputSchemaProblem(schema: Record<string, unknown>): string | undefined {
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > OUTPUT_SCHEMA_MAX_BYTES) return `is ${bytes} bytes; at most ${OUTPUT_SCHEMA_MAX_BYTES} are allowed`;
  const depth = depthOf(schema);
  if (depth > OUTPUT_SCHEMA_MAX_DEPTH) return `nests ${depth} levels deep; at most ${OUTPUT_SCHEMA_MAX_DEPTH} are allowed`;
  try {
    compile(schema);
    return undefined;
  } catch (err) {
    return `is not a valid JSON Schema (draft 2020-12): ${(err as Error).message}`;
  }
}

/** Whether `value` conforms to `schema`: `undefined` when it does, else what does not. */
export function outputProblems(schema: Record<string, unknown>, value: unknown): OutputProblems | undefined {
  const validate = compile(schema);
  if (validate(value)) return undefined;
  const errors = validate.errors ?? [];
  const at = (path: string) => (path === '' ? '/' : path);
  return {
    problems: errors.map((e) => `${at(e.instancePath)}: ${e.message ?? 'does not conform'}${e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : ''}`),
    path: at(errors[0]?.instancePath ?? ''),
  };
}

/**
 * A model's reply as one JSON value: the whole reply, or inside a ```json fence (models add one
 * even when told not to). `undefined` and the parser's message when it is not JSON.
 */
export function replyJson(reply: string): { value: unknown } | { error: string } {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(reply);
  const text = (fenced ? fenced[1] : reply).trim();
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: `the reply is not JSON (${(err as Error).message})` };
  }
}
