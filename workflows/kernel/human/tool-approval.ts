/**
 * Tool approval (`requires_approval`): an executor child asks its run to approve a tool call
 * (a signal); the run shows it as pending until a person approves it (optionally with an
 * edited input, checked against the tool's schema) or denies it with a reason, or
 * `approval_timeout` decides; the answer goes back to the child (a signal). A remote agent's
 * question (A2A INPUT_REQUIRED) is asked the same way: the approved input is the answer.
 */
import { condition, getExternalWorkflowHandle, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { schemaProblem } from '../../../core/schema-check';
import { preview } from '../../../core/text';
import { toolApprovalAnswerSignal, toolApprovalRequestSignal, toolDecisionUpdate, type ToolApprovalAnswer, type ToolApprovalRequest } from '../definitions';
import { byOf, checkBy, expectObject, TIMEOUT_BY, waitFor, type Decisions } from './pending';

/** Sets up the run's side: the children's requests and the tool decision Update. */
export function openToolApproval(desk: Decisions): void {
  const { run } = desk;
  const { p, progress } = run;
  const answers = new Map<string, ToolApprovalAnswer>();
  const requests = new Map<string, ToolApprovalRequest>();

  setHandler(toolApprovalRequestSignal, async (req) => {
    if (requests.has(req.decision_id)) return; // asked again (a replayed child): already pending or answered
    requests.set(req.decision_id, req);
    try {
      await answer(req);
    } catch (err) {
      // The run is being cancelled (its children with it): nobody is waiting for the answer.
      if (!isCancellation(err)) throw err;
    }
  });

  async function answer(req: ToolApprovalRequest): Promise<void> {
    const workflowId = desk.workflowId;
    desk.addPending({
      id: req.decision_id,
      kind: 'tool',
      since: desk.now(),
      step: { index: req.step_index, text: preview(req.step, 300), executor_workflow_id: req.executor_workflow_id },
      tool: req.tool,
      input: req.input,
      ...(req.question !== undefined ? { question: req.question } : {}),
      ...desk.timeoutOf(),
      answer: req.question !== undefined ? [`perflow approve-tool ${workflowId} --input '{"message": "YOUR ANSWER"}'`, `perflow deny-tool ${workflowId} --reason TEXT`] : [`perflow approve-tool ${workflowId} [--input JSON]`, `perflow deny-tool ${workflowId} --reason TEXT`],
    });
    const answered = await waitFor(() => answers.has(req.decision_id), desk.timeoutMs);
    if (!answered) {
      const reason = `nobody answered within ${p.approval_timeout} s`;
      // Nobody's answer to a remote agent's question cannot be approved: it is declined.
      const action = desk.timeoutAction === 'approve' && req.question === undefined ? 'approve' : 'deny';
      answers.set(req.decision_id, { decision_id: req.decision_id, action, by: TIMEOUT_BY, ...(action === 'deny' ? { reason } : {}) });
      await desk.record({ decision_id: req.decision_id, kind: 'tool', action, by: TIMEOUT_BY, ...(action === 'deny' ? { detail: reason } : {}) });
    }
    desk.removePending(req.decision_id);
    await getExternalWorkflowHandle(req.executor_workflow_id).signal(toolApprovalAnswerSignal, answers.get(req.decision_id)!);
  }

  setHandler(
    toolDecisionUpdate,
    async (d) => {
      const pending = desk.pendingOf('tool', d.decision_id)!;
      const by = byOf(d.by);
      answers.set(pending.id, { decision_id: pending.id, action: d.action, by, ...(d.input ? { input: d.input } : {}), ...(d.reason ? { reason: d.reason } : {}) });
      const action = d.action === 'approve' ? (d.input ? 'edit' : 'approve') : 'deny';
      const detail = d.action === 'approve' ? (d.input ? JSON.stringify(d.input) : undefined) : d.reason;
      return desk.record({ decision_id: pending.id, kind: 'tool', action, by, ...(detail !== undefined ? { detail: `${pending.tool}: ${detail}` } : { detail: pending.tool }) });
    },
    {
      validator: (d) => {
        desk.notEnded();
        expectObject(d, 'a tool decision');
        if (d.action !== 'approve' && d.action !== 'deny') throw new Error(`action must be approve or deny, got ${JSON.stringify(d.action)}`);
        const pending = desk.pendingOf('tool', d.decision_id);
        if (!pending) throw new Error(`no tool call is awaiting approval${d.decision_id ? ` as ${d.decision_id}` : ''} (status: ${progress.status})`);
        checkBy(d.by);
        if (d.action === 'deny' && (typeof d.reason !== 'string' || d.reason.trim() === '')) throw new Error('a denial needs a reason (--reason TEXT)');
        if (d.action === 'approve' && pending.question !== undefined && d.input === undefined) throw new Error(`${pending.tool} asks a question: answer it with --input '{"message": "YOUR ANSWER"}' (or deny-tool --reason TEXT)`);
        if (d.action === 'approve' && d.input !== undefined) {
          if (typeof d.input !== 'object' || d.input === null || Array.isArray(d.input)) throw new Error('the edited input must be a JSON object');
          const spec = run.tools.find((t) => t.spec.name === pending.tool)?.spec;
          const problem = schemaProblem(spec?.input_schema, d.input);
          if (problem) throw new Error(`the edited input does not fit ${pending.tool}'s input schema: ${problem}`);
        }
      },
    },
  );
}

/** A tool call's approval, asked by an executor child from its run; resolves with the run's answer. */
export async function askToolApproval(
  answers: Map<string, ToolApprovalAnswer>,
  req: Omit<ToolApprovalRequest, 'executor_workflow_id'>,
): Promise<ToolApprovalAnswer> {
  const info = workflowInfo();
  if (!info.parent) return { decision_id: req.decision_id, action: 'deny', reason: 'the tool requires approval, and this executor has no run to ask', by: 'perflow' };
  await getExternalWorkflowHandle(info.parent.workflowId).signal(toolApprovalRequestSignal, { ...req, executor_workflow_id: info.workflowId });
  await condition(() => answers.has(req.decision_id));
  return answers.get(req.decision_id)!;
}

/** The answers an executor child receives from its run, by decision ID. */
export function toolApprovalAnswers(): Map<string, ToolApprovalAnswer> {
  const answers = new Map<string, ToolApprovalAnswer>();
  setHandler(toolApprovalAnswerSignal, (a) => {
    answers.set(a.decision_id, a);
  });
  return answers;
}
