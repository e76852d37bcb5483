/**
 * The run kernel's state: what every agent type's run has — its input, IDs, `progress` query,
 * memory, tools, system prompts and model activities — set up once at the start of each
 * execution (after continue-as-new from the carried state, without touching memory again).
 */
import { nameRunSpan } from './run-span';
import { isCancellation, log, patched, setCurrentDetails, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import type { AgentTool } from '../../core/activity-contract';
import type { AgentDefinition, ResolvedParameters } from '../../core/agent';
import { denseParameters } from '../../core/agent-file/parameter-defaults';
import { formatDatetime, injectDatetime } from '../../core/datetime';
import { ZERO_USAGE } from '../../core/llm-types';
import { renderTemplate, templateParams, type PromptFormat } from '../../core/template';
import { causeChain } from '../../core/text';
import { compactStepIds, completedStepIds, stepTraceId, type CompletedStepRefs, type MemoryIds } from '../../core/memory-ids';
import { forkPointQuery, progressMarkdown, progressQuery, type CarriedState, type ForkPoint, type ForkSource, type Progress, type RunIds, type RunInput } from './definitions';
import { describeTools, memoryActivities, modelActivities, type ModelActivities } from './activity-presets';
import { openHumanLoop, type HumanLoop } from './human';
import { acceptInterrupts, waitForEarlierRuns } from './run-order';
import { fingerprintWithBuild } from './run-fingerprint';
import { RunEvents } from './events';
import { streamOf, EVENT_PREVIEW_CHARS } from '../../core/run-events';
import { preview } from '../../core/text';

/** Static prompt material travels by reference; runs recorded before carried it in every call. */
const PROMPT_MATERIAL_PATCH = 'prompt-material-by-reference';
/** plan_execute_and_reflect renders its planner prompts as ml-commons does (core/template.ts); decided once, at a run's start. */
const ML_COMMONS_FORMAT_PATCH = 'ml-commons-prompt-format';
/** Runs write their root interactions, question and answer, once when they end (see lifecycle.ts); runs recorded before wrote them at start. */
export const ROOTS_AT_END_PATCH = 'root-interactions-at-run-end';
/**
 * Runs open in one activity (`startRun` stores the prompt material too), and their first activity
 * writes their first event: the first workflow task writes nothing to MongoDB. Runs recorded
 * before wrote it from that task and stored the material in an activity of its own.
 */
const OPENS_IN_ONE_ACTIVITY_PATCH = 'run-opens-in-one-activity';

export interface RunSpec {
  /** Shown as `progress.max_steps`: the most steps (iterations) the run may execute. */
  maxUnits: number;
  /** The planning model's system prompt, before the date is injected. */
  planningSystem: string;
}

export interface RunContext<S = unknown> {
  input: RunInput<S>;
  agent: AgentDefinition;
  question: string;
  p: ResolvedParameters;
  ids: RunIds;
  /** The IDs as memory operations and executor children receive them: with the run's tenant. */
  memoryIds: MemoryIds;
  progress: Progress;
  tools: AgentTool[];
  /** Interaction IDs of the conversation's earlier exchanges, then of this run's step traces, in order. */
  completedIds: string[];
  /** How many of {@link completedIds} are earlier exchanges (the rest are this run's steps). */
  historyCount: number;
  /** How its planner prompts are rendered: `ml-commons` for plan_execute_and_reflect runs started since the patch. */
  promptFormat: PromptFormat;
  /** Every run parameter as a `${parameters.x}` value (their own placeholders filled), plus `tools_prompt` and `user_prompt`. */
  params: Record<string, string>;
  /**
   * The ID of the run's prompt material (params, system prompts, tool specs) stored in memory:
   * model calls reference it instead of carrying it. Absent in runs recorded before.
   */
  materialId?: string;
  planningSystem: string;
  executorSystem: string;
  models: ModelActivities;
  /** The agent type's own state carried from the previous execution, if any. */
  carried?: CarriedState<S>;
  /** When the run started (ISO 8601; its first execution's start, across continue-as-new). */
  startedAt: string;
  /** People's decisions: plan and tool approval, guidance, pause (see kernel/human.ts). */
  human: HumanLoop;
  /** The run's event stream (see kernel/events.ts). */
  events: RunEvents;
  /**
   * What a fork from step N takes over (query `forkPoint`): by default the first N−1 executed
   * steps; an agent type whose steps mean something else sets its own.
   */
  forkPoint(step: number): ForkPoint;
  showProgress(): void;
}

/** Opens a run: IDs, progress query, tools (listed once per run), memory (on the first execution only). */
export async function openRun<S>(input: RunInput<S>, specOf: (p: ResolvedParameters) => RunSpec): Promise<RunContext<S>> {
  const { agent, question, carried } = input;
  const p = denseParameters<ResolvedParameters>(input);
  const spec = specOf(p);
  // Fixed for the run's life, across continue-as-new: a deploy changes the prompts of new runs only.
  const promptFormat: PromptFormat = carried ? (carried.prompt_format ?? 'perflow') : agent.type === 'plan_execute_and_reflect' && patched(ML_COMMONS_FORMAT_PATCH) ? 'ml-commons' : 'perflow';
  const ids = runIdsFor(input);
  const memoryIds: MemoryIds = p.tenant_id !== undefined ? { ...ids, tenant_id: p.tenant_id } : ids;
  nameRunSpan(agent, workflowInfo().workflowId, ids.memory_id);
  const progress: Progress = {
    ...ids,
    status: 'planning',
    agent: agent.name,
    agent_type: agent.type,
    question,
    plan: carried?.plan ?? [],
    completed_steps: carried?.completed_steps ?? [],
    ...(carried?.completed_steps_omitted ? { completed_steps_omitted: carried.completed_steps_omitted } : {}),
    steps_executed: carried?.steps_executed ?? 0,
    max_steps: spec.maxUnits,
    usage: carried?.usage ?? ZERO_USAGE,
    ...(carried ? { continued_as_new: carried.continued } : {}),
    ...(carried?.decisions ? { decisions: carried.decisions } : {}),
    ...(carried?.assumed_verdicts ? { assumed_verdicts: carried.assumed_verdicts } : {}),
    ...(input.fork ? { forked_from: { workflow_id: input.fork.workflow_id, step: input.fork.step } } : {}),
  };
  setHandler(progressQuery, () => progress);
  acceptInterrupts(progress);
  const events = new RunEvents(streamOf(workflowInfo().workflowId));
  const opensInOne = !carried && patched(OPENS_IN_ONE_ACTIVITY_PATCH);
  if (!carried) {
    const head = { memory_id: ids.memory_id, ...(p.tenant_id !== undefined ? { tenant_id: p.tenant_id } : {}) };
    const forked = progress.forked_from ? { forked_from: progress.forked_from } : {};
    const started = { type: 'run_started' as const, workflow_id: workflowInfo().workflowId, agent: agent.name, agent_type: agent.type, question: preview(question, EVENT_PREVIEW_CHARS), memory_id: ids.memory_id, ...forked };
    if (opensInOne) events.openLater(started, head);
    else events.emit(started, head);
    fingerprintWithBuild(agent, p, input.perflow_version);
    // A second message to a busy conversation starts after the earlier ones (only runs started with `after` wait: no other run's commands change).
    if (input.after && input.after.length > 0) await waitForEarlierRuns(input.after, progress, events);
  }
  const models = modelActivities(input.llm_task_queue);
  const tools: AgentTool[] = carried?.tools ?? (await listTools(agent, events));
  const params = templateParams(p, question, tools.map((t) => t.spec), promptFormat);
  // System prompts may use `${parameters.x}` too (seed 002).
  const systems = withDatetime(p, renderTemplate(spec.planningSystem, params), renderTemplate(p.executor_system_prompt, params));
  const completedIds = carried ? completedStepIds(carried) : [];
  let materialId = carried?.material_id;
  let historyCount = carried?.history_count ?? 0;
  const material = () => ({ params, systems: { planning: systems.planner, executor: systems.executor }, tools: tools.map((t) => t.spec) });
  if (!carried) {
    const rootsAtEnd = patched(ROOTS_AT_END_PATCH);
    if (opensInOne) materialId = uuid4();
    const { history_ids } = await events.first((opening) => memoryActivities.startRun({
      ...(opening ? { opening } : {}),
      ...(opensInOne ? { material: { id: materialId!, material: material() } } : {}),
      ids: memoryIds,
      ...(rootsAtEnd ? { roots_at_end: true } : {}),
      ...(p.executor_agent_id !== undefined ? { executor_agent_id: p.executor_agent_id } : {}),
      question,
      app_type: agent.app_type ?? agent.type,
      // Inputs recorded before the flag say so by a `memory_id`.
      resume: input.continues_conversation ?? input.memory_id !== undefined,
      message_history_limit: p.message_history_limit,
    }));
    completedIds.push(...history_ids);
    historyCount = history_ids.length;
    if (input.fork) await reuseForkedSteps(input.fork, memoryIds, progress, completedIds, rootsAtEnd);
  }
  if (materialId === undefined && patched(PROMPT_MATERIAL_PATCH)) {
    materialId = uuid4();
    await memoryActivities.savePromptMaterial({
      id: materialId,
      material: material(),
      ...(memoryIds.tenant_id !== undefined ? { tenant_id: memoryIds.tenant_id } : {}),
    });
  }
  const run: Omit<RunContext<S>, 'human'> & { human?: HumanLoop } = {
    input,
    agent,
    question,
    p,
    ids,
    memoryIds,
    progress,
    tools,
    completedIds,
    historyCount,
    promptFormat,
    params,
    ...(materialId !== undefined ? { materialId } : {}),
    planningSystem: systems.planner,
    executorSystem: systems.executor,
    models,
    carried,
    startedAt: carried?.started_at ?? workflowInfo().startTime.toISOString(),
    events,
    forkPoint: (step) => ({ completed: progress.completed_steps.length, steps: progress.completed_steps.slice(0, Math.max(0, step - 1)) }),
    showProgress: () => setCurrentDetails(progressMarkdown(progress, workflowInfo().workflowId)),
  };
  // A run whose earliest steps are no longer carried cannot hand them to a fork.
  setHandler(forkPointQuery, (step) =>
    progress.completed_steps_omitted
      ? { completed: progress.completed_steps_omitted + progress.completed_steps.length, steps: [], refused: `its first ${progress.completed_steps_omitted} steps are no longer carried (a long run keeps its latest ones across continue-as-new): it cannot be forked` }
      : run.forkPoint(step),
  );
  run.human = openHumanLoop(run as RunContext, carried?.human);
  return run as RunContext<S>;
}

/**
 * A fork's first execution: the source's executions before the fork's step are copied into this
 * run's memory (under its own IDs) and become its completed steps; no model or tool call redoes them.
 */
async function reuseForkedSteps(fork: ForkSource, ids: MemoryIds, progress: Progress, completedIds: string[], rootsAtEnd: boolean): Promise<void> {
  const count = fork.steps.length;
  await memoryActivities.copyForkedSteps({ from: fork.ids, to: ids, count, forked_from: { workflow_id: fork.workflow_id, step: fork.step }, ...(rootsAtEnd ? { roots_at_end: true } : {}) });
  for (let unit = 0; unit < count; unit++) completedIds.push(stepTraceId(ids.parent_interaction_id, unit));
  progress.completed_steps = fork.steps.map((s, unit) => ({ ...s, index: unit }));
  progress.steps_executed = count;
}

/** The run's completed steps as a prompt reference or the carried state names them: this run's steps by count. */
export function completedStepRefs(run: RunContext): CompletedStepRefs {
  return compactStepIds(run.completedIds, run.historyCount, run.ids.parent_interaction_id);
}

/**
 * The run's four memory IDs: those in `ids` (the client resolves them, in one place), else new
 * ones. Inputs recorded before also name the conversation (`memory_id`, which wins as it did)
 * and the executor memory (`parameters.executor_agent_memory_id`) they continue.
 */
export function runIdsFor(input: { ids?: Partial<RunIds>; memory_id?: string; parameters?: { executor_agent_memory_id?: string } }): RunIds {
  return {
    memory_id: input.memory_id ?? input.ids?.memory_id ?? uuid4(),
    parent_interaction_id: input.ids?.parent_interaction_id ?? uuid4(),
    executor_agent_memory_id: input.ids?.executor_agent_memory_id ?? input.parameters?.executor_agent_memory_id ?? uuid4(),
    executor_agent_parent_interaction_id: input.ids?.executor_agent_parent_interaction_id ?? uuid4(),
  };
}

/** The agent's tools and MCP servers' tools, listed once (an activity, so recorded in history). */
async function listTools(agent: AgentDefinition, events: RunEvents): Promise<AgentTool[]> {
  // Runs started before agent files had `mcp_servers` carry none in their input.
  const mcpServers = (agent.mcp_servers as AgentDefinition['mcp_servers'] | undefined) ?? [];
  const hasTools = agent.tools.length > 0 || mcpServers.length > 0;
  // The run's first activity, when it has tools: it writes the run's first event.
  return hasTools ? events.first((opening) => describeTools({ tools: agent.tools, mcp_servers: mcpServers, ...(opening ? { opening } : {}) })) : [];
}

/** Both system prompts with the date appended when `inject_datetime` is on (workflow time: replay-safe). */
function withDatetime(p: ResolvedParameters, planner: string, executor: string): { planner: string; executor: string } {
  if (!p.inject_datetime) return { planner, executor };
  const { text, warning } = formatDatetime(Date.now(), p.datetime_format);
  if (warning) log.warn(warning);
  return { planner: injectDatetime(planner, text), executor: injectDatetime(executor, text) };
}

/** The deepest message of a failure's cause chain, for people. */
export function causeMessage(err: unknown): string {
  if (isCancellation(err)) return 'the run was cancelled';
  // The deepest cause that says something.
  return causeChain(err).reduce((message, e) => e.message || message, '') || String(err);
}
