/**
 * What the step_by_step, todo_list and plan_and_execute workflows share: the run's IDs and
 * memory, the `progress` query, tools listed once at start, model calls as activities (with
 * parse retries), one ReAct executor child per executed step, and the end of a run.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  log,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentTool, PlannerPromptRef } from '../activities';
import { AGENT_TYPE_SYSTEM_PROMPT } from '../core/agent-type-prompts';
import { addUsage, ZERO_USAGE, type CallPosition } from '../core/llm-types';
import { DEFAULT_PLANNER_SYSTEM_PROMPT, parseRetrySuffix } from '../core/prompts';
import type { Parsed } from '../core/agent-type-output';
import { FailureTypes, preview, progressMarkdown, progressQuery, SearchAttributes, type Progress, type RunOutput } from './definitions';
import { llmActivities, modelForCall, modelForStep } from './llm';
import { memoryActivities } from './memory';
import { reactExecutor, type ReactExecutorOutput } from './react-executor';
import { causeMessage, listTools, runIdsFor, withDatetime } from './run-basics';
import type { PlanExecuteReflectInput } from './plan-execute-reflect';

export { causeMessage };

/** Input of a step_by_step, todo_list or plan_and_execute run: a plan-execute-reflect run's, without continue-as-new. */
export type AgentRunInput = Omit<PlanExecuteReflectInput, 'carried'>;

/** One executed step (a ReAct executor child). */
export interface StepOutcome {
  ok: boolean;
  /** The result (bounded preview; the whole result is in memory). */
  result: string;
  result_chars: number;
  tool_calls: number;
  tool_errors: number;
  limit_reached: boolean;
  executor_workflow_id: string;
}

/** A model call: the planning model (`llm`) or the execution model (`executor_llm`). */
export interface ModelCall {
  model: 'planning' | 'execution';
  position: CallPosition;
  summary: string;
  /** The prompt; the conversation's earlier exchanges are appended when the run continues one. */
  prompt: string;
  withHistory?: boolean;
}

export type AgentRun = Awaited<ReturnType<typeof beginRun>>;

/** Starts a run: IDs, progress query, memory, tools. Returns the helpers the agent workflows use. */
export async function beginRun(input: AgentRunInput, maxUnits: number) {
  const { agent, question } = input;
  const p = input.parameters;
  const ids = runIdsFor(input);
  const progress: Progress = {
    ...ids,
    status: 'planning',
    agent: agent.name,
    agent_type: agent.type,
    question,
    plan: [],
    completed_steps: [],
    steps_executed: 0,
    max_steps: maxUnits,
    usage: ZERO_USAGE,
  };
  setHandler(progressQuery, () => progress);
  const { plannerLlm } = llmActivities(input.llm_task_queue);

  const tools = await listTools(agent);
  // The seed planner's system prompt asks for {"steps","result"}; these agents ask per call.
  const systems = withDatetime(p, p.system_prompt === DEFAULT_PLANNER_SYSTEM_PROMPT ? AGENT_TYPE_SYSTEM_PROMPT : p.system_prompt, p.executor_system_prompt);
  const planningSystem = systems.planner;
  const executorSystem = systems.executor;
  const { history_ids } = await memoryActivities.startRun({
    ids,
    question,
    app_type: agent.app_type ?? agent.type,
    resume: input.memory_id !== undefined,
    message_history_limit: p.message_history_limit,
  });

  const showProgress = () => setCurrentDetails(progressMarkdown(progress));

  /** One model call as an activity; usage is added to the run's. */
  async function ask(call: ModelCall): Promise<string> {
    const model = call.model === 'planning' ? agent.llm : agent.executor_llm;
    // Earlier exchanges of the conversation are loaded from memory by the activity (claim check).
    const render: PlannerPromptRef | undefined =
      call.withHistory && history_ids.length > 0
        ? { template: `${call.prompt}\n\nCONVERSATION HISTORY:\n\${parameters.completed_steps}`, params: {}, steps: [], completed_step_ids: history_ids }
        : undefined;
    const answer = await plannerLlm.executeWithOptions({ summary: call.summary }, [
      { model: modelForCall(model, call.position), system: planningSystem, position: call.position, ...(render ? { render } : { prompt: call.prompt }) },
    ]);
    progress.usage = addUsage(progress.usage, answer.usage);
    return answer.text;
  }

  /**
   * A model call whose answer must parse: an unparseable answer is asked again with the error
   * appended (`max_parse_retries`), at the next position of its kind (from `counter` when
   * given); then the run fails.
   */
  async function askParsed<T>(call: ModelCall, parse: (raw: string) => Parsed<T>, what: string, counter?: { next: number }): Promise<T> {
    const attempts = Math.max(1, p.max_parse_retries);
    // Each attempt takes the next position of its kind: from the run-wide `counter` when given.
    const positions = counter ?? { next: 'call' in call.position ? call.position.call : 0 };
    let lastError = '';
    let lastRaw = '';
    for (let attempt = 0; attempt < attempts; attempt++) {
      const position = 'call' in call.position ? { ...call.position, call: positions.next++ } : call.position;
      const prompt = attempt === 0 ? call.prompt : call.prompt + parseRetrySuffix(lastError);
      lastRaw = await ask({ ...call, position, prompt, summary: attempt === 0 ? call.summary : `${call.summary}, retry ${attempt}` });
      const parsed = parse(lastRaw);
      if (parsed.ok) return parsed.value;
      lastError = parsed.error;
      log.warn(`${what} could not be parsed; asking again`, { attempt: attempt + 1, error: lastError });
    }
    throw ApplicationFailure.nonRetryable(
      `${what} could not be parsed after ${attempts} attempts (${lastError}); last answer: ${JSON.stringify(preview(lastRaw, 500))}`,
      FailureTypes.ModelOutputInvalid,
    );
  }

  /**
   * Executes one step in a ReAct executor child workflow (`<run>/step-<unit+1>`) with the given
   * tools. A failed executor becomes a failed step, saved in memory like any other.
   */
  async function runStep(unit: number, label: string, text: string, stepTools: AgentTool[]): Promise<StepOutcome> {
    const executorWorkflowId = `${workflowInfo().workflowId}/step-${unit + 1}`;
    progress.status = 'executing';
    progress.current_step = { index: unit, step: label, executor_workflow_id: executorWorkflowId };
    showProgress();
    let outcome: StepOutcome;
    try {
      const out: ReactExecutorOutput = await executeChild(reactExecutor, {
        workflowId: executorWorkflowId,
        staticSummary: preview(label, 150),
        args: [
          {
            step: text,
            stepIndex: unit,
            system_prompt: executorSystem,
            model: modelForStep(agent.executor_llm, unit),
            tools: stepTools,
            max_iteration: p.executor_max_iterations,
            message_history_limit: p.executor_message_history_limit,
            ids,
            ...(input.llm_task_queue ? { llm_task_queue: input.llm_task_queue } : {}),
          },
        ],
      });
      progress.usage = addUsage(progress.usage, out.usage);
      outcome = {
        ok: true,
        result: out.result_preview,
        result_chars: out.result_chars,
        tool_calls: out.tool_calls,
        tool_errors: out.tool_errors ?? 0,
        limit_reached: out.limit_reached ?? false,
        executor_workflow_id: executorWorkflowId,
      };
    } catch (err) {
      if (!(err instanceof ChildWorkflowFailure) || isCancellation(err)) throw err;
      const result = `Step failed: ${causeMessage(err)}`;
      await memoryActivities.saveStep({ ids, stepIndex: unit, step: text, result });
      outcome = { ok: false, result, result_chars: result.length, tool_calls: 0, tool_errors: 0, limit_reached: false, executor_workflow_id: executorWorkflowId };
    }
    recordStep(unit, label, outcome);
    return outcome;
  }

  /** Adds an executed step to the progress. */
  function recordStep(unit: number, label: string, outcome: Pick<StepOutcome, 'ok' | 'result' | 'result_chars' | 'executor_workflow_id'>): void {
    progress.completed_steps.push({
      index: unit,
      step: label,
      result_preview: preview(outcome.result),
      result_chars: outcome.result_chars,
      ok: outcome.ok,
      executor_workflow_id: outcome.executor_workflow_id,
    });
    progress.steps_executed++;
    progress.current_step = undefined;
    progress.status = 'planning';
    showProgress();
  }

  async function finish(response: string, metadata?: Record<string, unknown>): Promise<RunOutput> {
    await memoryActivities.finishRun({ ids, response });
    progress.status = 'completed';
    progress.result = response;
    setStatusAttribute('completed');
    showProgress();
    return { ...ids, response, usage: progress.usage, steps_executed: progress.steps_executed, ...(metadata ? { metadata } : {}) };
  }

  /** Runs the agent's body; a failure is recorded in memory and progress, then fails the run. */
  async function guard(body: () => Promise<RunOutput>): Promise<RunOutput> {
    try {
      return await body();
    } catch (err) {
      progress.status = 'failed';
      progress.error = causeMessage(err);
      progress.current_step = undefined;
      setStatusAttribute('failed');
      await CancellationScope.nonCancellable(() => memoryActivities.finishRun({ ids, response: '', error: progress.error }));
      throw err;
    }
  }

  /** The whole result of an executed step, from memory (for the run's response). */
  async function fullResult(unit: number): Promise<string> {
    return memoryActivities.stepResult({ ids, stepIndex: unit });
  }

  return { agent, question, p, ids, progress, tools, executorSystem, planningSystem, ask, askParsed, runStep, recordStep, finish, guard, fullResult, showProgress, llm: { plannerLlm } };
}


/** The run's end status as a search attribute, when the client set perflow's attributes at start. */
function setStatusAttribute(status: 'completed' | 'failed'): void {
  if (workflowInfo().typedSearchAttributes.get(SearchAttributes.agent) === undefined) return;
  upsertSearchAttributes([{ key: SearchAttributes.status, value: status }]);
}

/** Tools of the agent by name (the tool IDs of step_by_step and todo_list plans). */
export function toolsNamed(tools: AgentTool[], names: readonly string[]): AgentTool[] {
  return tools.filter((t) => names.includes(t.spec.name));
}

/** The tool list of a planning prompt: one `name: description` per line. */
export function toolListing(tools: AgentTool[]): string {
  return tools.length === 0 ? 'none' : tools.map((t) => `${t.spec.name}: ${t.spec.description}`).join('\n');
}

/** Variables as the Ivy prompts show them: `- name: value`, one per line. */
export function variableListing(variables: ReadonlyArray<{ name: string; value: string }>): string {
  return variables.map((v) => `- ${v.name}: ${preview(v.value, 1_000)}`).join('\n');
}

