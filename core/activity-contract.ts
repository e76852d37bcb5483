/**
 * The types that cross the workflow/activity boundary: model settings and scripts as calls
 * carry them, chat requests, prompt references, tool references and observations. Agent-file
 * shapes are derived from the zod schemas (core/agent-file/), not copied.
 *
 * Pure module: safe to import from workflow code. Over 300 lines on purpose: it is the one
 * contract between workflow and activities, kept whole so a change to it is seen as one.
 *
 * @module
 */
import type { ExecutorTurn, ModelConfig, ModelScript, ScriptedToolCall, ToolEntry } from './agent';
import type { CallPosition, ChatMessage, ToolSpec, Usage } from './llm-types';
import type { MemoryIds, ToolCallPlace } from './memory-ids';
import type { PromptFormat } from './template';
import type { TenantBudgetReached } from './decisions';
import type { KeyedRunEvents } from './run-events';
import type { OutputFormat } from './typed-output';
import type { Guardrail, GuardrailVerdict } from './guardrails';
import type { A2AInputRequest, A2AReply } from './a2a-tool';

export type { OutputFormat };

export type { ScriptedToolCall, ToolCallPlace };

/** One scripted executor model turn. */
export type ScriptedTurn = ExecutorTurn;

/**
 * A scripted model's script as a call carries it: only the entries that call needs (see
 * workflows/kernel/scripted-calls.ts), so every list may be absent, and a list may be an
 * array-like holding only the entry at the call's position (`{ "999": …, "length": 1000 }`).
 */
export type Script = { [K in keyof ModelScript]?: ScriptList<NonNullable<ModelScript[K]>> };
type ScriptList<L> = L extends Array<infer E> ? ArrayLike<E extends Array<infer T> ? ArrayLike<T> : E> : never;

/** Which model to call and how, as an activity receives it. */
export type ModelSettings = Omit<ModelConfig, 'script'> & { script?: Script };

/** One chat request to a model. */
export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  position: CallPosition;
  /** `llm_response_filter` when the agent sets one other than its interface's default. */
  response_filter?: string;
  /**
   * The answer must be one JSON value conforming to `schema` (the agent file's `output_schema`,
   * JSON Schema 2020-12): an adapter asks for it with its provider's own structured-output
   * feature where there is one (the prompt states the schema either way); the caller validates.
   */
  output?: OutputFormat;
}

/**
 * A run's static prompt material: its resolved `${parameters.x}` values (templates included),
 * its system prompts and its tools' specs. Stored once at the run's start and referenced by ID
 * from every model call, so activity inputs in the history do not repeat it.
 */
export interface PromptMaterial {
  params: Record<string, string>;
  systems: { planning: string; executor: string };
  tools: ToolSpec[];
  /**
   * The run's memory ID, added by the activity that stores the material (the workflow's input
   * stays as recorded): the model calls' spans name their conversation with it. Absent in
   * material stored before, or by `savePromptMaterial`.
   */
  memory_id?: string;
}

/**
 * A planner prompt by reference: the template (or its parameter name in the run's prompt
 * material), its parameters (or the material's), and the interaction IDs of the completed steps,
 * whose texts the activity loads from memory (claim check).
 */
export interface PlannerPromptRef {
  template?: string;
  /** The parameter holding the template, in the prompt material (`reflect_prompt_template`). */
  template_key?: string;
  params?: Record<string, string>;
  /** The current plan, for `${parameters.steps}`. */
  steps: string[];
  /** Earlier exchanges and step traces, in order, for `${parameters.completed_steps}` (absent: none). */
  completed_step_ids?: string[];
  /**
   * This run's first `count` step traces (`<trace_root>:step-1` …), after `completed_step_ids`:
   * the same IDs in a few bytes, so a long run's planner inputs do not grow with its steps.
   */
  run_steps?: { trace_root: string; count: number };
  /** Appended after rendering (the parse-retry instruction). */
  suffix?: string;
  /** How `steps` and `completed_steps` are rendered (absent: `perflow`, as runs recorded before). */
  format?: PromptFormat;
  /** How many of the completed steps are the conversation's earlier exchanges (for the `ml-commons` format). */
  history_count?: number;
}

/** The run's prompt material by ID, and which of its system prompts a call uses. */
export interface MaterialRef {
  material_id?: string;
  system_key?: 'planning' | 'executor';
}

/** Executed steps whose whole results the activity puts at their markers in the prompt (`wholeResultMarker`). */
export interface WholeResultsRef {
  ids: MemoryIds;
  units: number[];
}

/**
 * A long run's earlier steps that its state no longer carries: the texts its prompts show of
 * them, stored in memory in `chunks` parts (`<id>-0`, `<id>-1`, …, one per continue-as-new that
 * moved steps), oldest first. The activity puts them at the prompt's `earlierStepsMarker`s.
 */
export interface EarlierStepsRef {
  id: string;
  chunks: number;
}

/** Whose model call it is, for the cost counter's `agent` label. */
export interface CallOwner {
  /** The agent file's `name` (absent in runs recorded before it was sent). */
  agent?: string;
  /**
   * The run's `tenant_id`, when the tenant's daily dollar cap applies to the call: the activity
   * checks the day's spend before calling the model and adds the call's cost after.
   */
  tenant?: string;
}

export type { TenantBudgetReached } from './decisions';

/**
 * The run's answer as the typed value its `output_schema` describes: one call of the planning
 * model, asked with the schema (and, on an attempt after the first, what the last reply got
 * wrong), its reply validated in the activity.
 */
export interface TypedOutputInput extends CallOwner {
  model: ModelSettings;
  position: CallPosition;
  question: string;
  /** The run's answer as its agent type gave it (text). */
  answer: string;
  output: OutputFormat;
  /** The last attempt's reply and what did not conform in it. */
  previous?: { reply: string; problems: string[] };
  /** The run's memory ID, for the call's span. */
  memory_id?: string;
}

/** A typed-output call's reply: its JSON value when it conforms, else what does not (`problems`, the first failing `path`). */
export interface TypedOutputAnswer {
  reply: string;
  output?: unknown;
  problems?: string[];
  path?: string;
  usage: Usage;
}

/** A model call's answer, or the tenant's cap that kept it from being made. */
export type TenantChecked<T> = T & { tenant_budget?: TenantBudgetReached };

/** A planning-model call with a ready `prompt`, or one rendered in the activity from `render`. */
export interface PlannerCallInput extends Omit<ChatRequest, 'messages' | 'system'>, MaterialRef, CallOwner {
  whole_results?: WholeResultsRef;
  earlier_steps?: EarlierStepsRef;
  model: ModelSettings;
  /** The system prompt, unless `system_key` names the material's. */
  system?: string;
  prompt?: string;
  render?: PlannerPromptRef;
  /**
   * The workflow publishes the end of the answer's text: the activity streams what the model
   * writes as it writes it, but a last piece still unpublished when the answer is there (an
   * unstreamed answer is one piece) it leaves to the workflow, which publishes it with the events
   * that follow the call, in one write (see {@link PlannerAnswer}).
   */
  workflow_publishes_tail?: true;
  /**
   * The run's own events the workflow held for this call (a step's end, just before the planner
   * reflects on it): the activity writes them first, with its first write to the stream (the
   * call's first piece of text), or alone when it writes nothing else. Their keys keep them
   * written once whichever attempt, or the workflow, writes them first.
   */
  events_before?: KeyedRunEvents;
}


/** A planning call's answer: its text and usage, and where the text's unpublished end begins when the workflow publishes it. */
export interface PlannerAnswer {
  text: string;
  usage: Usage;
  /** The activity published `text` up to here; the workflow publishes the rest (only with `workflow_publishes_tail`). */
  tail_from?: number;
}

/** An execution-model call: a chat turn, with the tools the model may call (or their names in the material). */
export interface ExecutorCallInput extends Omit<ChatRequest, 'system'>, MaterialRef, CallOwner {
  /** Steps whose whole results fill the markers of the user messages (assessments). */
  whole_results?: WholeResultsRef;
  /** The run's earlier steps, for the markers of the user messages. */
  earlier_steps?: EarlierStepsRef;
  model: ModelSettings;
  system?: string;
  /** The tools offered, by name, from the material's specs (instead of `tools`). */
  tool_names?: string[];
  /**
   * A ReAct turn of an executor step: the activity puts the executor's earlier steps and the
   * step itself before `messages` (this step's turns so far), and saves a final answer as the
   * step's result, so the step needs no memory round trips of its own.
   */
  step_memory?: ExecutorStepMemory;
  /**
   * Tool messages sent empty whose content is the output of this step's tool call `call`, as
   * memory holds it (the claim check: a step of many iterations does not send every earlier
   * output again with each turn). The activity fills them, cut as the call's answer was cut.
   * Needs `step_memory` (the step's IDs and index).
   */
  stored_tool_results?: StoredToolResult[];
  /**
   * The run's events that started the step (the planner's last text, the plan, `step_started`),
   * handed to the step's first model call: written first, in its first write (see
   * `PlannerCallInput.events_before`).
   */
  events_before?: KeyedRunEvents;
}

/** A tool message of a turn, and the step's tool call whose stored output is its content. */
export interface StoredToolResult {
  /** Its index in `messages`. */
  message: number;
  /** The tool call's index in the step (`ToolCallPlace.callIndex`). */
  call: number;
  /**
   * The digest (core/text `textDigest`) of the answer the workflow received: a worker that made
   * the call sends its own copy when it matches, without reading memory (absent in runs recorded before).
   */
  digest?: string;
  /**
   * The call's events, handed on by its activity (`hand_events`), go to the run's stream with
   * this turn's first write: its call and result, or its result only (the call showed while it ran).
   */
  events?: 'call_and_result' | 'result';
}

/** The step an executor turn belongs to, as its model call reads and writes memory. */
export interface ExecutorStepMemory {
  ids: MemoryIds;
  step_index: number;
  /** The step as the executor is asked to do it (its first user message). */
  step: string;
  /** How many earlier steps of the executor memory to show the model. */
  history_limit: number;
  /**
   * The workflow execution of the run the step belongs to (the executor child's parent): the
   * worker caches the run's completed steps under it, as it does for the run's planner calls.
   * Absent in executions started before it was added: their steps are read from memory.
   */
  run_id?: string;
}

/** A tool as the agent file lists it (or an MCP tool, with its server in `parameters`). */
export type AgentToolRef = ToolEntry;

/** A tool an agent may call: what the model sees, and how the worker runs it. */
export interface AgentTool {
  spec: ToolSpec;
  ref: AgentToolRef;
}

export interface ToolCallInput {
  tool: AgentToolRef;
  input: Record<string, unknown>;
  /** Where the call is recorded in memory (with its whole output). */
  place: ToolCallPlace;
  /**
   * The step's next model call writes this call's events to the run's stream, with its own first
   * write (see `StoredToolResult.events`): the activity publishes only a call still running after
   * a moment. One write fewer per call.
   */
  hand_events?: true;
  /**
   * The run's events that started the step, not written yet (its first turn wrote nothing and
   * asked for this call): written first, with the call's first write; a call that hands its own
   * on leaves them to go on with them.
   */
  events_before?: KeyedRunEvents;
  /** The agent's tool_output guardrails (text checks): an output that fails one is withheld and the run stops. */
  guardrails?: Guardrail[];
  /** A remote agent's call that answers its task's question (`input_required`): the message goes to that task. */
  reply?: A2AReply;
  /** With `reply`: a person declined to answer; the remote task is cancelled with this reason. */
  decline?: string;
}

/** What a tool call gives the model: its output, or an error it can act on. */
export interface ToolObservation {
  content: string;
  is_error: boolean;
  /** A tool_output guardrail withheld the output (`content` says so, never what it was): the run stops. */
  tripped?: GuardrailVerdict;
  /** With `hand_events`: the call's event was published while it ran (a slow call); its result is left to hand on. */
  call_published?: true;
  /** A remote agent's task waits for an answer to this question (A2A INPUT_REQUIRED): a person gives it. */
  input_required?: A2AInputRequest;
}

export interface CompletedStepView {
  index: number;
  step: string;
  result_preview: string;
  /** Length of the whole result, which is stored in memory. */
  result_chars: number;
  ok: boolean;
  executor_workflow_id: string;
}

/** What a fork of a run from step N takes over, as the run itself tells it (query `forkPoint`). */
export interface ForkPoint {
  /** The steps the run has completed so far, in its agent type's sense of "step". */
  completed: number;
  /** The executions a fork from the asked step reuses, in order. */
  steps: CompletedStepView[];
  /** The agent type's own state for the fork (`ForkSource.agent_state` in workflows/definitions.ts). */
  agent_state?: unknown;
  /** Why a fork cannot start at the asked step (one line). */
  refused?: string;
  /** plan_execute_and_reflect: where the source's planner calls stood before it planned the step (a scripted model's position). */
  planner_calls?: number;
}
