/** The models of an agent file: LLM interfaces, their default response filters, model settings and scripts. */
import { z } from 'zod';
import { TASK_KINDS, type TaskKind } from '../llm-types';
import { isPlainObject, requiredOr } from './coerce';
import { canonicalInterface, knownInterface, knownInterfaces } from './known-interfaces';
import { ModelParameters } from './model-parameters';

// ---------------------------------------------------------------------------------------------
// LLM interfaces

export { LLM_INTERFACES, normalizeInterface, llmResponseFilterFor } from './llm-interfaces';
export { addModelInterfaces } from './known-interfaces';

/** The refusal of an interface name: the interfaces this process knows, listed when it is asked. */
const expectedInterface = (issue: { input?: unknown }): string => requiredOr(`expected one of ${knownInterfaces().map((spec) => spec.name).join(', ')}`)(issue);

/**
 * An LLM interface name: a built-in one or one this process added (`addModelInterfaces`, a
 * worker's own model adapters). Matching ignores case and surrounding spaces, and the seed's
 * underscore spellings (`bedrock_converse_claude`) are accepted too.
 */
export const LlmInterface = z.preprocess(
  canonicalInterface,
  z.string({ error: expectedInterface }).refine((name) => knownInterface(name) !== undefined, { error: expectedInterface }),
);
/** An LLM interface name. */
export type LlmInterface = z.infer<typeof LlmInterface>;

// ---------------------------------------------------------------------------------------------
// models

const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A tool call in a scripted executor turn. */
export const ScriptedToolCall = z.object({
  /** Name of the tool to call. */
  name: z.string({ error: requiredOr('expected a string') }).min(1, { error: 'must not be empty' }),
  /** Tool input. */
  input: z.record(z.string(), z.unknown(), { error: requiredOr('expected an object') }),
  /**
   * Tool call ID.
   * @default generated
   */
  id: z.string({ error: 'expected a string' }).optional(),
});
/** A tool call in a scripted executor turn. */
export type ScriptedToolCall = z.infer<typeof ScriptedToolCall>;

/**
 * One scripted executor model turn: either a final answer `{content}` or tool calls
 * `{tool_calls, content?}`.
 */
export const ExecutorTurn = z.union(
  [
    z.strictObject({
      tool_calls: z.array(ScriptedToolCall).min(1, { error: 'must not be empty' }),
      content: z.string().optional(),
      /** Provider state the turn carries to the step's next turn (as Anthropic's thinking blocks are): handed back on this assistant message as `carry`. */
      carry: z.json().optional(),
    }),
    z.strictObject({ content: z.string() }),
  ],
  { error: 'expected {"content": string} or {"tool_calls": [{"name", "input"}], "content"?: string}' },
);
/** One scripted executor model turn. */
export type ExecutorTurn = z.infer<typeof ExecutorTurn>;

/** The script of a `scripted` model. */
export const ModelScript = z.object({
  /** Planner answers, in call order (each is the raw text the planner "returns"). */
  planner: z.array(z.string({ error: 'expected a string' }), { error: requiredOr('expected an array of strings') }),
  /** Executor turns per executed step: `executor[i]` is the turn list of step i+1. */
  executor: z
    .array(z.array(ExecutorTurn, { error: 'expected an array of turns' }), {
      error: requiredOr('expected an array of turn arrays'),
    })
    .default([]),
  /** Answers of summary calls (the max-steps summary); without one the steps are listed instead. */
  summary: z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' }).optional(),
  /** Answers of compaction calls (`context_strategy` summarize): `compaction[0]` for each. */
  compaction: z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' }).optional(),
  ...Object.fromEntries(
    TASK_KINDS.map((kind) => [kind, z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' }).optional()]),
  ) as Record<TaskKind, z.ZodOptional<z.ZodArray<z.ZodString>>>,
});
/** The script of a `scripted` model. */
export type ModelScript = z.infer<typeof ModelScript>;

const dollarsPerMillion = z
  .number({ error: requiredOr('expected a number of US dollars per million tokens') })
  .nonnegative({ error: 'must not be negative' })
  .finite({ error: 'must be a finite number' });

/**
 * A model's price in US dollars per million tokens, overriding the price table
 * (`telemetry/model-prices.ts`): `{input_per_million, output_per_million, cached_input_per_million?}`.
 */
export const ModelPrice = z.strictObject(
  {
    input_per_million: dollarsPerMillion,
    output_per_million: dollarsPerMillion,
    /**
     * Price of input tokens read from the provider's prompt cache.
     * @default input_per_million
     */
    cached_input_per_million: dollarsPerMillion.optional(),
  },
  { error: requiredOr('expected {"input_per_million": number, "output_per_million": number, "cached_input_per_million"?: number}') },
);
/** A model's price in US dollars per million tokens. */
export type ModelPrice = z.infer<typeof ModelPrice>;

const ModelConfigObject = z
  .object({
    /** Which API to call. Taken from `parameters._llm_interface` when missing (seed style). */
    interface: LlmInterface,
    /**
     * Model name or ID (e.g. `gpt-4o`, `us.anthropic.claude-3-7-sonnet-20250219-v1:0`).
     * The seed's `model_id` is accepted as an alias. Required unless `interface` is `scripted`.
     */
    model: z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }).optional(),
    /**
     * Base URL of an OpenAI-compatible endpoint.
     * @default the worker's OPENAI_BASE_URL, else the provider's URL
     */
    base_url: z.url({ error: 'expected a URL' }).optional(),
    /**
     * AWS region of a Bedrock model.
     * @default the worker's AWS region
     */
    region: z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }).optional(),
    /**
     * Model call parameters (`temperature`, `max_tokens`, ...), passed to the provider as they
     * are, but perflow's own (`stream`, `timeout_ms`, ...: model-parameters.ts), checked and typed.
     * @default {}
     */
    parameters: ModelParameters.optional(),
    /** The replayed answers; required when `interface` is `scripted`. */
    script: ModelScript.optional(),
    /**
     * The model's context window in tokens: a prompt that would not fit is compacted first
     * (`context_strategy`; activities/context-window.ts).
     * @default the price table's, by model and interface (none: prompts are sent as they are)
     */
    context_window: z.number({ error: 'expected a number of tokens' }).int({ error: 'expected a whole number of tokens' }).min(256, { error: 'must be at least 256 tokens' }).optional(),
    /**
     * What a prompt that would not fit the context window becomes: `summarize` (its oldest steps or
     * messages summarized by a call of this model), `trim` (left out, said in one line) or `fail`.
     * @default summarize
     */
    context_strategy: z.enum(['summarize', 'trim', 'fail'], { error: 'expected summarize, trim or fail' }).optional(),
    /**
     * The model's price in US dollars per million tokens, for the cost of its calls.
     * @default the price table's, by model and interface (none for the scripted model)
     */
    price: ModelPrice.optional(),
    /**
     * Name of the worker's environment variable holding the API key (OpenAI interface). Never
     * the key itself: keys stay in the worker's environment.
     * @default OPENAI_API_KEY
     */
    api_key_env: z
      .string({ error: 'expected a string' })
      .regex(ENV_VAR_NAME, { error: 'expected the name of an environment variable (letters, digits, "_")' })
      .optional(),
  }, { error: requiredOr('expected an object') })
  .superRefine((cfg, ctx) => {
    if (cfg.interface === 'scripted') {
      if (cfg.script === undefined) {
        ctx.addIssue({ code: 'custom', path: ['script'], message: 'is required when interface is "scripted"' });
      }
    } else if (cfg.model === undefined) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: `is required for interface "${cfg.interface}"` });
    }
  });

/** Accepts the seed's `model_id` as `model`. */
const aliasModelId = (v: unknown): unknown => {
  if (!isPlainObject(v) || !('model_id' in v)) return v;
  const { model_id: modelId, ...rest } = v;
  return rest.model === undefined ? { ...rest, model: modelId } : rest;
};

/** Which model to call and how: `{interface, model, base_url?, region?, parameters?, script?}`. */
export const ModelConfig = z.preprocess(aliasModelId, ModelConfigObject);
/** Which model to call and how. */
export type ModelConfig = z.infer<typeof ModelConfig>;

