/** The agent file's `guardrails`: eval checks on the question and the answer, each with what its failure does. */
import { z } from 'zod';
import { isPlainObject } from './coerce';
import { EvalCheckSchema, checkKind } from '../eval/suite';
import { GUARDRAIL_ACTIONS, GUARDRAIL_CHECK_KINDS, type Guardrail } from '../guardrails';

/** One guardrail: a check of a text kind, plus `on_fail`. */
const GuardrailSchema = z.unknown().transform((value, ctx): Guardrail => {
  if (!isPlainObject(value)) {
    ctx.addIssue({ code: 'custom', message: 'expected a guardrail object, e.g. {"not_contains": "password", "on_fail": "stop"}' });
    return z.NEVER;
  }
  const { on_fail, ...check } = value;
  if (typeof on_fail !== 'string' || !(GUARDRAIL_ACTIONS as readonly string[]).includes(on_fail)) {
    ctx.addIssue({ code: 'custom', path: ['on_fail'], message: `expected one of ${GUARDRAIL_ACTIONS.join(', ')}` });
    return z.NEVER;
  }
  const kind = checkKind(check);
  if (kind !== undefined && !(GUARDRAIL_CHECK_KINDS as readonly string[]).includes(kind)) {
    ctx.addIssue({ code: 'custom', path: [kind], message: `a guardrail checks a text: expected one of ${GUARDRAIL_CHECK_KINDS.join(', ')}` });
    return z.NEVER;
  }
  const parsed = EvalCheckSchema.safeParse(check);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return { ...parsed.data, on_fail: on_fail as Guardrail['on_fail'] };
});

/** `{"input": [...], "output": [...], "tool_output": [...]}`: the question checked before any model call, each tool's output before the model sees it, the answer before the run ends. */
export const GuardrailsSchema = z
  .strictObject(
    {
      input: z.array(GuardrailSchema, { error: 'expected an array of guardrails' }).optional(),
      output: z.array(GuardrailSchema, { error: 'expected an array of guardrails' }).optional(),
      tool_output: z.array(GuardrailSchema, { error: 'expected an array of guardrails' }).optional(),
    },
    { error: 'expected {"input"?: [...], "output"?: [...], "tool_output"?: [...]}' },
  )
  .superRefine((g, ctx) => {
    // Asking the question again would not change it.
    (g.input ?? []).forEach((r, i) => {
      if (r.on_fail === 'retry') ctx.addIssue({ code: 'custom', path: ['input', i, 'on_fail'], message: 'an input guardrail can stop the run or ask a person (the question cannot be asked again)' });
    });
    // Checked inside the tool's activity, on every call: text checks only, and a tool's output is not asked again.
    (g.tool_output ?? []).forEach((r, i) => {
      if (r.on_fail === 'retry') ctx.addIssue({ code: 'custom', path: ['tool_output', i, 'on_fail'], message: 'a tool_output guardrail can stop the run or ask a person (a tool is not asked again)' });
      if ('judge' in r) ctx.addIssue({ code: 'custom', path: ['tool_output', i, 'judge'], message: 'a tool_output guardrail checks every tool output with a text check (contains, not_contains, regex, not_regex, equals, json_path), not a judge' });
    });
  });
