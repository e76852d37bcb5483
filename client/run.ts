/** Starting a run of any agent type and following its progress. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes, WorkflowExecutionAlreadyStartedError, type SearchAttributePair } from '@temporalio/common';
import { AgentDefinitionError, agentTypeSpec, parameterWarnings, parseAgentDefinition, resolveParameters, sparseParameters, type AgentDefinition, type ResolvedParameters } from '../core/agent';
import {
  preview,
  progressQuery,
  searchAttributeRefused,
  type ForkSource,
  type PendingDecision,
  type Progress,
  type RunIds,
  type RunInput,
  type RunOutput,
  type RunWorkflow,
} from '../workflows/definitions';
import { BUILTIN_TOOL_TYPES } from '../core/tool-types';
import { QUESTION_MAX_CHARS, type ParameterLimits } from '../core/agent-file/limits';
import { runStart, truncateBytes } from '../workflows/run-start';
import { pendingWhat } from '../core/decisions';
import { PerflowError } from './errors';
import { readJsonFile } from './json-file';
import { budgetPriceProblem, unpricedModelsNote } from '../telemetry/model-prices';

export interface LoadAgentFileOptions {
  /** Tool types the workers offer besides the built-in ones (tools of your own, see `perflow/worker`). */
  extraToolTypes?: readonly string[];
  /** Upper bounds of the run parameters (`ClientConfig.limits`). @default core/agent-file/limits.ts */
  limits?: ParameterLimits;
}

/** Reads and validates an agent file and run parameters; every problem becomes one line. */
export async function loadAgentFile(file: string, runParams: Record<string, unknown> = {}, options: LoadAgentFileOptions = {}): Promise<LoadedAgent> {
  return agentFromJson(await readJsonFile(file, 'agent file'), file, runParams, options);
}

export interface LoadedAgent {
  agent: AgentDefinition;
  parameters: ResolvedParameters;
  warnings: string[];
  /** What the run cannot tell (one line each): models with no known price, whose cost will be null. */
  notes: string[];
}

/** Validates an agent file's JSON (named `where` in errors) and run parameters; every problem becomes one line. */
export function agentFromJson(json: unknown, where: string, runParams: Record<string, unknown> = {}, options: LoadAgentFileOptions = {}): LoadedAgent {
  try {
    const agent = parseAgentDefinition(json, { toolTypes: [...BUILTIN_TOOL_TYPES, ...(options.extraToolTypes ?? [])] });
    const unpriced = unpricedModelsNote([agent.llm, agent.executor_llm]);
    const parameters = resolveParameters(agent, runParams, {}, options.limits);
    const budgetProblem = parameters.max_cost_usd !== undefined ? budgetPriceProblem([agent.llm, agent.executor_llm]) : undefined;
    if (budgetProblem) throw new PerflowError('invalid', `${where}: parameters.max_cost_usd: ${budgetProblem}`);
    return { agent, parameters, warnings: parameterWarnings(agent, runParams), notes: unpriced ? [unpriced] : [] };
  } catch (err) {
    if (err instanceof AgentDefinitionError) throw new PerflowError('invalid', `${where}: ${err.message}`, { cause: err });
    throw err;
  }
}

/** `key=value` pairs as run parameters; values that parse as JSON (numbers, booleans, …) are used as such. */
export function parseParams(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new PerflowError('invalid', `--param expects key=value, got "${pair}"`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}

export function slug(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return s === '' ? 'agent' : s;
}

export { truncateBytes };

export interface StartRunOptions {
  agent: AgentDefinition;
  /** As `resolveParameters` returns them. */
  parameters: ResolvedParameters;
  question: string;
  taskQueue: string;
  /** Continue this conversation (default: the `memory_id` parameter, else a new one). */
  memoryId?: string;
  /** Run the LLM activities on this task queue (see PERFLOW_LLM_TASK_QUEUE). */
  llmTaskQueue?: string;
  /** Start as a fork of another run (see `forkRun`). */
  fork?: ForkSource;
  /** The run's workflow ID (default: `<agent slug>-<8 hex>`); starting a second run with it fails. */
  workflowId?: string;
}

export interface StartedRun {
  workflowId: string;
  runId: string;
  ids: RunIds;
  handle: WorkflowHandle<RunWorkflow>;
}

/**
 * The run's memory IDs, resolved here and nowhere else: the conversation and executor memory it
 * continues (`memoryId`, else the seed's `memory_id` and `executor_agent_memory_id` parameters),
 * else new ones. The parameters go on without them: the IDs travel in `ids` only.
 */
export function resolveRunIds(o: Pick<StartRunOptions, 'memoryId' | 'parameters'>): {
  ids: RunIds;
  continuesConversation: boolean;
  parameters: Omit<ResolvedParameters, 'memory_id' | 'executor_agent_memory_id'>;
} {
  const { memory_id, executor_agent_memory_id, ...parameters } = o.parameters;
  const memoryId = o.memoryId ?? memory_id;
  const ids: RunIds = {
    memory_id: memoryId ?? randomUUID(),
    parent_interaction_id: randomUUID(),
    executor_agent_memory_id: executor_agent_memory_id ?? randomUUID(),
    executor_agent_parent_interaction_id: randomUUID(),
  };
  return { ids, continuesConversation: memoryId !== undefined, parameters };
}

/** Starts a run with client-chosen IDs, as the workflow type of the agent's type (its spec's, built in or added). */
export async function startRun(client: Client, o: StartRunOptions): Promise<StartedRun> {
  if (o.question.length > QUESTION_MAX_CHARS) throw new PerflowError('invalid', `question: ${o.question.length} characters is above the limit of ${QUESTION_MAX_CHARS}`);
  const { ids, continuesConversation, parameters } = resolveRunIds(o);
  const workflowId = o.workflowId ?? `${slug(o.agent.name)}-${randomBytes(4).toString('hex')}`;
  // Default prompts travel as the name of their set, not as text (see sparseParameters).
  const start = runStart({ agent: o.agent, question: o.question, sparse: sparseParameters(parameters), ids, continuesConversation, llmTaskQueue: o.llmTaskQueue, fork: o.fork });
  const options = {
    taskQueue: o.taskQueue,
    workflowId,
    // A fork's memory copies are keyed by its run: a second fork under the same workflow ID is refused.
    ...(o.fork ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
    args: [start.input] as [RunInput],
    memo: start.memo,
    staticSummary: start.staticSummary,
    staticDetails: start.staticDetails,
  };
  let searchable: SearchAttributePair[] = start.searchAttributes;
  const { workflowType } = agentTypeSpec(o.agent.type);
  for (;;) {
    try {
      const attributes = searchable.length > 0 ? { typedSearchAttributes: new TypedSearchAttributes(searchable) } : {};
      const handle = await client.workflow.start<RunWorkflow>(workflowType, { ...options, ...attributes });
      return { workflowId, runId: handle.firstExecutionRunId, ids, handle };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        throw new PerflowError('conflict', `a run with workflow ID ${workflowId} exists already${o.fork ? ': a fork is started once under its ID (nothing was copied again)' : ''}`, { cause: err });
      }
      // A server without some of perflow's search attributes still runs perflow, without those
      // (the worker names them, with the command that registers them).
      const refused = searchAttributeRefused(err);
      if (refused === undefined || searchable.length === 0) throw err;
      const rest = searchable.filter((a) => a.key.name !== refused);
      searchable = rest.length < searchable.length ? rest : [];
    }
  }
}

/** Lines describing what changed between two progress snapshots. */
export function progressChanges(prev: Progress | undefined, next: Progress): string[] {
  const lines: string[] = [];
  if (next.plan.join('\n') !== (prev?.plan ?? []).join('\n') && next.plan.length > 0) {
    lines.push(`plan: ${next.plan.map((s, i) => `${i + 1}. ${preview(s, 120)}`).join(' | ')}`);
  }
  const done = prev?.completed_steps.length ?? 0;
  for (const s of next.completed_steps.slice(done)) {
    lines.push(`step ${s.index + 1} ${s.ok ? 'done' : 'failed'}: ${preview(s.step, 120)} → ${preview(s.result_preview.replace(/\s+/g, ' '), 200)}`);
  }
  const runningOf = (p: Progress | undefined) => p?.current_steps ?? (p?.current_step ? [p.current_step] : []);
  const wasRunning = new Set(runningOf(prev).map((c) => c.executor_workflow_id));
  for (const cur of runningOf(next)) {
    if (!wasRunning.has(cur.executor_workflow_id)) lines.push(`step ${cur.index + 1} running: ${preview(cur.step, 120)} (executor ${cur.executor_workflow_id})`);
  }
  const u = next.usage;
  if (!prev || u.input_tokens !== prev.usage.input_tokens || u.output_tokens !== prev.usage.output_tokens) {
    if (u.input_tokens + u.output_tokens > 0) lines.push(`tokens: in ${u.input_tokens} / out ${u.output_tokens}`);
  }
  if (next.status !== prev?.status) lines.push(`status: ${next.status}${next.error ? ` (${next.error})` : ''}`);
  const seen = new Set((prev?.pending ?? []).map((d) => d.id));
  for (const d of next.pending ?? []) if (!seen.has(d.id)) lines.push(...pendingLines(d));
  return lines;
}

/** A pending decision for people: what waits, and the commands that answer it. */
export function pendingLines(d: PendingDecision): string[] {
  const { what: waiting, detail } = pendingWhat(d);
  const what =
    d.kind === 'tool'
      ? [`${waiting} (${d.id}) in step ${(d.step?.index ?? 0) + 1}: ${d.tool} ${preview(JSON.stringify(d.input ?? {}), 300)}`]
      : [`${waiting} (${d.id}):${detail !== undefined ? ` ${detail}` : ''}`, ...(d.plan ?? []).map((s, i) => `  ${i + 1}. ${preview(s, 200)}`)];
  const timeout = d.timeout ? [`  (${d.timeout.action} at ${d.timeout.at} if nobody answers)`] : [];
  return [...what, ...timeout, ...d.answer.map((a) => `  answer: ${a}`)];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the progress query, calling `print` for each change, until the run ends; returns its result. */
export async function followRun(handle: WorkflowHandle<RunWorkflow>, print: (line: string) => void, intervalMs = 500): Promise<RunOutput> {
  let settled = false;
  const result = handle.result().finally(() => {
    settled = true;
  });
  result.catch(() => undefined);
  let last: Progress | undefined;
  const poll = async () => {
    try {
      const p = await handle.query(progressQuery);
      for (const line of progressChanges(last, p)) print(line);
      last = p;
    } catch {
      // no worker has picked up the run yet, or the query timed out: try again
    }
  };
  while (!settled) {
    await poll();
    await Promise.race([sleep(intervalMs), result.catch(() => undefined)]);
  }
  await poll();
  return result;
}
