/**
 * A guardrail with `on_fail: "ask"` that failed: the run waits with a `guardrail` decision
 * naming the check and why, until a person lets it through (`perflow approve`) or stops it
 * (`perflow reject --reason TEXT`: the run ends `tripped`), or `approval_timeout` decides. Both
 * answers arrive by the plan decision Update (plan-review.ts routes them here when no plan is
 * pending), so the inbox's usual commands answer it.
 */
import type { GuardrailVerdict } from '../../../core/guardrail-verdict';
import type { DecisionRecord, PlanDecision } from '../definitions';
import { byOf, checkBy, TIMEOUT_BY, waitFor, type Decisions } from './pending';

/** How a person answered a failed `ask` guardrail. */
export interface GuardrailAnswer {
  action: 'approve' | 'reject';
  by: string;
  reason?: string;
}

export interface GuardrailDesk {
  /** Waits for a person's answer on the failed guardrail. */
  ask(verdict: GuardrailVerdict): Promise<GuardrailAnswer>;
  /** Whether a guardrail decision is pending (`decisionId`: under that ID, when given). */
  pending(decisionId?: string): boolean;
  /** Checks an approve or reject meant for the pending guardrail decision. @throws Error (the Update is rejected) */
  validate(d: PlanDecision): void;
  /** Records it and lets the waiting run go on. */
  answer(d: PlanDecision): Promise<DecisionRecord>;
}

export function openGuardrailAsk(desk: Decisions): GuardrailDesk {
  const { state, run } = desk;
  const answers = new Map<string, GuardrailAnswer>();
  const pendingId = (decisionId?: string) => desk.pendingOf('guardrail', decisionId)?.id;

  return {
    pending: (decisionId) => pendingId(decisionId) !== undefined,
    validate(d) {
      if (d.action === 'reject' && (typeof d.reason !== 'string' || d.reason.trim() === '')) throw new Error('a rejection needs a reason (--reason TEXT)');
      if (d.action === 'approve' && d.steps !== undefined) throw new Error('the run waits for a guardrail decision, not a plan: approve it without steps, or reject it with --reason TEXT');
      checkBy(d.by);
    },
    answer(d) {
      const id = pendingId(d.decision_id)!;
      const by = byOf(d.by);
      const reason = d.reason?.trim();
      answers.set(id, { action: d.action, by, ...(reason ? { reason } : {}) });
      const check = desk.pendingOf('guardrail', id)?.guardrail?.check ?? '';
      return desk.record({ decision_id: id, kind: 'guardrail', action: d.action, by, detail: reason ? `${check}: ${reason}` : check });
    },
    async ask(verdict) {
      state.guardrail_asks = (state.guardrail_asks ?? 0) + 1;
      const id = `guardrail-${state.guardrail_asks}`;
      const workflowId = desk.workflowId;
      desk.addPending({
        id,
        kind: 'guardrail',
        since: desk.now(),
        guardrail: { place: verdict.place, check: verdict.check, detail: verdict.detail },
        ...desk.timeoutOf(),
        answer: [`perflow approve ${workflowId}`, `perflow reject ${workflowId} --reason TEXT`],
      });
      const answered = await waitFor(() => answers.has(id), desk.timeoutMs);
      if (!answered) {
        const reason = `nobody answered within ${run.p.approval_timeout} s`;
        const action = desk.timeoutAction;
        answers.set(id, { action, by: TIMEOUT_BY, ...(action === 'reject' ? { reason } : {}) });
        await desk.record({ decision_id: id, kind: 'guardrail', action, by: TIMEOUT_BY, detail: action === 'reject' ? `${verdict.check}: ${reason}` : verdict.check });
      }
      desk.removePending(id);
      return answers.get(id)!;
    },
  };
}
