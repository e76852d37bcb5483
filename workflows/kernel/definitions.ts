/**
 * What workflows and clients share: the run's input and output, the `progress` query, search
 * attributes, failure types and workflow type names. In the kernel, which implements most of it;
 * clients import it as `workflows/definitions`, the only workflow module they import.
 * Over 300 lines on purpose: it is the contract between workers and clients (every type, query,
 * update, signal and name that crosses), kept whole so a change to it is seen as one.
 */
import { defineSearchAttributeKey, SearchAttributeType, type QueryDefinition, type SignalDefinition, type UpdateDefinition } from '@temporalio/common';
import type { AgentTool, CompletedStepView, ForkPoint } from '../../core/activity-contract';
import type { PlanStepView, Replan } from '../../core/agent-types/plan-and-execute';
import type { RunIds } from '../../core/memory-ids';
import type { AgentDefinition, AgentType, ResolvedParameters } from '../../core/agent';
import { AGENT_TYPE_SPECS, type WorkflowTypes } from '../../core/agent-file/agent-types';
import type { Usage } from '../../core/llm-types';
import type { WebhookTarget } from '../../core/webhooks';
import type { CaseResult } from '../../core/eval/types';
import type { GuardrailVerdict } from '../../core/guardrails';
import { causeChain, formatCost, formatTokens, preview, RESULT_PREVIEW_CHARS } from '../../core/text';
import type { PromptFormat } from '../../core/template';
import { pendingWhat, type BudgetRaise, type DecisionRecord, type GuidanceInput, type HumanState, type PauseInput, type PendingDecision, type PlanDecision, type TenantCapNotice, type TenantWaitAnswer, type TenantWaitRequest, type ToolApprovalAnswer, type ToolApprovalRequest, type ToolDecision } from '../../core/decisions';

/*
 * The handlers' definitions, built as @temporalio/workflow's defineQuery, defineSignal and
 * defineUpdate build them (a type and a name), so that the client library, which shares this
 * module, does not load the workflow package (~0.15 s of every CLI command's start).
 */
const defineQuery = <Ret, Args extends unknown[] = []>(name: string) => ({ type: 'query', name }) as QueryDefinition<Ret, Args>;
const defineSignal = <Args extends unknown[] = []>(name: string) => ({ type: 'signal', name }) as SignalDefinition<Args>;
const defineUpdate = <Ret, Args extends unknown[] = []>(name: string) => ({ type: 'update', name }) as UpdateDefinition<Ret, Args>;

export type { BudgetRaise, DecisionRecord, GuidanceInput, HumanState, PauseInput, PendingDecision, PlanApproval, PlanDecision, TenantCapNotice, TenantWaitAnswer, TenantWaitRequest, ToolApprovalAnswer, ToolApprovalRequest, ToolDecision } from '../../core/decisions';

export { preview, RESULT_PREVIEW_CHARS };

export type { RunIds };
export type { CompletedStepView, ForkPoint, PlanStepView, Replan };

/** The seed's output fields, plus token usage. */
export interface RunOutput extends RunIds {
  response: string;
  usage: Usage;
  steps_executed: number;
  /** With `output_schema`: the answer as its JSON value (`response` is its JSON text). */
  output?: unknown;
  /** A guardrail stopped the run: which, and why (`response` says so too). */
  tripped?: GuardrailVerdict;
  /**
   * What the run did, for the step_by_step, todo_list and plan_and_execute agents: the executed
   * plan, each step's or todo's outcome, and (plan_and_execute) the statistics.
   */
  metadata?: Record<string, unknown>;
}

/** The input of every agent type's workflow. */
export interface RunInput<S = unknown> {
  agent: AgentDefinition;
  question: string;
  /**
   * Agent parameters merged with run parameters (see `resolveParameters`). With
   * `parameter_defaults`, the values equal to that set of defaults are left out (see
   * `sparseParameters`); read them through `denseParameters`.
   */
  parameters: ResolvedParameters | Partial<ResolvedParameters>;
  /** The set of default texts the left-out parameters take (absent: `parameters` are complete). */
  parameter_defaults?: string;
  /**
   * The run's memory IDs, the one field they travel in: chosen by the client (so it can show
   * them before the run starts); missing ones are generated.
   */
  ids?: Partial<RunIds>;
  /** `ids.memory_id` is an existing conversation to continue: its recent exchanges become completed steps. */
  continues_conversation?: boolean;
  /**
   * Runs started before `continues_conversation`: the conversation to continue (read as the
   * memory_id and the flag). Their `parameters` may carry `memory_id` and
   * `executor_agent_memory_id` as well; new runs send neither (see `runIdsFor`).
   * @deprecated send `ids.memory_id` and `continues_conversation`
   */
  memory_id?: string;
  /** Task queue of the model activities (default: the workflow's). */
  llm_task_queue?: string;
  /** State carried over by continue-as-new; absent on a run's first execution. */
  carried?: CarriedState<S>;
  /** A fork: the source run's first `step − 1` completed steps become this run's (see `perflow fork`). */
  fork?: ForkSource;
  /** A sub-agent's run (an agent tool's call): where it sits in its tree. */
  sub_agent?: SubAgentPlace;
  /** The perflow version of the client that started the run (or its tree's root, or its eval): part of the fingerprint. */
  perflow_version?: string;
  /**
   * Runs on the same conversation this one waits for before it starts (workflow IDs): what
   * `on_busy: enqueue` and `interrupt` send (client/busy-memory.ts). Absent: it starts at once.
   */
  after?: string[];
  /** Where the run's end is announced (a signed POST, delivered by the `deliverWebhook` child). Absent: nowhere. */
  webhook?: WebhookTarget;
}

/** Where a sub-agent's run sits in its agent tree. */
export interface SubAgentPlace {
  /** Agent names from the root's to this run's (`["supervisor", "researcher"]`). */
  path: string[];
  /** The step's executor workflow that called it. */
  parent_workflow_id: string;
  /** The tree's root run. */
  root_workflow_id: string;
}

/** Where a forked run comes from, and the source's steps it keeps. */
export interface ForkSource {
  workflow_id: string;
  /** The step the fork starts at (1-based): the source's steps before it are reused, not re-run. */
  step: number;
  /** The source run's IDs (its memory holds the reused steps). */
  ids: RunIds & { tenant_id?: string };
  /** The reused steps (executions: one per step, or per attempt of a plan_and_execute step) as the source's progress shows them. */
  steps: CompletedStepView[];
  /** The agent type's own state for the fork's first execution (plan_and_execute: its plan and results up to the step). */
  agent_state?: unknown;
  /** plan_execute_and_reflect: the planner position the fork's first planner call takes (a scripted model's script goes on from there). */
  planner_calls?: number;
}


/**
 * What a long run carries into its next execution. Step texts stay in MongoDB; only IDs,
 * bounded previews and counters travel, so the carried input stays small.
 */
export interface CarriedState<S = unknown> {
  /** The plan still to do (plan_execute_and_reflect: the planner's latest steps). */
  plan: string[];
  /** Interaction IDs of the earlier exchanges, then of this run's step traces, in order (those in `run_steps` left out; absent: none). */
  completed_step_ids?: string[];
  /** This run's steps 1…N by count, after `completed_step_ids` (absent in runs recorded before). */
  run_steps?: { trace_root: string; count: number };
  /** How many of `completed_step_ids` are earlier exchanges (absent in runs recorded before: 0). */
  history_count?: number;
  /** How the run renders its planner prompts (absent in runs recorded before: `perflow`). */
  prompt_format?: PromptFormat;
  completed_steps: CompletedStepView[];
  /** Completed steps before `completed_steps` no longer carried (absent: none; see `Progress.completed_steps_omitted`). */
  completed_steps_omitted?: number;
  steps_executed: number;
  usage: Usage;
  /** plan_execute_and_reflect: planner calls so far (the scripted model's position). */
  planner_calls: number;
  /** plan_execute_and_reflect: the planner calls made by the end of each executed step (absent in runs recorded before). */
  planner_calls_after?: number[];
  tools: AgentTool[];
  /** How many times the run has continued-as-new. */
  continued: number;
  /** When the run's first execution started (ISO 8601; absent in runs recorded before). */
  started_at?: string;
  /** The run's prompt material in memory (absent in runs recorded before it). */
  material_id?: string;
  /** The agent type's own state (step_by_step, todo_list, plan_and_execute). */
  agent_state?: S;
  /** People's decisions so far and what they left for later (absent when there were none). */
  human?: HumanState;
  decisions?: DecisionRecord[];
  /** Verdicts taken by default so far (absent when none). */
  assumed_verdicts?: AssumedVerdict[];
}

/**
 * An assessment whose answer could not be read, even when asked again: the run went on with
 * the default verdict, and says so.
 */
export interface AssumedVerdict {
  /** Which assessment: verification, viability, completion, goal or decision. */
  kind: string;
  /** Executed steps when it was asked. */
  after_steps: number;
  /** The verdict taken, in words. */
  assumed: string;
  /** Why the last answer could not be read. */
  error: string;
}

/** The workflow type that runs each built-in agent type (AGENT_TYPE_SPECS; clients start added types as their specs say: known-agent-types.ts). */
export const WORKFLOW_TYPES = Object.fromEntries(AGENT_TYPE_SPECS.map((s) => [s.type, s.workflowType])) as WorkflowTypes;

/** The workflow type of an agent type. */
export function workflowTypeFor<T extends AgentType>(type: T): (typeof WORKFLOW_TYPES)[T] {
  return WORKFLOW_TYPES[type];
}

/** The workflow type of an eval (workflows/eval.ts): it runs a suite's cases as child runs. */
export const EVAL_WORKFLOW_TYPE = 'perflowEval';

/** How far an eval is: cases in all, ended (scored), passed, failed, and running now. */
export interface EvalProgress {
  total: number;
  done: number;
  passed: number;
  failed: number;
  running: number;
}

export const evalProgressQuery = defineQuery<EvalProgress>('evalProgress');

/**
 * How far an eval is and the cases it has scored so far, in suite order, read at one moment (two
 * queries can see states apart); its document has the cases only once it ends.
 */
export const evalScoredQuery = defineQuery<{ progress: EvalProgress; cases: CaseResult[] }>('evalScored');

/** A run workflow as clients see it: a run input in, a run output out. */
export type RunWorkflow = (input: RunInput) => Promise<RunOutput>;

/** A step of a step_by_step run as `progress` shows it (Axon Ivy `AiStep` and its state). */
export interface StepView {
  stepNo: number;
  name: string;
  toolId: string;
  analysis?: string;
  next?: number;
  previous?: number;
  resultName?: string;
  resultDescription?: string;
  status: 'pending' | 'running' | 'completed' | 'failed' | 'skipped';
  /** Inserted by a YES decision (numbered stepNo + 1000 of the step that decided). */
  adaptive: boolean;
  /** Run again because a step's `next` pointed back to it. */
  repeated?: boolean;
  /** The decision taken after the step. */
  decision?: 'YES' | 'NO' | 'COMPLETE';
}

/** A todo of a todo_list run as `progress` shows it (Axon Ivy `AiTodo` and its state). */
export interface TodoView {
  stepNo: number;
  description: string;
  successCriteria: string;
  availableToolIds: string[];
  analysis?: string;
  resultName?: string;
  resultDescription?: string;
  maxIterationsPerTodo: number;
  currentStatus: 'pending' | 'in_progress' | 'completed' | 'failed';
  isCompleted: boolean;
  iterations: number;
  executor_workflow_id?: string;
}




export interface Progress extends RunIds {
  /**
   * `awaiting_approval`: a person's decision is pending (see `pending`); `awaiting_budget`: the
   * run reached its `max_cost_usd` and waits for `raise-budget` or `reject --stop`; `paused`: held
   * between steps until resumed; `queued`: waits for the runs in `after` (earlier messages to its
   * conversation) to end before it starts.
   */
  status: 'queued' | 'planning' | 'executing' | 'awaiting_approval' | 'awaiting_budget' | 'paused' | 'completed' | 'tripped' | 'failed';
  agent: string;
  question: string;
  plan: string[];
  current_step?: { index: number; step: string; executor_workflow_id: string };
  /** Steps running at once (plan_execute_and_reflect with `max_parallel_steps` > 1), in plan order; absent when one runs. */
  current_steps?: { index: number; step: string; executor_workflow_id: string }[];
  completed_steps: CompletedStepView[];
  /**
   * Completed steps before `completed_steps` the run no longer lists: a long run carries only its
   * latest ones across continue-as-new (memory keeps them all: `perflow memory`). Absent: none.
   */
  completed_steps_omitted?: number;
  steps_executed: number;
  max_steps: number;
  usage: Usage;
  result?: string;
  /** With `output_schema`: the answer as its JSON value (`result` is its JSON text). */
  output?: unknown;
  /** `tripped`: the guardrail that stopped the run, and why. */
  tripped?: GuardrailVerdict;
  error?: string;
  /** A newer message to the conversation interrupted the run (`on_busy: interrupt`): that run's workflow ID. */
  interrupted_by?: string;
  /** `queued`: the earlier runs of its conversation it waits for. */
  waiting_for?: string[];
  /** How many times the run has continued-as-new (absent before the first time). */
  continued_as_new?: number;
  /** The agent type (absent in runs of plan_execute_and_reflect started before it was added). */
  agent_type?: AgentType;
  /** step_by_step: every step, planned and adaptive, with its status. */
  steps?: StepView[];
  /** todo_list: every todo with its status. */
  todos?: TodoView[];
  /** plan_and_execute: the plan as executed so far, adapted steps included. */
  plan_steps?: PlanStepView[];
  /** plan_and_execute: the re-plannings so far. */
  replans?: Replan[];
  /** step_by_step and todo_list: names of the variables so far (the query, then each result). */
  variables?: string[];
  /** Decisions a person has to take now, oldest first (absent when none). */
  pending?: PendingDecision[];
  /** A pause was asked for: the run holds at the next point between steps until resumed. */
  paused?: boolean;
  /** Every decision a person took in this run, in order (absent before the first). */
  decisions?: DecisionRecord[];
  /** Assessments whose answer could not be read, taken by default (absent when none). */
  assumed_verdicts?: AssumedVerdict[];
  /** A forked run: the run and step it was forked from. */
  forked_from?: { workflow_id: string; step: number };
}

export const progressQuery = defineQuery<Progress>('progress');
/** What a fork from the given step (1-based) takes over; see {@link ForkPoint}. */
export const forkPointQuery = defineQuery<ForkPoint, [number]>('forkPoint');

// ---------------------------------------------------------------------------------------------
// human in the loop

export const planDecisionUpdate = defineUpdate<DecisionRecord, [PlanDecision]>('decidePlan');
export const toolDecisionUpdate = defineUpdate<DecisionRecord, [ToolDecision]>('decideTool');
export const guideUpdate = defineUpdate<DecisionRecord, [GuidanceInput]>('guide');
export const pauseUpdate = defineUpdate<DecisionRecord, [PauseInput]>('pause');
export const resumeUpdate = defineUpdate<DecisionRecord, [PauseInput]>('resume');
export const raiseBudgetUpdate = defineUpdate<DecisionRecord, [BudgetRaise]>('raiseBudget');

export const toolApprovalRequestSignal = defineSignal<[ToolApprovalRequest]>('toolApprovalRequest');
export const toolApprovalAnswerSignal = defineSignal<[ToolApprovalAnswer]>('toolApprovalAnswer');
/** A newer message to the run's conversation interrupts it (`on_busy: interrupt`): sent by the client just before it cancels the run. */
export const interruptSignal = defineSignal<[{ by: string }]>('interrupt');
/** `perflow budget set` to a run waiting at its tenant's daily cap: the cap changed. */
export const tenantCapSignal = defineSignal<[TenantCapNotice]>('tenantCap');
export const tenantWaitRequestSignal = defineSignal<[TenantWaitRequest]>('tenantWaitRequest');
export const tenantWaitAnswerSignal = defineSignal<[TenantWaitAnswer]>('tenantWaitAnswer');

/**
 * Search attributes that make runs findable in the Temporal UI and `perflow list`, where the
 * server has them registered (the dev server perflow starts does; see servers/temporal.ts).
 */
export const SearchAttributes = {
  agent: defineSearchAttributeKey('PerflowAgent', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('PerflowStatus', SearchAttributeType.KEYWORD),
  /** What a running run waits for from a person: `plan`, `budget`, `tool`, `paused`, or `none`. */
  pending: defineSearchAttributeKey('PerflowPending', SearchAttributeType.KEYWORD),
  /** The run's `tenant_id` (set at start, when it has one): `list --tenant` and `pending --tenant` filter on it over all runs. */
  tenant: defineSearchAttributeKey('PerflowTenant', SearchAttributeType.KEYWORD),
  /** The eval a run is a case of (its eval ID): `perflow eval` starts its cases with it. */
  eval: defineSearchAttributeKey('PerflowEval', SearchAttributeType.KEYWORD),
  /** The run's fingerprint (core/fingerprint.ts): `list --fingerprint`, the UI's filter. */
  fingerprint: defineSearchAttributeKey('PerflowFingerprint', SearchAttributeType.KEYWORD),
  /** The conversation the run writes to (its `memory_id`): which runs a conversation is busy with (client/busy-memory.ts). */
  memory: defineSearchAttributeKey('PerflowMemory', SearchAttributeType.KEYWORD),
} as const;

/** perflow's search attributes a namespace lacks, given the custom attributes it has registered. */
export function missingSearchAttributes(registered: Iterable<string>): string[] {
  const have = new Set(registered);
  return Object.values(SearchAttributes).map((k) => k.name).filter((name) => !have.has(name));
}

/** The command that registers search attributes (Keyword) on a namespace. */
export function searchAttributeCreateCommand(names: readonly string[], namespace: string): string {
  return `temporal operator search-attribute create --namespace ${namespace} ${names.map((n) => `--name ${n} --type Keyword`).join(' ')}`;
}

/**
 * Which of perflow's search attributes a server's refusal says the namespace lacks (its cause
 * chain names it); '' when it names none of them; undefined when it is about something else.
 */
export function searchAttributeRefused(err: unknown): string | undefined {
  const refusal = causeChain(err).find((e) => /search attribute/i.test(e.message ?? ''))?.message;
  if (refusal === undefined) return undefined;
  return Object.values(SearchAttributes).map((k) => k.name).find((name) => refusal.includes(name)) ?? '';
}

/** Failure types a client can match on (docs/how-a-run-works.md, "Failure types"). */
export const FailureTypes = {
  /** A model answer that must parse (plan, steps, todos) stayed unparseable after `max_parse_retries` calls. */
  OutputInvalid: 'Agent.OutputInvalid',
  /** The same, as plan_execute_and_reflect runs recorded before every agent type shared one kernel name it. */
  PlannerOutputInvalid: 'Planner.OutputInvalid',
  /** A step_by_step step or todo names a tool the agent does not have (Axon Ivy "Tool not found"). */
  ToolNotFound: 'Agent.ToolNotFound',
  /** The next model call would start at or over `max_cost_usd`, with `budget_action` `fail`. */
  BudgetExceeded: 'Budget.Exceeded',
  /** The answer did not conform to the agent's `output_schema` after `output_retries` more attempts. */
  TypedOutputInvalid: 'Output.Invalid',
} as const;

const STATUS_ICON: Record<string, string> = { pending: '⏳', running: '▶️', in_progress: '▶️', completed: '✅', failed: '❌', skipped: '⏭️' };

/** The progress as Markdown, for the workflow's current details in the Temporal UI. */
export function progressMarkdown(p: Progress, workflowId = 'ID'): string {
  const lines = [`**${p.agent}** — ${p.status}`, '', `**Question:** ${preview(p.question, 300)}`, ''];
  lines.push(`memory_id \`${p.memory_id}\` · executor memory \`${p.executor_agent_memory_id}\``, '');
  if (p.forked_from) lines.push(`Forked from \`${p.forked_from.workflow_id}\` at step ${p.forked_from.step}: steps 1–${p.forked_from.step - 1} reused`, '');
  if (p.steps) {
    lines.push('**Steps:**', ...p.steps.map((s) => `- ${STATUS_ICON[s.status]} ${s.stepNo}. ${preview(s.name, 150)} (${s.toolId})${s.decision ? ` → ${s.decision}` : ''}`), '');
  } else if (p.todos) {
    lines.push('**Todos:**', ...p.todos.map((t) => `- ${STATUS_ICON[t.currentStatus]} ${t.stepNo}. ${preview(t.description, 150)} (${t.iterations}/${t.maxIterationsPerTodo})`), '');
  } else if (p.plan_steps) {
    lines.push('**Plan:**', ...p.plan_steps.map((s) => `- ${STATUS_ICON[s.status]} ${s.step_num}. ${preview(s.goal, 150)} (${s.primary_tools[0] ?? 'no tool'}, ${s.attempts} attempts)`), '');
  } else if (p.plan.length > 0) lines.push('**Plan:**', ...p.plan.map((s, i) => `${i + 1}. ${preview(s, 200)}`), '');
  for (const d of p.pending ?? []) {
    const { what, detail } = pendingWhat(d);
    const heading = `**${what[0].toUpperCase()}${what.slice(1)}`;
    lines.push(
      d.kind === 'tool'
        ? `${heading}** (step ${(d.step?.index ?? 0) + 1}): \`${d.tool}\` with \`${preview(JSON.stringify(d.input), 500)}\``
        : `${heading}:**${detail !== undefined ? ` ${detail}` : ''}`,
    );
    if (d.plan) lines.push(...d.plan.map((s, i) => `${i + 1}. ${preview(s, 200)}`));
    if (d.timeout) lines.push(`(${d.timeout.action} at ${d.timeout.at} if nobody answers)`);
    lines.push('Answer with:', ...d.answer.map((a) => `- \`${a}\``), '');
  }
  if (p.paused) lines.push(`**Paused** — resume with \`perflow resume ${workflowId}\``, '');
  for (const c of p.current_steps ?? (p.current_step ? [p.current_step] : [])) lines.push(`**Running step ${c.index + 1}:** ${preview(c.step, 200)}`, '');
  if (p.completed_steps_omitted) lines.push(`- … ${p.completed_steps_omitted} earlier steps (in memory: \`perflow memory ${p.memory_id}\`)`);
  for (const s of p.completed_steps) lines.push(`- ${s.ok ? '✅' : '❌'} step ${s.index + 1}: ${preview(s.step, 120)} → ${preview(s.result_preview, 200)}`);
  lines.push('', `steps ${p.steps_executed}/${p.max_steps} · ${formatTokens(p.usage)} · ${formatCost(p.usage.cost_usd)}`);
  if (p.result !== undefined) lines.push('', `**Result:** ${preview(p.result, 2_000)}`);
  return lines.join('\n').slice(0, 18_000);
}
