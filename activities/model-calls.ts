/**
 * The model calls' activities: what a planning or execution call sends (system prompt and
 * messages assembled from the run's prompt material, completed steps and executor history, read
 * through the worker's caches), the tenant's daily cap around it, and the answer streamed to the
 * run's event stream as the model writes it.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EarlierStepsRef, ExecutorCallInput, ExecutorStepMemory, MaterialRef, PlannerAnswer, PlannerCallInput, PlannerPromptRef, PromptMaterial, StoredToolResult, TenantChecked, WholeResultsRef, ModelSettings } from '../core/activity-contract';
import { addUsage, ZERO_USAGE, type ChatMessage, type ChatResponse, type RawChatResponse, type Usage } from '../core/llm-types';
import { perflowModelParameters } from '../core/agent-file/model-parameters';
import { completedStepIds, stepTraceId } from '../core/memory-ids';
import { fillEarlierSteps, fillWholeResults, formatCompletedSteps, formatSteps, renderTemplate, type CompletedStep } from '../core/template';
import { compactToFit, executorCompactable, plannerCompactable } from './context-window';
import type { TenantBudgets } from '../stores/tenant-budgets';
import { tenantCostOf, tenantPriceProblem } from '../telemetry/model-prices';
import { withHeartbeat } from './heartbeat';
import { chat, type ChatDeps } from './llm/chat';
import type { CallSpanOwner } from '../telemetry/model-and-tool-calls';
import type { ChatRequest } from './llm/scripted';
import { saveStep, toolCallId } from './memory';
import { keepCarriedTurn, withCarriedTurns, type CarriedTurns } from './carried-turns';
import { outputForModel } from './tool-calls';
import { checkModel, type PolicyDeps } from './policy';
import { activityStream, EVENTS_BEFORE_HOLD_MS, handedToolCalls, type ActivityStream } from './run-events';
import { joinedEvents, wholeKeys, type HandedToolCall } from '../core/run-events';
import { NOT_MADE, withinTenantBudget } from './tenant-budgets';
import type { completedStepCache, earlierStepsCache, executorHistoryCache, promptMaterialCache, toolAnswerCache } from './worker-caches';
import type { MemoryStore } from '../stores/store';
import type { RunEventLog } from '../stores/run-events';

/** What the model calls use: the worker's clients and stores, and its caches of what never changes. */
export type ModelCallDeps = ChatDeps &
  PolicyDeps & {
    memory: MemoryStore;
    events?: RunEventLog;
    prompts: ReturnType<typeof promptMaterialCache>;
    earlierSteps: ReturnType<typeof earlierStepsCache>;
    toolAnswers?: ReturnType<typeof toolAnswerCache>;
    executorHistory: ReturnType<typeof executorHistoryCache>;
    completedSteps: ReturnType<typeof completedStepCache>;
    tenantBudgets: () => TenantBudgets;
    carriedTurns: CarriedTurns;
  };

/** The activity names of model calls (a worker serving the LLM task queue registers these). */
export const MODEL_ACTIVITY_NAMES = ['planningModel', 'executionModel', 'typedOutput', 'checkGuardrails', 'scoreRun', 'plannerLlm', 'executorLlm'] as const;

export async function planningModel(deps: ModelCallDeps, input: PlannerCallInput): Promise<TenantChecked<PlannerAnswer>> {
  // One stream for the call: the run's events handed to it go out in its first write, whatever
  // writes first — streamed, the first piece of text, unless the model is slow to it; else at once.
  const streaming = perflowModelParameters(input.model.parameters).stream !== false;
  const stream = activityStream(deps.events, input.events_before && { ...input.events_before, holdMs: streaming ? EVENTS_BEFORE_HOLD_MS : 0 });
  try {
    return await withinTenantBudget(deps.tenantBudgets, input.tenant, () => plannedCall(deps, input, stream), () => NOT_MADE, Date.now, (answer) => tenantCostOf(input.model, answer.usage), (t) => tenantPriceProblem(input.model, t));
  } finally {
    await stream?.close();
  }
}

export async function executionModel(deps: ModelCallDeps, input: ExecutorCallInput): Promise<TenantChecked<ChatResponse>> {
  const answer = await withinTenantBudget(deps.tenantBudgets, input.tenant, () => executionCall(deps, input), () => NOT_MADE, Date.now, (answer) => tenantCostOf(input.model, answer.usage), (t) => tenantPriceProblem(input.model, t));
  // Held back at the tenant's cap, the call wrote nothing: the run's events it was handed wait for no one (a retry's copy keeps its keys).
  const before = answer.tenant_budget && runEventsBefore(input);
  if (before) await activityStream(deps.events, { ...before, holdMs: 0 })?.close();
  return answer;
}

/** The run's events handed to an execution call, keys whole: relative to the step's run (`step_memory.run_id`) unless they say whose. */
const runEventsBefore = ({ events_before, step_memory }: ExecutorCallInput) => events_before && wholeKeys({ ...events_before, key_run: events_before.key_run ?? step_memory?.run_id });

async function plannedCall(deps: ModelCallDeps, input: PlannerCallInput, stream: ActivityStream | undefined): Promise<PlannerAnswer> {
  // Before anything reaches the model: a compaction's summary call is a call of it too.
  checkModel(deps, input.model);
  // Loading the material and the completed steps from MongoDB counts as work: heartbeat through it too.
  const response = await withHeartbeat(async () => {
    const material = input.material_id ? await deps.prompts.get(input.material_id) : undefined;
    const system = systemOf(input, material);
    const { prompt, usage } = input.render ? await plannerPrompt(deps, input, input.render, material, system, stream) : await wholePrompt(deps, input, system);
    const answer = await streamedChat(
      deps,
      input.model,
      { system, messages: [{ role: 'user', content: await withWholeResults(deps, input.whole_results, prompt) }], position: input.position, response_filter: input.response_filter },
      { agent: input.agent, conversation: conversationOf(input, material), handTail: input.workflow_publishes_tail === true, stream },
    );
    return { ...answer, usage: addUsage(answer.usage, usage) };
  });
  return { text: response.content, usage: response.usage, ...(response.tail_from !== undefined ? { tail_from: response.tail_from } : {}) };
}

/** A prompt with nothing that may go: checked against the model's window all the same (a prompt too long fails here, in one line). */
async function wholePrompt(deps: ModelCallDeps, input: PlannerCallInput, system: string): Promise<{ prompt: string; usage: Usage }> {
  const prompt = await withEarlierSteps(deps, input.earlier_steps, input.prompt ?? '');
  await compactToFit(deps, input.model, plannerCompactable([], () => prompt, 0, system));
  return { prompt, usage: ZERO_USAGE };
}

/** The planner prompt, its oldest completed steps compacted when it would not fit the model's context window. */
async function plannerPrompt(deps: ModelCallDeps, input: PlannerCallInput, ref: PlannerPromptRef, material: PromptMaterial | undefined, system: string, stream: ActivityStream | undefined): Promise<{ prompt: string; usage: Usage }> {
  const { completed, render } = await plannerTemplate(deps.completedSteps, ref, material);
  const fit = plannerCompactable(completed, render, ref.history_count ?? 0, system, ref.run_steps?.trace_root);
  const compaction = await compactToFit(deps, input.model, fit, stream);
  const shown = fit.steps(compaction?.dropped ?? 0, compaction?.placeholder ?? '');
  return { prompt: render(shown.steps, shown.historyCount), usage: compaction?.usage ?? ZERO_USAGE };
}

async function executionCall(deps: ModelCallDeps, input: ExecutorCallInput): Promise<ChatResponse> {
  // Before anything reaches the model: a compaction's summary call is a call of it too.
  checkModel(deps, input.model);
  return withHeartbeat(async () => {
    const { model, material_id, system_key: _key, tool_names, step_memory, whole_results, earlier_steps, agent, tenant: _tenant, stored_tool_results, events_before, ...withStored } = input;
    const filled = await withStoredToolResults(deps, withStored.messages, step_memory, stored_tool_results);
    const request = { ...withStored, messages: await withCarriedTurns(deps, filled, step_memory) };
    // The turn's tool calls handed their events on: they go out in its first write (see `planningModel`).
    const streaming = perflowModelParameters(model.parameters).stream !== false;
    // And the run's events that started the step, on its first turn: before them.
    const handedTools = step_memory && handedToolCalls(step_memory.step_index, handedOn(request.messages, stored_tool_results), 0);
    // Their keys relative to the run (`#…`) unless they say whose: the step's run's (`step_memory.run_id`).
    const handed = joinedEvents(runEventsBefore(input), handedTools);
    // Only the step's start goes on, from an executor turn that writes nothing (tool events handed to it are written by it).
    const handsOn = step_memory !== undefined && events_before !== undefined && handedTools === undefined;
    const stream = activityStream(deps.events, handed && { ...handed, holdMs: streaming ? EVENTS_BEFORE_HOLD_MS : 0 });
    try {
      const material = material_id ? await deps.prompts.get(material_id) : undefined;
      const tools = tool_names && material ? material.tools.filter((t) => tool_names.includes(t.name)) : request.tools;
      const asked =
        whole_results || earlier_steps
          ? await Promise.all(request.messages.map(async (m) => (m.role === 'user' ? { ...m, content: await withWholeResults(deps, whole_results, await withEarlierSteps(deps, earlier_steps, m.content)) } : m)))
          : request.messages;
      const prefix = step_memory ? await deps.executorHistory.get(step_memory) : [];
      const system = systemOf(input, material);
      // The step's task: the last message before this step's turns (a prompt call: its first user message).
      const task = step_memory ? prefix.length - 1 : asked.findIndex((m) => m.role === 'user');
      const fit = executorCompactable([...prefix, ...asked], task, system + JSON.stringify(tools ?? []), {
        step: step_memory?.step_index,
        root: step_memory?.ids.parent_interaction_id,
        ...(step_memory ? { owner: { memory_id: step_memory.ids.memory_id, ...(step_memory.ids.tenant_id !== undefined ? { tenant_id: step_memory.ids.tenant_id } : {}) } } : {}),
      });
      const compaction = await compactToFit(deps, model, fit, stream);
      const messages = fit.messages(compaction?.dropped ?? 0, compaction?.placeholder ?? '');
      const { carry, ...answer } = await streamedChat(deps, model, { ...request, messages, system, ...(tools ? { tools } : {}) }, { step: step_memory?.step_index, agent, conversation: conversationOf(input, material), stream, handOnIfSilent: handsOn });
      // Kept in memory for the step's next turn: what the provider carries never reaches the workflow.
      const carried = await keepCarriedTurn(deps, step_memory, answer.tool_calls, carry);
      const response = { ...answer, ...(compaction ? { usage: addUsage(answer.usage, compaction.usage) } : {}), ...(carried ? { carried } : {}) };
      // A final answer is the step's result; saving it is idempotent, so a retried turn saves what it answers.
      if (step_memory && response.tool_calls.length === 0) {
        const saved = await saveStep(deps.memory, { ids: step_memory.ids, stepIndex: step_memory.step_index, step: step_memory.step, result: response.content });
        if (step_memory.run_id !== undefined) deps.completedSteps.remember(step_memory.run_id, saved, { step: step_memory.step, result: response.content });
      }
      return response;
    } finally {
      await stream?.close();
    }
  });
}

/** The tool calls whose events were handed on to this turn (`StoredToolResult.events`): their input and answer, from its messages. */
function handedOn(messages: ChatMessage[], stored: StoredToolResult[] | undefined): HandedToolCall[] {
  // A result's call is in the assistant turn it answers: ids are unique within a turn only (a compatible server may repeat `call_0` every turn).
  const inputs = new Map<number, Record<string, unknown> | undefined>();
  let turn = new Map<string, Record<string, unknown>>();
  messages.forEach((m, i) => {
    if (m.role === 'assistant') turn = new Map((m.tool_calls ?? []).map((c) => [c.id, c.input]));
    else if (m.role === 'tool') inputs.set(i, turn.get(m.tool_call_id));
  });
  return (stored ?? []).flatMap((s) => {
    const m = messages[s.message];
    if (s.events === undefined || m?.role !== 'tool') return [];
    return [{ call: s.call, tool: m.name, input: inputs.get(s.message), output: m.content, ok: m.is_error !== true, ...(s.events === 'result' ? { call_published: true } : {}) }];
  });
}

/**
 * A model call whose text goes to the run's event stream as the model writes it; with
 * `llm.parameters.stream` false the provider is not asked to stream and the answer is published
 * whole when it is there.
 */
async function streamedChat(deps: ModelCallDeps, model: ModelSettings, request: ChatRequest, call: CallSpanOwner & { step?: number; handTail?: boolean; handOnIfSilent?: boolean; stream?: ActivityStream }): Promise<Omit<RawChatResponse, 'raw'> & { tail_from?: number }> {
  const owner = { agent: call.agent, conversation: call.conversation };
  const stream = call.stream ?? activityStream(deps.events);
  if (!stream) return chat(model, request, deps, undefined, owner);
  const text = stream.modelText(request.position, call.step);
  const streaming = perflowModelParameters(model.parameters).stream !== false;
  let response: Omit<RawChatResponse, 'raw'> | undefined;
  let tail_from: number | undefined;
  try {
    response = await chat(model, request, deps, streaming ? text.push : undefined, owner);
    // Unstreamed, the answer is one piece (left whole to the workflow with `handTail`).
    if (!streaming && !call.handTail) text.push(response.content);
  } finally {
    // With `handTail`, the unpublished end of the answer goes to the workflow (one write fewer).
    // With `handOnIfSilent`, a turn asking for tool calls that wrote nothing hands the step's start on to them (one write fewer).
    tail_from = await text.end(call.handTail ? response?.content : undefined, call.handOnIfSilent === true && (response?.tool_calls.length ?? 0) > 0 && response?.content === '');
  }
  return tail_from !== undefined ? { ...response, tail_from } : response;
}

/** The turns with the tool outputs they name read back from memory (see `stored_tool_results`). */
async function withStoredToolResults(deps: ModelCallDeps, messages: ChatMessage[], step: ExecutorStepMemory | undefined, stored: StoredToolResult[] | undefined): Promise<ChatMessage[]> {
  if (!stored?.length) return messages;
  if (!step) throw ApplicationFailure.nonRetryable('stored_tool_results needs step_memory: the step whose tool calls hold them', 'Contract.Broken');
  const place = (call: number) => ({ ids: step.ids, stepIndex: step.step_index, callIndex: call });
  // The answers this worker gave, where the workflow received them; memory for the others.
  const answers = new Map(stored.flatMap((s) => {
    const id = toolCallId(place(s.call));
    const mine = deps.toolAnswers?.matching(id, s.digest);
    return mine !== undefined ? [[id, mine] as const] : [];
  }));
  const missing = stored.filter((s) => !answers.has(toolCallId(place(s.call))));
  // One `_id` lookup each (the store's hot-path rule): FerretDB answers an `$in` by scanning every interaction ever stored.
  const found = missing.length > 0 ? await deps.memory.findInteractions(missing.map((s) => toolCallId(place(s.call)))) : [];
  missing.forEach((s, i) => {
    const doc = found[i];
    if (doc) answers.set(doc._id, outputForModel(place(s.call), doc.response ?? ''));
  });
  const filled = [...messages];
  for (const s of stored) {
    const answer = answers.get(toolCallId(place(s.call)));
    // Saved before the call answered: missing, the memory is not (yet) readable here; the attempt is retried.
    if (answer === undefined) throw new Error(`tool call ${toolCallId(place(s.call))} is not in memory yet`);
    const message = filled[s.message];
    if (message?.role === 'tool') filled[s.message] = { ...message, content: answer };
  }
  return filled;
}

/** The prompt with the whole results of the steps it marks, read from memory (an assessment judges the result, not its preview). */
async function withWholeResults(deps: ModelCallDeps, ref: WholeResultsRef | undefined, prompt: string): Promise<string> {
  if (!ref) return prompt;
  const steps = await deps.completedSteps.find(ref.units.map((unit) => stepTraceId(ref.ids.parent_interaction_id, unit)));
  return fillWholeResults(prompt, new Map(ref.units.map((unit, i) => [unit, steps[i]?.result ?? ''])));
}

/** The prompt with the run's earlier steps (no longer carried by its state) at their markers, read from memory. */
async function withEarlierSteps(deps: ModelCallDeps, ref: EarlierStepsRef | undefined, prompt: string): Promise<string> {
  if (!ref || !prompt.includes('⟦earlier steps: ')) return prompt;
  const parts = await Promise.all(Array.from({ length: ref.chunks }, (_, k) => deps.earlierSteps.get(`${ref.id}-${k}`)));
  const kinds = new Set(parts.flatMap((p) => Object.keys(p)));
  return fillEarlierSteps(prompt, new Map([...kinds].map((kind) => [kind, parts.flatMap((p) => (p[kind] ? [p[kind]] : [])).join('\n')])));
}

/** The run's memory ID for the call's span: from the step's or the results' IDs, else from the material (absent in runs recorded before). */
function conversationOf(input: { step_memory?: ExecutorStepMemory; whole_results?: WholeResultsRef }, material: PromptMaterial | undefined): string | undefined {
  return input.step_memory?.ids.memory_id ?? input.whole_results?.ids.memory_id ?? material?.memory_id;
}

/** The call's system prompt: its own, or the material's it names. */
function systemOf(input: MaterialRef & { system?: string }, material: PromptMaterial | undefined): string {
  if (input.system !== undefined) return input.system;
  if (material && input.system_key) return material.systems[input.system_key];
  return '';
}

/** The planner's completed steps, and its template rendered over any list of them. */
async function plannerTemplate(steps: ReturnType<typeof completedStepCache>, ref: PlannerPromptRef, material: PromptMaterial | undefined) {
  const completed = await steps.get(completedStepIds(ref));
  const params = ref.params ?? material?.params ?? {};
  const template = ref.template ?? (ref.template_key !== undefined ? params[ref.template_key] : undefined) ?? '';
  const format = ref.format ?? 'perflow';
  const render = (shown: CompletedStep[], historyCount: number) =>
    renderTemplate(template, { ...params, steps: formatSteps(ref.steps, format), completed_steps: formatCompletedSteps(shown, format, historyCount) }) + (ref.suffix ?? '');
  return { completed, render };
}
