/**
 * perflow's own `llm.parameters`: settings of the call perflow makes, never sent to a provider
 * (every other key is the provider's and passes to it as it is). Typed once, here: the agent
 * file's schema refuses a wrong type in one line naming the field, and the model calls read
 * them with the same coercions (the seed's API passes booleans and numbers as strings).
 */
import { z } from 'zod';
import { toBoolean, toNumber } from './coerce';

const flag = z.preprocess(toBoolean, z.boolean({ error: 'expected true or false' }));
const number = (message: string, fits: (n: number) => boolean) => z.preprocess(toNumber, z.number({ error: message }).refine(fits, { error: message }));

const FIELDS = {
  /** Whether the provider streams the answer, its text published as it is written. @default true */
  stream: flag,
  /** Whether the model may call several tools in one turn (OpenAI, Anthropic). @default false */
  parallel_tool_calls: flag,
  /** The scripted model's answer latency (benchmarks). @default 0 */
  latency_ms: number('expected a number of milliseconds, 0 or more', (n) => n >= 0),
  /** The request timeout. @default 120000 */
  timeout_ms: number('expected a number of milliseconds above 0', (n) => n > 0),
  /** How many characters of a scripted answer stream at a time. @default 16 */
  stream_chunk_chars: number('expected a positive integer', (n) => Number.isInteger(n) && n >= 1),
};

/** perflow's own `llm.parameters`, typed. */
export interface PerflowModelParameters {
  stream?: boolean;
  parallel_tool_calls?: boolean;
  latency_ms?: number;
  timeout_ms?: number;
  stream_chunk_chars?: number;
}

/** The `llm.parameters` keys that are perflow's own. */
export const PERFLOW_MODEL_PARAMETERS = Object.keys(FIELDS) as (keyof PerflowModelParameters)[];

/** Whether an `llm.parameters` key is perflow's own (never sent to a provider). */
export const isPerflowModelParameter = (key: string): key is keyof PerflowModelParameters => Object.hasOwn(FIELDS, key);

/**
 * A model block's `parameters`: perflow's own keys checked and typed (`"true"`, `"20"` accepted),
 * every other key kept as it is for the provider.
 */
export const ModelParameters = z.looseObject(
  Object.fromEntries(PERFLOW_MODEL_PARAMETERS.map((key) => [key, FIELDS[key].optional()])) as { [K in keyof typeof FIELDS]: z.ZodOptional<(typeof FIELDS)[K]> },
  { error: 'expected an object' },
);

/**
 * perflow's own parameters of a model block as its calls use them, with the schema's coercions;
 * a value that does not fit (a model block no schema checked) counts as unset.
 */
export function perflowModelParameters(parameters: Readonly<Record<string, unknown>> | undefined): PerflowModelParameters {
  const out: Record<string, unknown> = {};
  for (const key of PERFLOW_MODEL_PARAMETERS) {
    const read = FIELDS[key].safeParse(parameters?.[key]);
    if (read.success) out[key] = read.data;
  }
  return out as PerflowModelParameters;
}
