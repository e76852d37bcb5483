/**
 * The ReAct executor: one child workflow per plan step. Each iteration is one LLM activity
 * with the agent's tools offered, then one activity per requested tool call; the model's final
 * text is the step result. Over 300 lines on purpose: the turn loop, its tool calls (built-in,
 * sub-agent, Nexus, remote A2A with a person's answer) and their patches read best in one place.
 */
import type { AgentTool, AgentToolRef, ExecutorCallInput, StoredToolResult, ToolCallInput, ToolObservation } from '../../core/activity-contract';
import { A2A_AGENT_TOOL_TYPE } from '../../core/tool-types';
import { isAgentTool } from '../../core/agent-file/sub-agents';
import type { ToolCallPlace } from '../../core/memory-ids';
import { callNexusAgent, callSubAgent } from './sub-agents';
import { NEXUS_AGENT_TOOL_TYPE } from '../../core/nexus-agents';
import type { ModelSettings } from '../../core/activity-contract';
import { addUsage, ZERO_USAGE, type ChatMessage, type Usage } from '../../core/llm-types';
import type { MemoryIds } from '../../core/memory-ids';
import { patched, workflowInfo } from '@temporalio/workflow';
import { executorOpening } from '../../core/template';
import { preview, textDigest } from '../../core/text';
import { withheldOutput, type Guardrail, type GuardrailVerdict } from '../../core/guardrails';
import { handedToolEvents, joinedEvents, streamOf, wholeKeys, type HandedToolCall, type KeyedRunEvents } from '../../core/run-events';
import { publishKeyed, stepStartEvents, type StepEvents } from './events';
import { memoryActivities, modelActivities, toolCall } from './activity-presets';
import { modelForCall } from './scripted-calls';
import { askTenantWait, askToolApproval, tenantWaitAnswers, toolApprovalAnswers } from './human';

/** A tool as an executor child needs it: the name the model calls, and how the worker runs it. */
export interface ToolBinding {
  /** Absent: the ref's type (a tool named as its type is sent without it: a step's input is in the parent's history). */
  name?: string;
  ref: AgentToolRef;
}

export interface ReactExecutorInput {
  /** The step to execute, used as the question. */
  step: string;
  /** 0-based index of the step among the steps executed in this run. */
  stepIndex: number;
  /** The executor system prompt (runs without prompt material). */
  system_prompt?: string;
  model: ModelSettings;
  /** The tools the step may use, as `describeTools` listed them at run start (runs without prompt material). */
  tools?: AgentTool[];
  /**
   * The run's prompt material: the executor system prompt and the tools' specs come from it, so
   * this input (in the parent's history every step) and every model call stay small.
   */
  material_id?: string;
  /** With `material_id`: the tools the step may use, by name, and how the worker runs each. */
  tool_refs?: ToolBinding[];
  max_iteration: number;
  /** How many earlier steps of the executor memory to show the model. */
  message_history_limit: number;
  ids: MemoryIds;
  /** Task queue of the LLM activities (default: the workflow's). */
  llm_task_queue?: string;
  /** The agent's custom `llm_response_filter`, applied to the model's final answers. */
  response_filter?: string;
  /**
   * The parent knows the child takes the step-memory path: it then asks no patch, so the
   * child's history has no patch marker (nor the search-attribute upsert the SDK adds to each).
   * Children started without it (by older parents) ask the patch as before. `step_events` says
   * the same: every parent that sends it sent this flag, so parents since send only that.
   */
  step_memory?: true;
  /**
   * The parent knows the child's turns send earlier tool outputs by reference (`stored_tool_results`):
   * each turn's input in the child's history stays small however many iterations the step takes.
   * Children started without it (by older parents) send them whole, as they recorded. Implied by
   * `step_events`, as `step_memory` is.
   */
  tool_results_by_reference?: true;
  /** The agent file's `name`, for the cost counter of its model calls (absent from children started before it was sent). */
  agent?: string;
  /**
   * What the step may spend in US dollars (runs with `max_cost_usd`: the budget left when it
   * started). The step ends before a model call that would start at or over it, so a run
   * overshoots its budget by at most the one call each running step had started.
   */
  budget_usd?: number;
  /** The run's `tenant_id`: the model calls are held to the tenant's daily cap. */
  tenant?: string;
  /** A sub-agent's step: the agent names from the tree's root to its run (agent tools it calls go one deeper). */
  agent_path?: string[];
  /** A step with agent tools: the search attributes its run has, which its sub-agents' runs are given (a namespace may lack some). */
  search_attributes?: string[];
  /** The run's perflow version, for its sub-agents' fingerprints (steps with agent tools). */
  perflow_version?: string;
  /**
   * The run's events that started the step (the planner's last text, the plan, `step_started`;
   * see `StepEvents`): the step's first model call writes them with its first text; should none
   * be made, the step writes them as it ends (their keys keep them once).
   */
  step_events?: StepEvents;
  /** The agent's tool_output guardrails: each tool call checks its output against them (absent: none). */
  tool_guardrails?: Guardrail[];
}

/**
 * The step result is saved whole in memory by the executor; the parent keeps a bounded
 * preview, so its history does not grow with the size of step results. Flags and counts that
 * are false or 0 are left out (the parent's history holds every step's output).
 */
export interface ReactExecutorOutput {
  result_preview: string;
  result_chars: number;
  iterations: number;
  tool_calls: number;
  /** Tool calls whose observation was an error (absent: none). */
  tool_errors?: number;
  /** The iteration limit ended the step before the model gave a final answer. */
  limit_reached?: boolean;
  /** The run's dollar budget ended the step before the model gave a final answer (see `budget_usd`). */
  budget_reached?: boolean;
  /** A tool_output guardrail withheld a tool's output: the step ended there, and the run stops. */
  tripped?: GuardrailVerdict;
  usage: Usage;
}

/** A remote A2A agent's question waits for a person, and the answer goes back to its task (runs from before never got one). */
export const A2A_INPUT_REQUIRED_PATCH = 'a2a-input-required';

/** Executor turns carry their step's memory (`step_memory`) instead of separate load and save activities. */
export const STEP_MEMORY_IN_MODEL_CALLS_PATCH = 'executor-step-memory-in-model-calls';

/**
 * Whether the model calls carry the step's memory. A child the parent told so (`step_memory`)
 * asks the patch only when replaying: there it matches the marker a worker from before the
 * flag recorded (a rolling upgrade) and adds nothing when there is none; a fresh execution
 * records no marker.
 */
function takesStepMemory(input: ReactExecutorInput): boolean {
  if (!input.step_memory && input.step_events === undefined) return patched(STEP_MEMORY_IN_MODEL_CALLS_PATCH);
  if (workflowInfo().unsafe.isReplaying) patched(STEP_MEMORY_IN_MODEL_CALLS_PATCH);
  return true;
}

export async function reactExecutor(input: ReactExecutorInput): Promise<ReactExecutorOutput> {
  return runReact(input);
}

/** The ReAct loop of one step, for the executor child workflow and for other workflows' iterations. */
export async function runReact(input: ReactExecutorInput): Promise<ReactExecutorOutput> {
  // The model calls read the executor's earlier steps and save the final answer themselves:
  // a step is its model and tool calls, with no memory round trips of its own.
  const stepMemory = takesStepMemory(input) ? { ids: input.ids, step_index: input.stepIndex, step: input.step, history_limit: input.message_history_limit, run_id: workflowInfo().parent?.runId ?? workflowInfo().runId } : undefined;
  // Histories with step memory are newer than the model activities' rename.
  const models = modelActivities(input.llm_task_queue, stepMemory !== undefined);
  const finish = async (result: string, iterations: number, saved: boolean, budget_reached = false, tripped?: GuardrailVerdict): Promise<ReactExecutorOutput> => {
    if (!saved) await memoryActivities.saveStep({ ids: input.ids, stepIndex: input.stepIndex, step: input.step, result });
    const limit_reached = iterations >= input.max_iteration && !answered && !budget_reached;
    return {
      result_preview: preview(result),
      result_chars: result.length,
      iterations,
      tool_calls: toolCalls,
      ...(toolErrors > 0 ? { tool_errors: toolErrors } : {}),
      ...(limit_reached ? { limit_reached } : {}),
      ...(budget_reached ? { budget_reached } : {}),
      ...(tripped ? { tripped } : {}),
      usage,
    };
  };
  const gathered = () => (observations.length > 0 ? observations.join('\n') : 'no tool output was gathered');
  // With step memory, `messages` holds only this step's turns after the question.
  const messages: ChatMessage[] = stepMemory ? [] : await openingMessages(input);

  const bindings = input.tool_refs?.map((t) => ({ name: t.name ?? t.ref.type, ref: t.ref })) ?? (input.tools ?? []).map((t) => ({ name: t.spec.name, ref: t.ref }));
  const byName = new Map(bindings.map((t) => [t.name, t.ref]));
  // The system prompt and tool specs by reference when the run has prompt material.
  const offered =
    input.material_id !== undefined
      ? { material_id: input.material_id, system_key: 'executor' as const, tool_names: bindings.map((t) => t.name) }
      : { system: input.system_prompt ?? '', tools: (input.tools ?? []).map((t) => t.spec) };
  const allowed = [...byName.keys()];
  let usage = ZERO_USAGE;
  let toolCalls = 0;
  let toolErrors = 0;
  let answered = false;
  // People's answers to tool calls that require approval (a handler set on the first such call).
  let answers: ReturnType<typeof toolApprovalAnswers> | undefined;
  let approvals = 0;
  const observations: string[] = [];
  // At the tenant's daily cap the activity makes no call: the run waits for this child, then the turn is asked again.
  let tenantWaits: ReturnType<typeof tenantWaitAnswers> | undefined;
  let waits = 0;
  // Tool messages whose content is a tool call's output as memory holds it: sent by reference.
  const stored: StoredToolResult[] = [];
  const byReference = (input.tool_results_by_reference === true || input.step_events !== undefined) && stepMemory !== undefined;
  // Pending: the run's events that started the step, and this turn's tool calls whose activity handed
  // their events on (one write fewer a call). Each call and model call is handed what is pending, to
  // write first; what none takes (the step ends, fails or is cancelled first), the step writes as it ends.
  let handed: HandedToolCall[] = [];
  const parentRun = workflowInfo().parent?.runId;
  let stepEvents = input.step_events && parentRun !== undefined ? stepStartEvents(input.step_events, input.stepIndex, input.step, parentRun) : undefined;
  // A model call knows the run the keys are relative to (`step_memory.run_id`): its copy says nothing more.
  const forModelCall = (events: KeyedRunEvents): KeyedRunEvents => (stepMemory?.run_id === events.key_run ? { events: events.events, keys: events.keys } : events);
  const sent = (): Pick<ExecutorCallInput, 'messages' | 'stored_tool_results'> => {
    if (!byReference || stored.length === 0) return { messages };
    const empty = new Set(stored.map((s) => s.message));
    const events = new Map(handed.map((h) => [h.call, h.call_published ? ('result' as const) : ('call_and_result' as const)]));
    return { messages: messages.map((m, i) => (empty.has(i) && m.role === 'tool' ? { ...m, content: '' } : m)), stored_tool_results: stored.map((s) => (events.has(s.call) ? { ...s, events: events.get(s.call) } : s)) };
  };
  // A sub-agent's usage counts in the step's (its cost in what the step may still spend).
  const subAgentCall = async (ref: AgentToolRef, toolInput: Record<string, unknown>, place: ToolCallPlace): Promise<ToolObservation> => {
    const left = input.budget_usd === undefined ? undefined : Math.max(0, input.budget_usd - (usage.cost_usd ?? 0));
    if (left === 0) return { content: `Error: the run's dollar budget (max_cost_usd) is used up; ${toolInput.question === undefined ? 'the agent' : 'the question'} was not passed on`, is_error: true };
    const caller = { path: input.agent_path ?? [input.agent ?? 'agent'], ...(input.tenant !== undefined ? { tenant: input.tenant } : {}), ...(left !== undefined ? { budget_usd: left } : {}), ...(input.llm_task_queue ? { llm_task_queue: input.llm_task_queue } : {}), search_attributes: input.search_attributes ?? [], ...(input.perflow_version !== undefined ? { version: input.perflow_version } : {}) };
    const { observation, usage: spent } = await (isAgentTool(ref) ? callSubAgent : callNexusAgent)(ref, toolInput, place, caller);
    usage = addUsage(usage, spent);
    return observation;
  };
  const pending = () => joinedEvents(stepEvents && wholeKeys(stepEvents), handed.length > 0 ? handedToolEvents(workflowInfo().runId, input.stepIndex, handed) : undefined);
  /** A tool call as an activity; what is pending goes with it, or on with its own events (a slow call shows after the quick ones before it). */
  async function toolActivity(ref: AgentToolRef, name: string, toolInput: Record<string, unknown>, place: ToolCallPlace, hands: boolean, answering?: Pick<ToolCallInput, 'reply' | 'decline'>): Promise<ToolObservation> {
    const before = handed.length > 0 ? pending() : stepEvents;
    const o = await toolCall(ref).executeWithOptions({ summary: `tool: ${name}` }, [
      { tool: ref, input: toolInput, place, ...(hands ? { hand_events: true as const } : {}), ...(before ? { events_before: before } : {}), ...(input.tool_guardrails ? { guardrails: input.tool_guardrails } : {}), ...answering },
    ]);
    if (!hands || o.call_published) [stepEvents, handed] = [undefined, []];
    if (hands) handed.push({ call: place.callIndex, tool: name, input: toolInput, output: o.content, ok: !o.is_error, ...(o.call_published ? { call_published: true } : {}) });
    return o;
  }
  /**
   * A remote agent's call until it has an answer: each question it asks (A2A INPUT_REQUIRED) waits
   * for a person as a tool decision of the run, and the answer goes to the same remote task (a
   * denial cancels it). The observation is the last call's.
   */
  async function answeredRemote(ref: AgentToolRef, name: string, toolInput: Record<string, unknown>, place: ToolCallPlace, first: ToolObservation): Promise<ToolObservation> {
    let o = first;
    if (o.input_required === undefined || !patched(A2A_INPUT_REQUIRED_PATCH)) return o;
    while (o.input_required) {
      const asked = o.input_required;
      const answer = await askToolApproval((answers ??= toolApprovalAnswers()), { decision_id: `tool-${input.stepIndex + 1}-${++approvals}`, step_index: input.stepIndex, step: input.step, tool: name, input: toolInput, question: asked.question });
      const reply = { task_id: asked.task_id, context_id: asked.context_id, turn: asked.turn + 1, question_id: asked.question_id };
      o = answer.action === 'deny'
        ? await toolActivity(ref, name, toolInput, place, false, { reply, decline: `declined by ${answer.by}: ${answer.reason ?? 'no reason given'}` })
        : await toolActivity(ref, name, answer.input ?? toolInput, place, false, { reply });
    }
    return o;
  }
  /** What is pending, written by the step: before a call that writes its own events elsewhere (an agent tool's), and as it ends. */
  function writePending(): void {
    const unwritten = pending();
    if (unwritten) publishKeyed(streamOf(workflowInfo().workflowId), unwritten);
    [stepEvents, handed] = [undefined, []];
  }
  try {
    return await iterate();
  } finally {
    writePending();
  }

  async function iterate(): Promise<ReactExecutorOutput> {
    for (let iteration = 0; iteration < input.max_iteration; iteration++) {
      if (input.budget_usd !== undefined && (usage.cost_usd ?? 0) >= input.budget_usd) {
        return finish(`The run's dollar budget (max_cost_usd) was reached before the step was finished. Gathered so far:\n${gathered()}`, iteration, false, true);
      }
      // A turn handed tool events writes what it was handed; one handed only the step's start may hand it on.
      const mayHandOn = handed.length === 0;
      const response = await models.execution().executeWithOptions({ summary: `executor LLM: step ${input.stepIndex + 1}, iteration ${iteration + 1}` }, [
        {
          model: modelForCall(input.model, { role: 'executor', step: input.stepIndex, iteration }),
          ...offered,
          ...sent(),
          ...(stepMemory ? { step_memory: stepMemory } : {}),
          position: { role: 'executor', step: input.stepIndex, iteration },
          ...(input.response_filter ? { response_filter: input.response_filter } : {}),
          ...(input.agent !== undefined ? { agent: input.agent } : {}),
          ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
          ...(stepEvents ? { events_before: forModelCall(stepEvents) } : {}),
        },
      ]);
      if (response.tenant_budget) {
        const answer = await askTenantWait((tenantWaits ??= tenantWaitAnswers()), `tenant-${input.stepIndex + 1}-${++waits}`, response.tenant_budget);
        if (answer.action === 'stop') return finish(`Stopped by ${answer.by} at the tenant ${response.tenant_budget.tenant}'s daily budget: ${answer.reason ?? ''}`, iteration, false);
        iteration--;
        continue;
      }
      // Made: the handed events went out with it (a call the tenant's cap held back made none); the step's
      // start too, unless a turn handed only it asked for tool calls without a word (then they take it).
      handed = [];
      if (!mayHandOn || response.tool_calls.length === 0 || response.content !== '') stepEvents = undefined;
      usage = addUsage(usage, response.usage);
      messages.push({ role: 'assistant', content: response.content, tool_calls: response.tool_calls, ...(response.carried ? { carried: true as const } : {}) });
      if (response.tool_calls.length === 0) {
        answered = true;
        return finish(response.content, iteration + 1, stepMemory !== undefined);
      }
      // A turn's agent tools run at once (each a sub-agent's run); the other calls one after the
      // other, as before. The observations are recorded in the order the model asked.
      const outcomes: Array<Promise<{ call: (typeof response.tool_calls)[number]; observation: ToolObservation; callIndex?: number }>> = [];
      for (const call of response.tool_calls) {
        const ref = byName.get(call.name);
        // A tool that requires approval waits for a person's decision, asked from the run.
        const approval = ref?.requires_approval ? await askToolApproval((answers ??= toolApprovalAnswers()), {
          decision_id: `tool-${input.stepIndex + 1}-${++approvals}`,
          step_index: input.stepIndex,
          step: input.step,
          tool: call.name,
          input: call.input,
        }) : undefined;
        const runs = ref !== undefined && approval?.action !== 'deny';
        const toolInput = approval?.input ?? call.input;
        const place = { ids: input.ids, stepIndex: input.stepIndex, callIndex: toolCalls };
        if (runs) toolCalls++;
        // Its events go on to the next turn when its answer does (by reference, unedited).
        const hands = byReference && approval?.input === undefined && ref?.type !== A2A_AGENT_TOOL_TYPE;
        // A tool outside the agent's list is never executed.
        const observation: Promise<ToolObservation> = runs
          ? isAgentTool(ref) || ref.type === NEXUS_AGENT_TOOL_TYPE
            ? (writePending(), subAgentCall(ref, toolInput, place))
            : Promise.resolve(await answeredRemote(ref, call.name, toolInput, place, await toolActivity(ref, call.name, toolInput, place, hands)))
          : Promise.resolve(
              approval
                ? { content: `The call was denied by ${approval.by}, who reviews this tool's calls: ${approval.reason ?? 'no reason given'}`, is_error: true }
                : { content: `Error: tool "${call.name}" is not available to this agent; allowed tools: ${allowed.join(', ') || 'none'}`, is_error: true },
            );
        // An edited call's answer says so (and is sent whole: memory holds the tool's output without the note).
        if (runs && approval?.input) outcomes.push(observation.then((o) => ({ call, observation: { ...o, content: `(The reviewer ran this call with the input ${JSON.stringify(toolInput)}.)\n${o.content}` } })));
        else outcomes.push(observation.then((o) => ({ call, observation: o, ...(runs ? { callIndex: place.callIndex } : {}) })));
      }
      const observed = await Promise.all(outcomes);
      // A guardrail withheld an output: the step ends with what it says (never the output), and the run stops.
      const tripped = observed.find((o) => o.observation.tripped)?.observation.tripped;
      if (tripped) return finish(withheldOutput(tripped), iteration + 1, false, false, tripped);
      for (const { call, observation, callIndex } of observed) {
        // The model saw the call's answer as memory holds it: later turns send it by reference.
        if (callIndex !== undefined) stored.push({ message: messages.length, call: callIndex, digest: textDigest(observation.content) });
        if (observation.is_error) toolErrors++;
        observations.push(`${call.name}: ${observation.content}`);
        messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: observation.content, is_error: observation.is_error });
      }
    }
    return finish(`Executor iteration limit (${input.max_iteration}) reached before the step was finished. Gathered so far:\n${gathered()}`, input.max_iteration, false);
  }
}

/** The executor's earlier steps and the step, loaded by the workflow (runs recorded before step memory moved into the model calls). */
async function openingMessages(input: ReactExecutorInput): Promise<ChatMessage[]> {
  const earlier = await memoryActivities.loadExecutorHistory({
    executor_agent_memory_id: input.ids.executor_agent_memory_id,
    limit: input.message_history_limit,
    before_step: input.stepIndex,
    ids: input.ids,
  });
  return executorOpening(earlier, input.step);
}
