/**
 * The shared core of people's decisions: what is pending (in `progress`, and the
 * `PerflowPending` search attribute), how a decision is recorded (progress and memory; the
 * Update's own event records it in history), the approval timeout, and the checks every
 * decision's validator makes.
 */
import { condition, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SearchAttributes, type DecisionRecord, type HumanState, type PendingDecision, type Progress } from '../definitions';
import { memoryActivities } from '../activity-presets';
import type { AgentTool } from '../../../core/activity-contract';
import type { ResolvedParameters } from '../../../core/agent';
import type { MemoryIds } from '../../../core/memory-ids';
import type { RunEvents } from '../events';

/** Who decided when `approval_timeout` did. */
export const TIMEOUT_BY = 'approval_timeout';

/** What people's decisions use of a run: the kernel's RunContext (kernel/context.ts), which opens the human loop. */
export interface HumanRun {
  p: ResolvedParameters;
  progress: Progress;
  tools: AgentTool[];
  memoryIds: MemoryIds;
  events: RunEvents;
  showProgress(): void;
}

export interface Decisions {
  run: HumanRun;
  state: HumanState;
  workflowId: string;
  /** `approval_timeout` in milliseconds (absent: wait for a person). */
  timeoutMs?: number;
  timeoutAction: 'approve' | 'reject';
  now(): string;
  /** Records a decision in progress and memory. */
  record(d: Omit<DecisionRecord, 'at' | 'after_steps'>): Promise<DecisionRecord>;
  pendingOf(kind: PendingDecision['kind'], id?: string): PendingDecision | undefined;
  addPending(d: PendingDecision): void;
  removePending(id: string): void;
  /** The pending decision's timeout, when `approval_timeout` is set. */
  timeoutOf(): Pick<PendingDecision, 'timeout'>;
  /** The run holds between steps (paused): shown by `PerflowPending` when nothing else is pending. */
  setHolding(holding: boolean): void;
  /** Throws (rejecting the Update) when the run has ended. */
  notEnded(): void;
  /** Waits until every decision being recorded is recorded. */
  settle(): Promise<void>;
}

export function openDecisions(run: HumanRun, state: HumanState): Decisions {
  const { progress, p } = run;
  const timeoutMs = p.approval_timeout !== undefined ? p.approval_timeout * 1_000 : undefined;
  const timeoutAction = p.approval_timeout_action ?? 'reject';
  let holding = false;
  let recording = 0;
  let statusBefore: Progress['status'] = progress.status;
  const now = () => new Date(Date.now()).toISOString();

  /** The `PerflowPending` search attribute, when the client set perflow's attributes at start. */
  function syncPending(): void {
    const pending = progress.pending ?? [];
    const value = pending.some((d) => d.kind === 'plan')
      ? 'plan'
      : pending.some((d) => d.kind === 'budget')
        ? 'budget'
        : pending.some((d) => d.kind === 'guardrail')
          ? 'guardrail'
          : pending.length > 0
            ? 'tool'
            : holding
              ? 'paused'
              : 'none';
    const current = workflowInfo().typedSearchAttributes.get(SearchAttributes.pending);
    if (current === undefined || current === value) return;
    upsertSearchAttributes([{ key: SearchAttributes.pending, value }]);
  }

  return {
    run,
    state,
    workflowId: workflowInfo().workflowId,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    timeoutAction,
    now,
    async record(d) {
      const decision: DecisionRecord = { ...d, at: now(), after_steps: progress.steps_executed };
      progress.decisions = [...(progress.decisions ?? []), decision];
      run.showProgress();
      run.events.emit({ type: 'decision', id: d.decision_id ?? `decision-${progress.decisions.length}`, kind: d.kind, action: d.action, by: d.by });
      recording++;
      try {
        await memoryActivities.recordDecision({ ids: run.memoryIds, index: progress.decisions.length - 1, decision });
      } finally {
        recording--;
      }
      return decision;
    },
    pendingOf: (kind, id) => (progress.pending ?? []).find((d) => d.kind === kind && (id === undefined || d.id === id)),
    addPending(d) {
      if ((progress.pending ?? []).length === 0) statusBefore = progress.status;
      progress.pending = [...(progress.pending ?? []), d];
      progress.status = progress.status === 'awaiting_budget' || d.kind === 'budget' ? 'awaiting_budget' : 'awaiting_approval';
      run.events.emit({ type: 'decision_pending', ...d });
      syncPending();
      run.showProgress();
    },
    removePending(id) {
      const rest = (progress.pending ?? []).filter((d) => d.id !== id);
      progress.pending = rest.length > 0 ? rest : undefined;
      if (rest.length === 0 && (progress.status === 'awaiting_approval' || progress.status === 'awaiting_budget')) progress.status = statusBefore;
      else if (rest.length > 0 && progress.status === 'awaiting_budget' && !rest.some((d) => d.kind === 'budget')) progress.status = 'awaiting_approval';
      syncPending();
      run.showProgress();
    },
    timeoutOf: () => (timeoutMs !== undefined ? { timeout: { at: new Date(Date.now() + timeoutMs).toISOString(), action: timeoutAction } } : {}),
    setHolding(h) {
      holding = h;
      syncPending();
    },
    notEnded() {
      if (progress.status === 'completed' || progress.status === 'failed') throw new Error(`the run has ended (${progress.status})`);
    },
    settle: () => condition(() => recording === 0),
  };
}

/** Waits until `done`, or `timeoutMs` when given; whether `done` came first. */
export async function waitFor(done: () => boolean, timeoutMs: number | undefined): Promise<boolean> {
  if (timeoutMs === undefined) {
    await condition(done);
    return true;
  }
  return condition(done, timeoutMs);
}

/** The name a decision is recorded under ('unknown' when none was given). */
export function byOf(by: string | undefined): string {
  return by !== undefined && by.trim() !== '' ? by.trim() : 'unknown';
}

export function checkBy(by: unknown): void {
  if (by !== undefined && (typeof by !== 'string' || by.length > 200)) throw new Error('--by must be a name of at most 200 characters');
}

export function expectObject(v: unknown, what: string): void {
  if (typeof v !== 'object' || v === null) throw new Error(`expected ${what} as an object`);
}

export function numbered(steps: readonly string[]): string {
  return steps.map((s, i) => `${i + 1}. ${s}`).join('\n');
}
