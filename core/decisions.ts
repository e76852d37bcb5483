/**
 * People's decisions in a run, as workflows, activities and clients exchange them: what a run
 * waits for, how a person answers, and how a decision is recorded. Pure types.
 *
 * @module
 */
import { formatCost } from './text';

/** Which plans a person reviews before they run (parameter `plan_approval`). */
export type PlanApproval = 'none' | 'first' | 'every';

/** A decision a run waits for. */
export interface PendingDecision {
  /** `plan-<n>` (the n-th plan reviewed), `tool-<step>-<call>`, `budget-<n>` or `guardrail-<n>`; updates may name it. */
  id: string;
  kind: 'plan' | 'tool' | 'budget' | 'guardrail';
  /** Workflow time the wait began (ISO 8601). */
  since: string;
  /** kind plan: the proposed steps. */
  plan?: string[];
  /** kind tool: the step, the tool and the input the model asked for. */
  step?: { index: number; text: string; executor_workflow_id: string };
  tool?: string;
  input?: Record<string, unknown>;
  /** kind tool: the remote agent (the tool) asks this; the answer is `approve-tool --input '{"message": …}'`. */
  question?: string;
  /**
   * kind budget: the run's dollar cap (`max_cost_usd`, or the last raised one) and its cost so
   * far; with reason `tenant`, the tenant's daily cap and its spend of the UTC day `day`.
   */
  budget?: { max_cost_usd: number; cost_usd: number; reason?: 'tenant'; tenant?: string; day?: string };
  /** kind guardrail: the guardrail with `on_fail: "ask"` that failed, where, and why (a tool's output is withheld whatever is decided). */
  guardrail?: { place: 'input' | 'output' | 'tool_output'; check: string; detail: string };
  /** With `approval_timeout`: when the timeout action is taken (ISO 8601), and which. */
  timeout?: { at: string; action: 'approve' | 'reject' };
  /** The commands that answer it. */
  answer: string[];
}

/** What a run's human loop carries across continue-as-new. */
/** The longest guidance a run takes (characters); the console's body limit is the same. */
export const GUIDANCE_MAX_CHARS = 10_000;
/** The most guidance (and rejection reasons) a run holds for its next planning call: more waits until it plans. */
export const PENDING_FEEDBACK_MAX = 20;

export interface HumanState {
  /** Plans put to review so far (the `plan-<n>` IDs). */
  plans_reviewed: number;
  plans_approved: number;
  /** Rejections of the plan under review since the last approval. */
  rejections: number;
  /** Guidance and rejection reasons the next planning call has not seen yet. */
  feedback: string[];
  paused: boolean;
  /** The dollar cap a person raised the run's `max_cost_usd` to (absent: not raised). */
  max_cost_usd?: number;
  /** Guardrail decisions asked for so far (the `guardrail-<n>` IDs; absent: none). */
  guardrail_asks?: number;
  /** Budget waits so far (the `budget-<n>` IDs; absent: none). */
  budget_waits?: number;
  /** A person ended a wait at the tenant's daily cap (`reject --stop`): the run ends at its next model call. */
  tenant_stop?: { by: string; reason: string; tenant: string; cap_usd: number; spent_usd: number };
}

/** A decision a person (or a timeout) took, as progress and memory record it. */
export interface DecisionRecord {
  /** The pending decision it answered (absent for guidance, pause and resume). */
  decision_id?: string;
  kind: 'plan' | 'tool' | 'guidance' | 'pause' | 'resume' | 'budget' | 'guardrail';
  action: 'approve' | 'edit' | 'reject' | 'stop' | 'deny' | 'guide' | 'pause' | 'resume' | 'raise';
  /** Who decided (free text; `approval_timeout` when the timeout decided). */
  by: string;
  /** Workflow time of the decision (ISO 8601). */
  at: string;
  /** The reason, the edited steps or input, the guidance, or (a raised budget) the new cap as `$N`. */
  detail?: string;
  /** How many steps the run had executed when the decision was taken. */
  after_steps: number;
  /** A decision on a wait at the tenant's daily cap: the tenant. */
  tenant?: string;
}

/** How a person answers a proposed plan. */
export interface PlanDecision {
  action: 'approve' | 'reject';
  /** approve: the steps to run instead of the proposed ones (an edit). */
  steps?: string[];
  /** reject: why; the planner is asked again with it. */
  reason?: string;
  /** reject: end the run with the reason instead of asking the planner again. */
  stop?: boolean;
  by?: string;
  /** The pending decision answered (default: the run's pending plan). */
  decision_id?: string;
}

/** How a person answers a tool call that requires approval. */
export interface ToolDecision {
  action: 'approve' | 'deny';
  /** approve: the input to run the tool with instead of the model's (validated against the tool's input schema). */
  input?: Record<string, unknown>;
  /** deny: why; the model gets it as the call's observation. */
  reason?: string;
  by?: string;
  /** The pending decision answered (default: the oldest pending tool call). */
  decision_id?: string;
}

/** How a person lets a run waiting at its dollar budget go on: a new cap above its cost so far. */
export interface BudgetRaise {
  /** The new `max_cost_usd`, in US dollars. */
  usd: number;
  by?: string;
}

export interface GuidanceInput {
  text: string;
  by?: string;
}

export interface PauseInput {
  by?: string;
  reason?: string;
}

/** An executor child asks its run for a tool call's approval (child → run). */
export interface ToolApprovalRequest {
  decision_id: string;
  step_index: number;
  step: string;
  tool: string;
  input: Record<string, unknown>;
  executor_workflow_id: string;
  /** A remote agent's question (A2A INPUT_REQUIRED) a person answers, instead of approving a call. */
  question?: string;
}
/** The run's answer to an executor child (run → child). */
export interface ToolApprovalAnswer {
  decision_id: string;
  action: 'approve' | 'deny';
  input?: Record<string, unknown>;
  reason?: string;
  by: string;
}

/** An executor child asks its run to wait at the tenant's daily cap (child → run). */
export interface TenantWaitRequest {
  request_id: string;
  executor_workflow_id: string;
  reached: TenantBudgetReached;
}
/** How the run's wait at the tenant's cap ended, for the child that asked (run → child). */
export interface TenantWaitAnswer {
  request_id: string;
  action: 'resume' | 'stop';
  by: string;
  reason?: string;
}

/** `perflow budget set` tells a tenant's waiting runs of its new daily cap. */
export interface TenantCapNotice {
  tenant: string;
  usd_per_day: number;
  by: string;
}

/**
 * What a pending decision waits for, as `progress` markdown and the CLI's pending lines say it:
 * `what` ("awaiting approval of the plan", …) and, for a budget, the money (`detail`).
 */
export function pendingWhat(d: PendingDecision): { what: string; detail?: string } {
  if (d.kind === 'plan') return { what: 'awaiting approval of the plan' };
  if (d.kind === 'guardrail') return { what: `awaiting a decision on the ${d.guardrail?.place} guardrail ${d.guardrail?.check}`, detail: d.guardrail?.detail };
  if (d.budget?.reason === 'tenant') {
    return { what: `awaiting the tenant ${d.budget.tenant}'s daily budget`, detail: `${formatCost(d.budget.cost_usd)} of ${formatCost(d.budget.max_cost_usd)} spent today (UTC day ${d.budget.day})` };
  }
  if (d.kind === 'budget') return { what: 'awaiting a budget decision', detail: `the cost so far ${formatCost(d.budget?.cost_usd)} reached max_cost_usd ${formatCost(d.budget?.max_cost_usd)}` };
  if (d.question !== undefined) return { what: "awaiting an answer to a remote agent's question", detail: d.question };
  return { what: 'awaiting approval of a tool call' };
}

/** A model call not made: the tenant's spend of the UTC day reached its cap (`perflow budget set`). */
export interface TenantBudgetReached {
  tenant: string;
  /** The UTC day (YYYY-MM-DD). */
  day: string;
  cap_usd: number;
  spent_usd: number;
}
