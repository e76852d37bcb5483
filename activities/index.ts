/**
 * All I/O of perflow runs here. `createActivities(deps)` receives its dependencies so the
 * worker hands in real ones and tests hand in scripted or real ones.
 *
 * Over 300 lines on purpose: it is the one table of activities (the names workflows schedule)
 * with the worker's caches every model call shares; the calls' own work lives in llm/, tools/,
 * memory.ts, run-events.ts, tenant-budget.ts, eval.ts and policy.ts (the worker policy).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AgentTool, AgentToolRef, ExecutorCallInput, ExecutorStepMemory, MaterialRef, PlannerCallInput, PlannerPromptRef, PromptMaterial, TenantChecked, ToolCallInput, ToolObservation, WholeResultsRef } from '../core/contract';
import type { ChatMessage, ChatResponse, Usage } from '../core/llm-types';
import { toolTimeoutSeconds } from '../core/tool-types';
import { withHeartbeat } from './heartbeat';
import { observeToolCall } from '../telemetry/model-and-tool-calls';
import { chat, type ChatDeps } from './llm/chat';
import { createEvalActivities } from './eval';
import { executorOpening, fillWholeResults, formatCompletedSteps, formatSteps, renderTemplate, type CompletedStep } from '../core/template';
import { completedStepIds, stepTraceId } from '../core/memory-ids';
import { createMemoryActivities, directReads, loadExecutorHistory, saveStep, saveToolCall, toolCallId } from './memory';
import { allFound, type MemoryStore } from '../memory/store';
import type { TenantBudgets } from '../memory/tenant-budgets';
import { NOT_MADE, openTenantBudgets, withinTenantBudget } from './tenant-budget';
import { tenantCostOf } from '../telemetry/model-prices';
import { toolSpec, type ToolRegistry } from './tools/tool';
import { activityStream } from './run-events';
import { perflowModelParameters } from '../core/agent-file/model-parameters';
import { toolCallName } from '../core/run-events';
import type { RunEventLog } from '../memory/run-events';
import type { ChatRequest } from './llm/scripted';
import type { ModelSettings } from '../core/contract';
import { checkMcpServers, checkModel, policySecrets, type PolicyDeps } from './policy';
import { callMcpTool, listMcpTools, MCP_TOOL_TYPE, mcpNeedsApproval, type McpToolParameters, type SecretReader } from './tools/mcp';
import type { McpServerConfig } from '../core/agent';

export interface ActivityDeps extends ChatDeps, PolicyDeps {
  tools: ToolRegistry;
  memory: MemoryStore;
  /** The worker's environment variables, for `${NAME}` references in MCP servers' env and headers (none without). */
  secret?: SecretReader;
  /** The runs' event streams: model text, tool calls and results are published as they happen (none without). */
  events?: RunEventLog;
}

export type { AgentTool, AgentToolRef, ExecutorCallInput, PlannerCallInput, PlannerPromptRef, ToolCallInput, ToolObservation };

/**
 * Longest tool output the model sees (characters). Longer outputs are stored whole in memory
 * and cut here with a marker, so neither the prompt nor the workflow history grows with them.
 */
export const TOOL_OUTPUT_MODEL_LIMIT = 8_000;

export function createActivities(activityDeps: ActivityDeps) {
  const completedSteps = completedStepCache(activityDeps.memory);
  let budgets: TenantBudgets | undefined;
  const deps = {
    ...activityDeps,
    prompts: promptMaterialCache(activityDeps.memory),
    executorHistory: executorHistoryCache(activityDeps.memory, completedSteps),
    completedSteps,
    // Opened on the first call of a run with a tenant.
    tenantBudgets: () => (budgets ??= openTenantBudgets(activityDeps.memory.db)),
  };
  return {
    ...createMemoryActivities(deps.memory),
    ...createEvalActivities(deps),

    /** The tools an agent may use: what the model sees (name, description, JSON schema) and how to run each. */
    async describeTools({ tools, mcp_servers = [] }: { tools: AgentToolRef[]; mcp_servers?: McpServerConfig[] }): Promise<AgentTool[]> {
      const builtin = tools.map((ref): AgentTool => {
        const tool = deps.tools.get(ref.type);
        if (!tool) {
          throw ApplicationFailure.nonRetryable(
            `unknown tool type "${ref.type}"; this worker has: ${[...deps.tools.keys()].join(', ') || 'no tools'}`,
            'Tool.Unknown',
          );
        }
        const spec = toolSpec(tool, ref.name ?? tool.type, ref.description ?? namesAsListed(tool.description, tools));
        // The seed's tool attributes: the schema the model is shown, and strict function calling.
        const { input_schema, strict } = ref.attributes ?? {};
        return { spec: { ...spec, ...(input_schema ? { input_schema } : {}), ...(strict !== undefined ? { strict } : {}) }, ref };
      });
      // Before anything is started or reached: the worker policy.
      checkMcpServers(deps, mcp_servers);
      const mcp = (await listMcpTools(mcp_servers, policySecrets(deps, deps.secret ?? noSecrets))).map(
        ({ spec, parameters }): AgentTool => ({
          spec,
          ref: { type: MCP_TOOL_TYPE, name: spec.name, parameters: { ...parameters }, ...(mcpNeedsApproval(parameters.server, parameters.tool) ? { requires_approval: true } : {}) },
        }),
      );
      return [...builtin, ...mcp];
    },

    /** A planning-model call: the planner of plan_execute_and_reflect, the planning model of the other agent types. */
    planningModel: (input: PlannerCallInput) => planningModel(deps, input),
    /** An execution-model call: a ReAct turn with tools, or a decision / assessment prompt. */
    executionModel: (input: ExecutorCallInput) => executionModel(deps, input),
    /** `planningModel` under the name runs recorded before the rename schedule (they replay with it). */
    plannerLlm: (input: PlannerCallInput) => planningModel(deps, input),
    /** `executionModel` under the name runs recorded before the rename schedule. */
    executorLlm: (input: ExecutorCallInput) => executionModel(deps, input),

    /** Runs one tool call; bad input and tool errors become observations the model can act on. */
    async callTool({ tool: ref, input, place }: ToolCallInput): Promise<ToolObservation> {
      const name = ref.name ?? ref.type;
      const stream = activityStream(deps.events);
      const call = toolCallName(place.stepIndex, place.callIndex);
      stream?.toolCall(place.stepIndex, name, call, input);
      const observation = await withHeartbeat(() => observeToolCall(deps, { name, type: ref.type }, () => runTool(deps, ref, input)));
      await saveToolCall(deps.memory, place, { name, input, output: observation.content, is_error: observation.is_error });
      await stream?.toolResult(place.stepIndex, name, call, !observation.is_error, observation.content);
      if (observation.content.length <= TOOL_OUTPUT_MODEL_LIMIT) return observation;
      const marker = `\n…[truncated: the tool returned ${observation.content.length} characters; the whole output is stored in memory as interaction ${toolCallId(place)}]`;
      return { ...observation, content: observation.content.slice(0, TOOL_OUTPUT_MODEL_LIMIT) + marker };
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

type ModelCallDeps = ActivityDeps & {
  prompts: ReturnType<typeof promptMaterialCache>;
  executorHistory: ReturnType<typeof executorHistoryCache>;
  completedSteps: ReturnType<typeof completedStepCache>;
  tenantBudgets: () => TenantBudgets;
};

/** The activity names of model calls (a worker serving the LLM task queue registers these). */
export const MODEL_ACTIVITY_NAMES = ['planningModel', 'executionModel', 'plannerLlm', 'executorLlm'] as const;

function planningModel(deps: ModelCallDeps, input: PlannerCallInput): Promise<TenantChecked<{ text: string; usage: Usage }>> {
  return withinTenantBudget(deps.tenantBudgets, input.tenant, () => plannedCall(deps, input), () => NOT_MADE, Date.now, (answer) => tenantCostOf(input.model, answer.usage));
}

function executionModel(deps: ModelCallDeps, input: ExecutorCallInput): Promise<TenantChecked<ChatResponse>> {
  return withinTenantBudget(deps.tenantBudgets, input.tenant, () => executionCall(deps, input), () => NOT_MADE, Date.now, (answer) => tenantCostOf(input.model, answer.usage));
}

async function plannedCall(deps: ModelCallDeps, input: PlannerCallInput): Promise<{ text: string; usage: Usage }> {
  // Loading the material and the completed steps from MongoDB counts as work: heartbeat through it too.
  const response = await withHeartbeat(async () => {
    const material = input.material_id ? await deps.prompts.get(input.material_id) : undefined;
    return streamedChat(
      deps,
      input.model,
      {
        system: systemOf(input, material),
        messages: [{ role: 'user', content: await withWholeResults(deps, input.whole_results, input.render ? await renderPlannerPrompt(deps.completedSteps, input.render, material) : (input.prompt ?? '')) }],
        position: input.position,
        response_filter: input.response_filter,
      },
      { agent: input.agent },
    );
  });
  return { text: response.content, usage: response.usage };
}

async function executionCall(deps: ModelCallDeps, input: ExecutorCallInput): Promise<ChatResponse> {
  return withHeartbeat(async () => {
    const { model, material_id, system_key: _key, tool_names, step_memory, whole_results, agent, tenant: _tenant, ...request } = input;
    const material = material_id ? await deps.prompts.get(material_id) : undefined;
    const tools = tool_names && material ? material.tools.filter((t) => tool_names.includes(t.name)) : request.tools;
    const asked = whole_results
      ? await Promise.all(request.messages.map(async (m) => (m.role === 'user' ? { ...m, content: await withWholeResults(deps, whole_results, m.content) } : m)))
      : request.messages;
    const messages = step_memory ? [...(await deps.executorHistory.get(step_memory)), ...asked] : asked;
    const response = await streamedChat(deps, model, { ...request, messages, system: systemOf(input, material), ...(tools ? { tools } : {}) }, { step: step_memory?.step_index, agent });
    // A final answer is the step's result; saving it is idempotent, so a retried turn saves what it answers.
    if (step_memory && response.tool_calls.length === 0) {
      const saved = await saveStep(deps.memory, { ids: step_memory.ids, stepIndex: step_memory.step_index, step: step_memory.step, result: response.content });
      if (step_memory.run_id !== undefined) deps.completedSteps.remember(step_memory.run_id, saved, { step: step_memory.step, result: response.content });
    }
    return response;
  });
}

/**
 * A model call whose text goes to the run's event stream as the model writes it; with
 * `llm.parameters.stream` false the provider is not asked to stream and the answer is published
 * whole when it is there.
 */
async function streamedChat(deps: ModelCallDeps, model: ModelSettings, request: ChatRequest, call: { step?: number; agent?: string }): Promise<ChatResponse> {
  checkModel(deps, model);
  const stream = activityStream(deps.events);
  if (!stream) return chat(model, request, deps, undefined, call.agent);
  const text = stream.modelText(request.position, call.step);
  const streaming = perflowModelParameters(model.parameters).stream !== false;
  try {
    const response = await chat(model, request, deps, streaming ? text.push : undefined, call.agent);
    if (!streaming) text.push(response.content);
    return response;
  } finally {
    await text.end();
  }
}

/** The prompt with the whole results of the steps it marks, read from memory (an assessment judges the result, not its preview). */
async function withWholeResults(deps: ModelCallDeps, ref: WholeResultsRef | undefined, prompt: string): Promise<string> {
  if (!ref) return prompt;
  const steps = await deps.completedSteps.find(ref.units.map((unit) => stepTraceId(ref.ids.parent_interaction_id, unit)));
  return fillWholeResults(prompt, new Map(ref.units.map((unit, i) => [unit, steps[i]?.result ?? ''])));
}

/** The call's system prompt: its own, or the material's it names. */
function systemOf(input: MaterialRef & { system?: string }, material: PromptMaterial | undefined): string {
  if (input.system !== undefined) return input.system;
  if (material && input.system_key) return material.systems[input.system_key];
  return '';
}

async function renderPlannerPrompt(steps: ReturnType<typeof completedStepCache>, ref: PlannerPromptRef, material: PromptMaterial | undefined): Promise<string> {
  const completed = await steps.get(completedStepIds(ref));
  const params = ref.params ?? material?.params ?? {};
  const template = ref.template ?? (ref.template_key !== undefined ? params[ref.template_key] : undefined) ?? '';
  const format = ref.format ?? 'perflow';
  const prompt = renderTemplate(template, { ...params, steps: formatSteps(ref.steps, format), completed_steps: formatCompletedSteps(completed, format, ref.history_count ?? 0) });
  return prompt + (ref.suffix ?? '');
}

/** A bounded map that forgets its oldest entry first: the worker's caches of what never changes. */
function boundedCache<K, V>(load: (key: K) => Promise<V>, keyOf: (key: K) => string, max: number) {
  const cache = new Map<string, V>();
  return {
    async get(key: K): Promise<V> {
      const id = keyOf(key);
      const hit = cache.get(id);
      if (hit !== undefined) return hit;
      const value = await load(key);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(id, value);
      return value;
    },
  };
}

/**
 * Completed steps (earlier exchanges, step traces, executor step records) by interaction ID,
 * cached in the worker per workflow execution of their run: once a step is saved it does not
 * change in that execution (a retried save writes what the step returned), while a reset or
 * continue-as-new is a new execution that reads memory again. The worker remembers the steps it
 * saves, so the planner and the next executor steps read memory only for steps another worker
 * ran.
 */
export function completedStepCache(memory: MemoryStore, max = 20_000) {
  const cache = new Map<string, CompletedStep>();
  const key = (run: string, id: string) => `${run}/${id}`;
  const remember = (run: string, id: string, step: CompletedStep) => {
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(key(run, id), step);
  };
  /** The steps by ID (null where memory has none), cached under `run`: the current activity's execution unless named. */
  const find = async (ids: readonly string[], run = currentRunId()): Promise<(CompletedStep | null)[]> => {
    const known = new Map<string, CompletedStep>();
    for (const id of ids) {
      const hit = run === undefined ? undefined : cache.get(key(run, id));
      if (hit) known.set(id, hit);
    }
    const missing = [...new Set(ids.filter((id) => !known.has(id)))];
    (missing.length === 0 ? [] : await memory.findInteractions(missing)).forEach((doc, i) => {
      if (!doc) return;
      const step = { step: doc.input, result: doc.response };
      known.set(missing[i], step);
      if (run !== undefined) remember(run, missing[i], step);
    });
    return ids.map((id) => known.get(id) ?? null);
  };
  return {
    find,
    /** The steps by ID; throws naming the IDs memory does not have. */
    get: async (ids: readonly string[]): Promise<CompletedStep[]> => allFound(ids, await find(ids)),
    /** A step this worker saved, under the IDs it saved it as. */
    remember: (run: string, ids: readonly string[], step: CompletedStep) => ids.forEach((id) => remember(run, id, step)),
  };
}

/** The workflow execution the current activity works for (undefined outside an activity). */
function currentRunId(): string | undefined {
  try {
    return Context.current().info.workflowExecution?.runId;
  } catch {
    return undefined;
  }
}

/** Prompt material by ID, cached in the worker: a run's material never changes. */
export function promptMaterialCache(memory: MemoryStore, max = 500) {
  return boundedCache((id: string) => memory.promptMaterial(id), (id) => id, max);
}

/**
 * The opening messages of an executor step's turns: its earlier steps (question → answer) and
 * the step. Cached per step of a run's execution, so every turn of a step sees the same earlier
 * steps and only the first reads them (a reset run executes its steps anew).
 */
export function executorHistoryCache(memory: MemoryStore, steps: ReturnType<typeof completedStepCache>, max = 1_000) {
  // Which run created an executor memory never changes.
  const firstRuns = boundedCache(async (id: string) => ({ first_run: (await memory.memory(id))?.first_run }), (id) => id, max);
  const firstRun = async (id: string) => (await firstRuns.get(id)).first_run;
  return boundedCache(
    async (m: ExecutorStepMemory): Promise<ChatMessage[]> => {
      // The run's earlier steps from the worker's cache of its execution (memory when it has no run_id).
      const reads = m.run_id === undefined ? { ...directReads(memory), firstRun } : { steps: (ids: readonly string[]) => steps.find(ids, m.run_id), firstRun };
      const earlier = await loadExecutorHistory(
        memory,
        { executor_agent_memory_id: m.ids.executor_agent_memory_id, limit: m.history_limit, before_step: m.step_index, ids: m.ids },
        reads,
      );
      return executorOpening(earlier, m.step);
    },
    (m) => `${m.run_id ?? ''}/${m.ids.executor_agent_memory_id}/${m.step_index}/${m.history_limit}/${m.step}`,
    max,
  );
}

const noSecrets: SecretReader = () => undefined;

/** A built-in description with the other tools it mentions under the names the agent lists them by (a seed's `ListIndexTool` …). */
function namesAsListed(description: string, tools: readonly AgentToolRef[]): string {
  return tools.reduce((text, t) => (t.name !== undefined && t.name !== t.type ? text.replaceAll(t.type, t.name) : text), description);
}

async function runTool(deps: ActivityDeps, ref: AgentToolRef, input: Record<string, unknown>): Promise<ToolObservation> {
  const { tools } = deps;
  if (ref.type === MCP_TOOL_TYPE) {
    const parameters = ref.parameters as unknown as McpToolParameters;
    // The server was allowed when the run listed its tools; the policy may have changed since.
    checkMcpServers(deps, [parameters.server]);
    try {
      return await callMcpTool(parameters, input, policySecrets(deps, deps.secret ?? noSecrets));
    } catch (err) {
      return { content: `Error: ${ref.name ?? 'MCP tool'} failed: ${(err as Error).message}`, is_error: true };
    }
  }
  const tool = tools.get(ref.type);
  if (!tool) return { content: `Error: tool type "${ref.type}" is not available on this worker`, is_error: true };
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
    return { content: `Error: invalid input for ${ref.name ?? ref.type}: ${problems}`, is_error: true };
  }
  const seconds = toolTimeoutSeconds(ref.parameters);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${seconds} s`)), seconds * 1000);
  });
  try {
    return { content: await Promise.race([tool.run(parsed.data as never, ref.parameters ?? {}), timeout]), is_error: false };
  } catch (err) {
    return { content: `Error: ${ref.name ?? ref.type} failed: ${(err as Error).message}`, is_error: true };
  } finally {
    clearTimeout(timer);
  }
}
