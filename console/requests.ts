/**
 * The console API's request bodies and queries, validated: a bad one is a 400 naming the field.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { GUIDANCE_MAX_CHARS } from '../core/decisions';
import { ON_BUSY, PerflowError } from '../client';

const params = z.record(z.string(), z.unknown());

/** Length caps of the texts a request carries (docs/console.md): beyond them a 400 names the field. */
export const TEXT_LIMITS = { question: 20_000, guidance: GUIDANCE_MAX_CHARS, reason: 2_000, step: 2_000, steps: 100 } as const;
const question = z.string().trim().min(1).max(TEXT_LIMITS.question);

export const startBody = z.strictObject({
  /** An agent file the console offers (GET /api/agents), or an agent file's JSON. */
  agent: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  question,
  params: params.optional(),
  /** The conversation (`params.memory_id`) is busy with an earlier run: reject (default), enqueue or interrupt (client/busy-memory.ts). */
  on_busy: z.enum(ON_BUSY).optional(),
  /** Where the run's end is POSTed (docs/webhooks.md); its host must be allowed by the worker policy. */
  webhook: z.string().trim().min(1).max(2048).optional(),
});

export const forkBody = z.strictObject({
  from_step: z.number().int().min(1),
  question: question.optional(),
  params: params.optional(),
  agent: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
});

export const evalBody = z.strictObject({
  /** A suite file of the console's folder, or a suite's JSON. */
  suite: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  /** An agent file of the console's folder, over the suite's `agent`. */
  agent: z.string().min(1).optional(),
  params: params.optional(),
  concurrency: z.number().int().min(1).max(100).optional(),
});

const by = z.string().max(200).optional();
const reason = z.string().trim().min(1).max(TEXT_LIMITS.reason);

export const decisionBody = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('approve'), steps: z.array(z.string().trim().min(1).max(TEXT_LIMITS.step)).min(1).max(TEXT_LIMITS.steps).optional(), by }),
  z.strictObject({ kind: z.literal('reject'), reason, stop: z.boolean().optional(), by }),
  z.strictObject({ kind: z.literal('approve_tool'), input: z.record(z.string(), z.unknown()).optional(), by }),
  z.strictObject({ kind: z.literal('deny_tool'), reason, by }),
  z.strictObject({ kind: z.literal('guide'), text: z.string().trim().min(1).max(TEXT_LIMITS.guidance), by }),
  z.strictObject({ kind: z.literal('pause'), reason: z.string().max(TEXT_LIMITS.reason).optional(), by }),
  z.strictObject({ kind: z.literal('resume'), by }),
  z.strictObject({ kind: z.literal('raise_budget'), usd: z.number().positive(), by }),
  z.strictObject({ kind: z.literal('cancel'), by }),
]);

export type DecisionBody = z.infer<typeof decisionBody>;

/** The body parsed by `schema`, or a 400 (`invalid`) naming the first field at fault. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.length > 0 ? issue.path.join('.') : 'the body';
  const what = issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : `${field}: ${issue.message}`;
  throw new PerflowError('invalid', `bad request body: ${what}`);
}

/** A non-negative integer query value (an event offset), or a 400. */
export function offsetOf(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new PerflowError('invalid', `${name} expects an event offset (0, 1, 2, …), got "${raw}"`);
  return n;
}

/** The request's JSON body, or a 400. */
export async function jsonOf(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new PerflowError('invalid', 'bad request body: expected a JSON object');
  }
}

/** The request's JSON body, or `{}` when it has none (routes whose fields are all optional). */
export async function optionalJsonOf(c: Context): Promise<unknown> {
  return (await c.req.raw.clone().text()).trim() === '' ? {} : jsonOf(c);
}
