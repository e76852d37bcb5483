/** Starting a run of any agent type (following it: follow-run.ts, watch.ts). */
import { packageVersion } from './package-root';
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes, WorkflowExecutionAlreadyStartedError, type SearchAttributePair } from '@temporalio/common';
import { AgentDefinitionError, agentTypeSpec, isAgentTool, parameterWarnings, type AgentToolParameters, type SubAgent, parseAgentDefinition, resolveParameters, sparseParameters, type AgentDefinition, type ResolvedParameters } from '../core/agent';
import {
  searchAttributeRefused,
  type ForkSource,
  type RunIds,
  type RunInput,
  type RunWorkflow,
} from '../workflows/definitions';
import { BUILTIN_TOOL_TYPES } from '../core/tool-types';
import { TENANT_REQUIRED } from '../core/worker-policy';
import { QUESTION_MAX_CHARS, type ParameterLimits } from '../core/agent-file/limits';
import { runStart, truncateBytes, type RunStart } from '../workflows/run-start';
import type { PerflowClient } from './connect';
import { PerflowError } from './errors';
import { makeRoom, type OnBusy } from './busy-memory';
import { checkWebhookUrl } from './worker-policy';
import type { WebhookTarget } from '../core/webhooks';
import { readJsonFile } from './json-file';
import { readSubAgentFiles, type SubAgentFiles } from './sub-agents';
import { budgetPriceProblem, unpricedModelsNote } from '../telemetry/model-prices';

export interface LoadAgentFileOptions {
  /** Tool types the workers offer besides the built-in ones (tools of your own, see `perflow/worker`). */
  extraToolTypes?: readonly string[];
  /** Upper bounds of the run parameters (`ClientConfig.limits`). @default core/agent-file/limits.ts */
  limits?: ParameterLimits;
  /** The sub-agent files its `AgentTool` entries name, read (`readSubAgentFiles`); `loadAgentFile` reads them itself. */
  subAgentFiles?: SubAgentFiles;
  /** `loadAgentFile`: every sub-agent file must lie in this folder (a console's agents folder). */
  subAgentsWithin?: string;
  /** The agent runs under a root's `max_cost_usd` (it is a sub-agent): its models must be priced. */
  treeBudget?: boolean;
}

/** Reads and validates an agent file (and the sub-agent files it names) and run parameters; every problem becomes one line. */
export async function loadAgentFile(file: string, runParams: Record<string, unknown> = {}, options: LoadAgentFileOptions = {}): Promise<LoadedAgent> {
  const json = await readJsonFile(file, 'agent file');
  const subAgentFiles = options.subAgentFiles ?? (await readSubAgentFiles(json, file, { within: options.subAgentsWithin }));
  return agentFromJson(json, file, runParams, { ...options, subAgentFiles });
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
    const budgeted = parameters.max_cost_usd !== undefined || options.treeBudget === true;
    const budgetProblem = budgeted ? budgetPriceProblem([agent.llm, agent.executor_llm]) : undefined;
    if (budgetProblem) throw new PerflowError('invalid', `${where}: parameters.max_cost_usd: ${budgetProblem}${options.treeBudget ? " (the root's budget covers its sub-agents)" : ''}`);
    const loaded: LoadedAgent = { agent, parameters, warnings: parameterWarnings(agent, runParams), notes: unpriced ? [unpriced] : [] };
    resolveSubAgents(loaded, where, { ...options, treeBudget: budgeted });
    return loaded;
  } catch (err) {
    if (err instanceof AgentDefinitionError) throw new PerflowError('invalid', `${where}: ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * Puts each `AgentTool` entry's sub-agent, validated and resolved (its own parameters, its
 * workflow type), into the entry: the run's input carries the tree. Its problems name the chain.
 */
function resolveSubAgents(loaded: LoadedAgent, where: string, options: LoadAgentFileOptions): void {
  loaded.agent.tools.forEach((ref, i) => {
    if (!isAgentTool(ref)) return;
    const named = (ref.parameters as unknown as AgentToolParameters).agent;
    const files = options.subAgentFiles;
    const at = `${where}: tools[${i}] "${ref.name ?? named}"`;
    if (!files) throw new PerflowError('invalid', `${at}: sub-agent files are read with the agent file: load it with loadAgentFile, or pass readSubAgentFiles(json, file) as subAgentFiles`);
    const file = resolve(dirname(files.file), named);
    if (!files.files.has(file)) throw new PerflowError('invalid', `${at}: agent file ${named} was not read (readSubAgentFiles reads every file the tree names)`);
    const sub = agentFromJson(files.files.get(file), `${at} (${named})`, {}, { ...options, subAgentFiles: { file, files: files.files } });
    const { memory_id: _m, executor_agent_memory_id: _e, ...own } = sub.parameters;
    const subAgent: SubAgent = { file: named, definition: sub.agent, workflow_type: agentTypeSpec(sub.agent.type).workflowType, sparse: sparseParameters(own) };
    ref.parameters = { ...ref.parameters, sub_agent: subAgent };
    loaded.warnings.push(...sub.warnings.map((w) => `sub-agent ${sub.agent.name}: ${w}`));
    loaded.notes.push(...sub.notes.filter((n) => !loaded.notes.includes(n)));
  });
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
  /** The run's task queue. @default the client's (PERFLOW_TASK_QUEUE) */
  taskQueue?: string;
  /** Continue this conversation (default: the `memory_id` parameter, else a new one). */
  memoryId?: string;
  /** Without a conversation to continue: start the new one under this ID (an AG-UI thread's) instead of a random one. */
  newMemoryId?: string;
  /** Run the LLM activities on this task queue. @default the client's (PERFLOW_LLM_TASK_QUEUE) */
  llmTaskQueue?: string;
  /** Start as a fork of another run (see `forkRun`). */
  fork?: ForkSource;
  /** The run's workflow ID (default: `<agent slug>-<8 hex>`); starting a second run with it fails. */
  workflowId?: string;
  /**
   * The conversation it continues is still busy with an earlier run: refuse (`reject`), run after
   * it (`enqueue`), or stop it and go on from its work so far (`interrupt`). See busy-memory.ts.
   * @default 'reject'
   */
  onBusy?: OnBusy;
  /**
   * Announce the run's end (completed, tripped, failed, cancelled) with a signed POST to this
   * http(s) URL, retried for up to 24 hours (docs/webhooks.md). Its host must be allowed by the
   * workers' policy (PERFLOW_ALLOW_HOSTS); checked here when the client's environment declares it.
   */
  webhook?: string | WebhookTarget;
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
export function resolveRunIds(o: Pick<StartRunOptions, 'memoryId' | 'newMemoryId' | 'parameters'>): {
  ids: RunIds;
  continuesConversation: boolean;
  parameters: Omit<ResolvedParameters, 'memory_id' | 'executor_agent_memory_id'>;
} {
  const { memory_id, executor_agent_memory_id, ...parameters } = o.parameters;
  const memoryId = o.memoryId ?? memory_id;
  const ids: RunIds = {
    memory_id: memoryId ?? o.newMemoryId ?? randomUUID(),
    parent_interaction_id: randomUUID(),
    executor_agent_memory_id: executor_agent_memory_id ?? randomUUID(),
    executor_agent_parent_interaction_id: randomUUID(),
  };
  return { ids, continuesConversation: memoryId !== undefined, parameters };
}

/**
 * `makeRoom` for a run continuing a conversation. A namespace without the `PerflowMemory` search
 * attribute cannot tell which runs a conversation is busy with: the default goes on unchecked (as
 * before the attribute; the worker names it at start), a choice made explicitly fails naming it.
 */
async function roomOnConversation(client: Client, memoryId: string, workflowId: string, onBusy: OnBusy | undefined, tenant: string | undefined): Promise<string[]> {
  try {
    return await makeRoom(client, memoryId, workflowId, onBusy ?? 'reject', tenant);
  } catch (err) {
    if (onBusy === undefined && err instanceof PerflowError && err.kind === 'unavailable') return [];
    throw err;
  }
}

/**
 * What every run's request must pass before anything starts (`startRun`'s and a schedule's):
 * the question's length, a tenant where the policy requires one, the webhook's URL. Returns the
 * webhook as the run's input carries it.
 */
export function checkRunRequest(config: PerflowClient['config'], o: Pick<StartRunOptions, 'question' | 'parameters' | 'webhook'>): WebhookTarget | undefined {
  if (o.question.length > QUESTION_MAX_CHARS) throw new PerflowError('invalid', `question: ${o.question.length} characters is above the limit of ${QUESTION_MAX_CHARS}`);
  if (config.workerPolicy?.policy.requireTenant && o.parameters.tenant_id === undefined) throw new PerflowError('refused', TENANT_REQUIRED);
  const webhook = typeof o.webhook === 'string' ? { url: o.webhook } : o.webhook;
  if (webhook) checkWebhookUrl(webhook.url, config);
  return webhook;
}

export interface RunStartRequest {
  agent: AgentDefinition;
  /** Without the memory IDs (`resolveRunIds` takes them out): those are `ids`. */
  parameters: Omit<ResolvedParameters, 'memory_id' | 'executor_agent_memory_id'>;
  question: string;
  /** The run's memory IDs; those left out are generated by the run (a schedule's runs). */
  ids: Partial<RunIds>;
  continuesConversation: boolean;
  llmTaskQueue?: string;
  fork?: ForkSource;
  after?: string[];
  webhook?: WebhookTarget;
}

/**
 * The run's input, memo, UI texts and search attributes, and its workflow type: what `startRun`
 * starts and a schedule's action starts at each firing, built the same way.
 */
export function buildRunStart(config: PerflowClient['config'], o: RunStartRequest): { start: RunStart; workflowType: string } {
  // Default prompts travel as the name of their set, not as text (see sparseParameters).
  const start = runStart({ agent: o.agent, question: o.question, sparse: sparseParameters(o.parameters), ids: o.ids, continuesConversation: o.continuesConversation, llmTaskQueue: o.llmTaskQueue ?? config.llmTaskQueue, fork: o.fork, version: packageVersion(), after: o.after, ...(o.webhook ? { webhook: o.webhook } : {}) });
  return { start, workflowType: agentTypeSpec(o.agent.type).workflowType };
}

/** Starts a run with client-chosen IDs, as the workflow type of the agent's type (its spec's, built in or added). */
export async function startRun(perflow: PerflowClient, o: StartRunOptions): Promise<StartedRun> {
  const { client, config } = perflow;
  const webhook = checkRunRequest(config, o);
  const { ids, continuesConversation, parameters } = resolveRunIds(o);
  const workflowId = o.workflowId ?? `${slug(o.agent.name)}-${randomBytes(4).toString('hex')}`;
  const after = continuesConversation ? await roomOnConversation(client, ids.memory_id, workflowId, o.onBusy, o.parameters.tenant_id) : [];
  const { start, workflowType } = buildRunStart(config, { agent: o.agent, parameters, question: o.question, ids, continuesConversation, llmTaskQueue: o.llmTaskQueue, fork: o.fork, after, webhook });
  const options = {
    taskQueue: o.taskQueue ?? config.taskQueue,
    workflowId,
    // A fork's memory copies are keyed by its run: a second fork under the same workflow ID is refused.
    ...(o.fork ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
    args: [start.input] as [RunInput],
    memo: start.memo,
    staticSummary: start.staticSummary,
    staticDetails: start.staticDetails,
  };
  let searchable: SearchAttributePair[] = start.searchAttributes;
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
