/**
 * A client's answer to a task waiting for input (INPUT_REQUIRED): a message whose text is
 * "approve" or "reject …", or whose data part is `{"decision": …}`, sent to the run as the
 * `perflow approve` family of commands sends it, to the very decision the task asked about.
 */
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { Message } from '@a2a-js/sdk';
import { approvePlan, approveTool, denyTool, raiseBudget, rejectPlan, type RoutedDecision } from '../client/decisions';
import { PerflowError } from '../client/errors';
import { GUIDANCE_MAX_CHARS, type PendingDecision } from '../core/decisions';
import { messageData, messageText } from './parts';

const answerShape = z.strictObject({
  decision: z.enum(['approve', 'reject', 'raise']),
  reason: z.string().trim().min(1).max(GUIDANCE_MAX_CHARS).optional(),
  steps: z.array(z.string().trim().min(1).max(GUIDANCE_MAX_CHARS)).min(1).max(100).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  usd: z.number().positive().finite().optional(),
});

/** An answer as the client gave it. */
export type Answer = z.infer<typeof answerShape>;

const EXPECTED = 'answer with the text "approve" or "reject [reason]", or a data part {"decision": "approve"|"reject"|"raise", "reason"?, "steps"?, "input"?, "usd"?}';

/** The answer a message gives. @throws PerflowError `invalid` naming what to send instead */
export function answerOf(m: Message | undefined): Answer {
  const data = messageData(m);
  if (data) {
    const parsed = answerShape.safeParse(data);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new PerflowError('invalid', `the answer's data part: ${issue.path.join('.') || 'value'}: ${issue.message} (${EXPECTED})`);
  }
  const text = messageText(m);
  const [word = '', ...rest] = text.split(/\s+/);
  const reason = rest.join(' ').trim().slice(0, GUIDANCE_MAX_CHARS);
  switch (word.toLowerCase().replace(/[.!:,]$/, '')) {
    case 'approve':
    case 'approved':
    case 'yes':
      return { decision: 'approve' };
    case 'reject':
    case 'deny':
    case 'no':
      return { decision: 'reject', ...(reason ? { reason } : {}) };
    default:
      throw new PerflowError('invalid', `the task waits for a decision: ${EXPECTED}`);
  }
}

/** Sends `answer` to the decision `pending` of run `workflowId`; the run's refusal is a `conflict`. */
export function sendAnswer(client: Client, workflowId: string, pending: PendingDecision, answer: Answer, by: string): Promise<RoutedDecision> {
  const reason = answer.reason ?? `rejected by ${by}`;
  const o = { by, decisionId: pending.id };
  const mismatch = () => new PerflowError('invalid', `the ${pending.kind} decision ${pending.id} takes ${pending.kind === 'budget' ? '"raise" (with "usd") or "reject"' : '"approve" or "reject"'}, not "${answer.decision}"`);
  if (pending.kind === 'tool') {
    if (answer.decision === 'approve') return approveTool(client, workflowId, { ...o, ...(answer.input ? { input: answer.input } : {}) });
    if (answer.decision === 'reject') return denyTool(client, workflowId, { ...o, reason });
    throw mismatch();
  }
  if (pending.kind === 'budget') {
    if (answer.decision === 'raise') {
      if (answer.usd === undefined) throw new PerflowError('invalid', 'a "raise" answer needs "usd": the new budget in US dollars');
      return raiseBudget(client, workflowId, { by, usd: answer.usd });
    }
    if (answer.decision === 'reject') return rejectPlan(client, workflowId, { ...o, reason, stop: true });
    throw mismatch();
  }
  // A plan, or a failed guardrail that asks a person: both are answered as a plan is.
  if (answer.decision === 'approve') return approvePlan(client, workflowId, { ...o, ...(answer.steps && pending.kind === 'plan' ? { steps: answer.steps } : {}) });
  if (answer.decision === 'reject') return rejectPlan(client, workflowId, { ...o, reason });
  throw mismatch();
}
