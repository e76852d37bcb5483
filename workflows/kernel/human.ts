/**
 * People in the loop, for every agent type: a proposed plan waits for approval
 * (`plan_approval`), a tool call that requires approval waits in its executor child (which
 * asks the run), guidance reaches the next planning call, and a pause holds the run between
 * steps. Every decision is a workflow Update, validated before it is accepted (an invalid one
 * changes nothing), and recorded in history, progress and memory.
 *
 * Nothing here adds a command unless a person (or `plan_approval`, or a tool's
 * `requires_approval`) asks for it, so runs recorded before replay unchanged.
 */
import { condition, getExternalWorkflowHandle, isCancellation, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { schemaProblem } from '../../core/schema-check';
import { preview } from '../../core/text';
import {
  guideUpdate,
  pauseUpdate,
  planDecisionUpdate,
  resumeUpdate,
  SearchAttributes,
  toolApprovalAnswerSignal,
  toolApprovalRequestSignal,
  toolDecisionUpdate,
  type DecisionRecord,
  type HumanState,
  type PendingDecision,
  type PlanDecision,
  type Progress,
  type ToolApprovalAnswer,
  type ToolApprovalRequest,
} from '../definitions';
import { memoryActivities } from './activity-presets';
import type { RunContext } from './context';

export type { HumanState };

/** How the run goes on after a plan review. */
export type PlanOutcome = { action: 'run'; steps: string[] } | { action: 'replan' } | { action: 'stop'; reason: string; by: string };

export interface HumanLoop {
  state: HumanState;
  /** Puts a proposed plan to review when `plan_approval` asks for it; waits for the answer. */
  reviewPlan(steps: string[]): Promise<PlanOutcome>;
  /** Holds the run while it is paused (called between steps). */
  holdWhilePaused(): Promise<void>;
  /** Guidance and rejection reasons not yet seen by a planning call, as a prompt section ('' when none); consumed. */
  takeFeedback(): string;
  /** Whether guidance is waiting for the next planning call. */
  hasFeedback(): boolean;
  /** Waits until every decision being recorded is recorded (before the run ends). */
  settle(): Promise<void>;
}

const NO_STATE: HumanState = { plans_reviewed: 0, plans_approved: 0, rejections: 0, feedback: [], paused: false };

/** The heading of the feedback section appended to a planning prompt (docs/people-in-the-loop.md). */
export const FEEDBACK_HEADING = 'USER FEEDBACK (from a person overseeing this run; take it into account):';

/** Sets up the decision handlers of a run; `carried` is the state of its previous execution. */
export function openHumanLoop(run: RunContext, carried?: HumanState): HumanLoop {
  const state: HumanState = { ...NO_STATE, ...carried, feedback: [...(carried?.feedback ?? [])] };
  const { progress, p } = run;
  const workflowId = workflowInfo().workflowId;
  const planAnswers = new Map<string, PlanDecision & { by: string }>();
  const toolAnswers = new Map<string, ToolApprovalAnswer>();
  const toolRequests = new Map<string, ToolApprovalRequest>();
  let holding = false;
  let recording = 0;
  const timeoutMs = p.approval_timeout !== undefined ? p.approval_timeout * 1_000 : undefined;
  const timeoutAction = p.approval_timeout_action ?? 'reject';

  const now = () => new Date(Date.now()).toISOString();
  const ended = () => progress.status === 'completed' || progress.status === 'failed';
  const pendingOf = (kind: PendingDecision['kind'], id?: string) => (progress.pending ?? []).find((d) => d.kind === kind && (id === undefined || d.id === id));

  /** Records a decision in progress and memory (the update's own event records it in history). */
  async function record(d: Omit<DecisionRecord, 'at' | 'after_steps'>): Promise<DecisionRecord> {
    const decision: DecisionRecord = { ...d, at: now(), after_steps: progress.steps_executed };
    progress.decisions = [...(progress.decisions ?? []), decision];
    run.showProgress();
    recording++;
    try {
      await memoryActivities.recordDecision({ ids: run.memoryIds, index: progress.decisions.length - 1, decision });
    } finally {
      recording--;
    }
    return decision;
  }

  /** The `PerflowPending` search attribute, when the client set perflow's attributes at start. */
  function syncPending(): void {
    const pending = progress.pending ?? [];
    const value = pending.some((d) => d.kind === 'plan') ? 'plan' : pending.length > 0 ? 'tool' : holding ? 'paused' : 'none';
    const attrs = workflowInfo().typedSearchAttributes;
    const current = attrs.get(SearchAttributes.pending);
    if (current === undefined || current === value) return;
    upsertSearchAttributes([{ key: SearchAttributes.pending, value }]);
  }

  let statusBefore: Progress['status'] = progress.status;
  function addPending(d: PendingDecision): void {
    if ((progress.pending ?? []).length === 0) statusBefore = progress.status;
    progress.pending = [...(progress.pending ?? []), d];
    progress.status = 'awaiting_approval';
    syncPending();
    run.showProgress();
  }
  function removePending(id: string): void {
    const rest = (progress.pending ?? []).filter((d) => d.id !== id);
    progress.pending = rest.length > 0 ? rest : undefined;
    if (rest.length === 0 && progress.status === 'awaiting_approval') progress.status = statusBefore;
    syncPending();
    run.showProgress();
  }
  const timeoutOf = () => (timeoutMs !== undefined ? { timeout: { at: new Date(Date.now() + timeoutMs).toISOString(), action: timeoutAction } } : {});

  // -- plans ---------------------------------------------------------------------------------

  setHandler(
    planDecisionUpdate,
    async (d) => {
      const pending = pendingOf('plan', d.decision_id)!;
      const by = byOf(d.by);
      planAnswers.set(pending.id, { ...d, by });
      const action = d.action === 'approve' ? (d.steps ? 'edit' : 'approve') : d.stop ? 'stop' : 'reject';
      const detail = d.action === 'approve' ? (d.steps ? numbered(d.steps) : undefined) : d.reason;
      return record({ decision_id: pending.id, kind: 'plan', action, by, ...(detail !== undefined ? { detail } : {}) });
    },
    {
      validator: (d) => {
        notEnded();
        expectObject(d, 'a plan decision');
        if (d.action !== 'approve' && d.action !== 'reject') throw new Error(`action must be approve or reject, got ${JSON.stringify(d.action)}`);
        if (!pendingOf('plan', d.decision_id)) throw new Error(`no plan is awaiting approval${d.decision_id ? ` as ${d.decision_id}` : ''} (status: ${progress.status})`);
        checkBy(d.by);
        if (d.action === 'approve' && d.steps !== undefined) {
          if (!Array.isArray(d.steps) || d.steps.length === 0) throw new Error('an edited plan needs at least one step');
          if (d.steps.some((s: unknown) => typeof s !== 'string' || s.trim() === '')) throw new Error('every step of an edited plan must be a non-empty string');
        }
        if (d.action === 'reject' && (typeof d.reason !== 'string' || d.reason.trim() === '')) throw new Error('a rejection needs a reason (--reason TEXT)');
      },
    },
  );

  async function reviewPlan(steps: string[]): Promise<PlanOutcome> {
    const mode = p.plan_approval ?? 'none';
    if (mode === 'none' || (mode === 'first' && state.plans_approved > 0)) return { action: 'run', steps };
    const id = `plan-${++state.plans_reviewed}`;
    addPending({
      id,
      kind: 'plan',
      since: now(),
      plan: steps,
      ...timeoutOf(),
      answer: [`perflow approve ${workflowId}`, `perflow approve ${workflowId} --step TEXT [--step TEXT]…`, `perflow reject ${workflowId} --reason TEXT [--stop]`],
    });
    const answered = await waitFor(() => planAnswers.has(id), timeoutMs);
    if (!answered) {
      const reason = `nobody answered within ${p.approval_timeout} s`;
      const d: PlanDecision & { by: string } = timeoutAction === 'approve' ? { action: 'approve', by: TIMEOUT_BY } : { action: 'reject', reason, by: TIMEOUT_BY };
      planAnswers.set(id, d);
      await record({ decision_id: id, kind: 'plan', action: d.action, by: TIMEOUT_BY, ...(d.reason ? { detail: reason } : {}) });
    }
    const d = planAnswers.get(id)!;
    removePending(id);
    if (d.action === 'approve') {
      state.plans_approved++;
      state.rejections = 0;
      return { action: 'run', steps: d.steps ?? steps };
    }
    const reason = d.reason ?? '';
    if (d.stop || state.rejections >= p.max_plan_rejections) return { action: 'stop', reason, by: d.by };
    state.rejections++;
    state.feedback.push(`The proposed plan was rejected by ${d.by}:\n${numbered(steps)}\nReason: ${reason}\nPropose a plan that addresses this.`);
    return { action: 'replan' };
  }

  // -- tool calls (asked by executor children) ----------------------------------------------

  setHandler(toolApprovalRequestSignal, async (req) => {
    if (toolRequests.has(req.decision_id)) return; // asked again (a replayed child): already pending or answered
    toolRequests.set(req.decision_id, req);
    try {
      await answerToolRequest(req);
    } catch (err) {
      // The run is being cancelled (its children with it): nobody is waiting for the answer.
      if (!isCancellation(err)) throw err;
    }
  });

  async function answerToolRequest(req: ToolApprovalRequest): Promise<void> {
    addPending({
      id: req.decision_id,
      kind: 'tool',
      since: now(),
      step: { index: req.step_index, text: preview(req.step, 300), executor_workflow_id: req.executor_workflow_id },
      tool: req.tool,
      input: req.input,
      ...timeoutOf(),
      answer: [`perflow approve-tool ${workflowId} [--input JSON]`, `perflow deny-tool ${workflowId} --reason TEXT`],
    });
    const answered = await waitFor(() => toolAnswers.has(req.decision_id), timeoutMs);
    if (!answered) {
      const reason = `nobody answered within ${p.approval_timeout} s`;
      const action = timeoutAction === 'approve' ? 'approve' : 'deny';
      toolAnswers.set(req.decision_id, { decision_id: req.decision_id, action, by: TIMEOUT_BY, ...(action === 'deny' ? { reason } : {}) });
      await record({ decision_id: req.decision_id, kind: 'tool', action, by: TIMEOUT_BY, ...(action === 'deny' ? { detail: reason } : {}) });
    }
    removePending(req.decision_id);
    await getExternalWorkflowHandle(req.executor_workflow_id).signal(toolApprovalAnswerSignal, toolAnswers.get(req.decision_id)!);
  }

  setHandler(
    toolDecisionUpdate,
    async (d) => {
      const pending = pendingOf('tool', d.decision_id)!;
      const by = byOf(d.by);
      toolAnswers.set(pending.id, { decision_id: pending.id, action: d.action, by, ...(d.input ? { input: d.input } : {}), ...(d.reason ? { reason: d.reason } : {}) });
      const action = d.action === 'approve' ? (d.input ? 'edit' : 'approve') : 'deny';
      const detail = d.action === 'approve' ? (d.input ? JSON.stringify(d.input) : undefined) : d.reason;
      return record({ decision_id: pending.id, kind: 'tool', action, by, ...(detail !== undefined ? { detail: `${pending.tool}: ${detail}` } : { detail: pending.tool }) });
    },
    {
      validator: (d) => {
        notEnded();
        expectObject(d, 'a tool decision');
        if (d.action !== 'approve' && d.action !== 'deny') throw new Error(`action must be approve or deny, got ${JSON.stringify(d.action)}`);
        const pending = pendingOf('tool', d.decision_id);
        if (!pending) throw new Error(`no tool call is awaiting approval${d.decision_id ? ` as ${d.decision_id}` : ''} (status: ${progress.status})`);
        checkBy(d.by);
        if (d.action === 'deny' && (typeof d.reason !== 'string' || d.reason.trim() === '')) throw new Error('a denial needs a reason (--reason TEXT)');
        if (d.action === 'approve' && d.input !== undefined) {
          if (typeof d.input !== 'object' || d.input === null || Array.isArray(d.input)) throw new Error('the edited input must be a JSON object');
          const spec = run.tools.find((t) => t.spec.name === pending.tool)?.spec;
          const problem = schemaProblem(spec?.input_schema, d.input);
          if (problem) throw new Error(`the edited input does not fit ${pending.tool}'s input schema: ${problem}`);
        }
      },
    },
  );

  // -- guidance, pause and resume -------------------------------------------------------------

  setHandler(
    guideUpdate,
    async (g) => {
      const by = byOf(g.by);
      state.feedback.push(`Guidance from ${by}: ${g.text.trim()}`);
      return record({ kind: 'guidance', action: 'guide', by, detail: g.text.trim() });
    },
    {
      validator: (g) => {
        notEnded();
        expectObject(g, 'guidance');
        if (typeof g.text !== 'string' || g.text.trim() === '') throw new Error('guidance needs a text');
        checkBy(g.by);
      },
    },
  );

  // Pause and resume: the same switch, each way refused when it changes nothing.
  for (const [update, pause] of [
    [pauseUpdate, true],
    [resumeUpdate, false],
  ] as const) {
    const kind = pause ? 'pause' : 'resume';
    setHandler(
      update,
      async (x) => {
        state.paused = pause;
        progress.paused = pause ? true : undefined;
        return record({ kind, action: kind, by: byOf(x.by), ...(x.reason ? { detail: x.reason } : {}) });
      },
      {
        validator: (x) => {
          notEnded();
          if (state.paused === pause) throw new Error(pause ? 'the run is already paused' : 'the run is not paused');
          checkBy(x?.by);
        },
      },
    );
  }

  function notEnded(): void {
    if (ended()) throw new Error(`the run has ended (${progress.status})`);
  }

  if (state.paused) progress.paused = true;

  return {
    state,
    reviewPlan,
    async holdWhilePaused() {
      if (!state.paused) return;
      const before = progress.status;
      holding = true;
      progress.status = 'paused';
      syncPending();
      run.showProgress();
      await condition(() => !state.paused);
      holding = false;
      progress.status = before;
      syncPending();
      run.showProgress();
    },
    takeFeedback() {
      if (state.feedback.length === 0) return '';
      const section = `\n\n${FEEDBACK_HEADING}\n${state.feedback.map((f) => `- ${f}`).join('\n')}`;
      state.feedback.length = 0;
      return section;
    },
    hasFeedback: () => state.feedback.length > 0,
    settle: () => condition(() => recording === 0),
  };
}

/** Waits until `done`, or `timeoutMs` when given; whether `done` came first. */
async function waitFor(done: () => boolean, timeoutMs: number | undefined): Promise<boolean> {
  if (timeoutMs === undefined) {
    await condition(done);
    return true;
  }
  return condition(done, timeoutMs);
}

/** Who decided when `approval_timeout` did. */
export const TIMEOUT_BY = 'approval_timeout';

function byOf(by: string | undefined): string {
  return by !== undefined && by.trim() !== '' ? by.trim() : 'unknown';
}

function checkBy(by: unknown): void {
  if (by !== undefined && (typeof by !== 'string' || by.length > 200)) throw new Error('--by must be a name of at most 200 characters');
}

function expectObject(v: unknown, what: string): void {
  if (typeof v !== 'object' || v === null) throw new Error(`expected ${what} as an object`);
}

function numbered(steps: readonly string[]): string {
  return steps.map((s, i) => `${i + 1}. ${s}`).join('\n');
}

/** A tool call's approval, asked by the executor child of `stepIndex` from its run; resolves with the run's answer. */
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
