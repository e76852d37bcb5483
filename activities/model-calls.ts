/**
 * The model calls' activities: what a planning or execution call sends (system prompt and
 * messages assembled from the run's prompt material, completed steps and executor history, read
 * through the worker's caches), the tenant's daily cap around it, and the answer streamed to the
 * run's event stream as the model writes it.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ExecutorCallInput, ExecutorStepMemory, MaterialRef, PlannerCallInput, PlannerPromptRef, PromptMaterial, StoredToolResult, TenantChecked, WholeResultsRef, ModelSettings } from '../core/activity-contract';
import type { ChatMessage, ChatResponse, Usage } from '../core/llm-types';
import { perflowModelParameters } from '../core/agent-file/model-parameters';
import { completedStepIds, stepTraceId } from '../core/memory-ids';
import { fillWholeResults, formatCompletedSteps, formatSteps, renderTemplate } from '../core/template';
import type { TenantBudgets } from '../stores/tenant-budgets';
import { tenantCostOf, tenantPriceProblem } from '../telemetry/model-prices';
import { withHeartbeat } from './heartbeat';
import { chat, type ChatDeps } from './llm/chat';
import type { ChatRequest } from './llm/scripted';
import { saveStep, toolCallId } from './memory';
import { outputForModel } from './tool-calls';
import { checkModel, type PolicyDeps } from './policy';
import { activityStream } from './run-events';
import { NOT_MADE, withinTenantBudget } from './tenant-budgets';
import type { completedStepCache, executorHistoryCache, promptMaterialCache } from './worker-caches';
import type { MemoryStore } from '../stores/store';
import type { RunEventLog } from '../stores/run-events';

/** What the model calls use: the worker's clients and stores, and its caches of what never changes. */
export type ModelCallDeps = ChatDeps &
  PolicyDeps & {
    memory: MemoryStore;
    events?: RunEventLog;
    prompts: ReturnType<typeof promptMaterialCache>;
    executorHistory: ReturnType<typeof executorHistoryCache>;
    completedSteps: ReturnType<typeof completedStepCache>;
    tenantBudgets: () => TenantBudgets;
  };

/** The activity names of model calls (a worker serving the LLM task queue registers these). */
export const MODEL_ACTIVITY_NAMES = ['planningModel', 'executionModel', 'plannerLlm', 'executorLlm'] as const;

export function planningModel(deps: ModelCallDeps, input: PlannerCallInput): Promise<TenantChecked<{ text: string; usage: Usage }>> {
  return withinTenantBudget(deps.tenantBudgets, input.tenant, () => plannedCall(deps, input), () => NOT_MADE, Date.now, (answer) => tenantCostOf(input.model, answer.usage), (t) => tenantPriceProblem(input.model, t));
}

export function executionModel(deps: ModelCallDeps, input: ExecutorCallInput): Promise<TenantChecked<ChatResponse>> {
  return withinTenantBudget(deps.tenantBudgets, input.tenant, () => executionCall(deps, input), () => NOT_MADE, Date.now, (answer) => tenantCostOf(input.model, answer.usage), (t) => tenantPriceProblem(input.model, t));
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
    const { model, material_id, system_key: _key, tool_names, step_memory, whole_results, agent, tenant: _tenant, stored_tool_results, ...withStored } = input;
    const request = { ...withStored, messages: await withStoredToolResults(deps, withStored.messages, step_memory, stored_tool_results) };
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

/** The turns with the tool outputs they name read back from memory (see `stored_tool_results`). */
async function withStoredToolResults(deps: ModelCallDeps, messages: ChatMessage[], step: ExecutorStepMemory | undefined, stored: StoredToolResult[] | undefined): Promise<ChatMessage[]> {
  if (!stored?.length) return messages;
  if (!step) throw ApplicationFailure.nonRetryable('stored_tool_results needs step_memory: the step whose tool calls hold them', 'Contract.Broken');
  const place = (call: number) => ({ ids: step.ids, stepIndex: step.step_index, callIndex: call });
  const ids = stored.map((s) => toolCallId(place(s.call)));
  const docs = new Map((await deps.memory.interactions.find({ _id: { $in: ids } }, { projection: { response: 1 } }).toArray()).map((d) => [d._id, d.response ?? '']));
  const filled = [...messages];
  for (const s of stored) {
    const output = docs.get(toolCallId(place(s.call)));
    // Saved before the call answered: missing, the memory is not (yet) readable here; the attempt is retried.
    if (output === undefined) throw new Error(`tool call ${toolCallId(place(s.call))} is not in memory yet`);
    const message = filled[s.message];
    if (message?.role === 'tool') filled[s.message] = { ...message, content: outputForModel(place(s.call), output) };
  }
  return filled;
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
