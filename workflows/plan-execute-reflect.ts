/**
 * The seed's plan-execute-reflect loop as a deterministic workflow: the planner writes a plan,
 * a ReAct executor child workflow carries out its first step, the planner re-evaluates with
 * the completed steps, until it returns a result or `max_steps` is reached.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  ContinueAsNew,
  continueAsNew,
  executeChild,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentTool, PlannerPromptRef } from '../activities';
import { stepTraceId } from '../core/memory-ids';
import { llmResponseFilterFor, type AgentDefinition, type ResolvedParameters } from '../core/agent';
import { addUsage, ZERO_USAGE, type Usage } from '../core/llm-types';
import { parsePlannerOutput } from '../core/planner-output';
import {
  MAX_STEPS_SUMMARY_PROMPT_TEMPLATE,
  MAX_STEPS_SUMMARY_SYSTEM_PROMPT,
  maxStepsReachedMessage,
  parseRetrySuffix,
  tokenBudgetReachedMessage,
} from '../core/prompts';
import { buildToolsPrompt } from '../core/template';
import { FailureTypes, preview, progressMarkdown, progressQuery, SearchAttributes, type CompletedStepView, type Progress, type RunIds, type RunOutput } from './definitions';
import { llmActivities, modelForCall, modelForStep } from './llm';
import { memoryActivities } from './memory';
import { reactExecutor } from './react-executor';
import { causeMessage, listTools, runIdsFor, withDatetime } from './run-basics';

export interface PlanExecuteReflectInput {
  agent: AgentDefinition;
  question: string;
  /** Agent parameters merged with run parameters (see `resolveParameters`). */
  parameters: ResolvedParameters;
  /** IDs chosen by the client, so it can show them before the run starts; missing ones are generated. */
  ids?: Partial<RunIds>;
  /** Continue this existing conversation: its recent exchanges become completed steps. */
  memory_id?: string;
  /** Task queue of the planner and executor LLM activities (default: the workflow's). */
  llm_task_queue?: string;
  /** State carried over by continue-as-new; absent on a run's first execution. */
  carried?: CarriedState;
}

/**
 * What a long run carries into its next execution. Step texts stay in MongoDB; only IDs,
 * bounded previews and counters travel, so the carried input stays small.
 */
export interface CarriedState {
  plan: string[];
  /** Interaction IDs of the earlier exchanges, then of this run's step traces, in order. */
  completed_step_ids: string[];
  completed_steps: CompletedStepView[];
  steps_executed: number;
  usage: Usage;
  planner_calls: number;
  tools: AgentTool[];
  /** How many times the run has continued-as-new. */
  continued: number;
}

export async function planExecuteReflect(input: PlanExecuteReflectInput): Promise<RunOutput> {
  const { agent, question } = input;
  const p = input.parameters;
  const carried = input.carried;
  const ids = runIdsFor(input);
  const progress: Progress = {
    ...ids,
    status: 'planning',
    agent: agent.name,
    question,
    plan: carried?.plan ?? [],
    completed_steps: carried?.completed_steps ?? [],
    steps_executed: carried?.steps_executed ?? 0,
    max_steps: p.max_steps,
    usage: carried?.usage ?? ZERO_USAGE,
    ...(carried ? { continued_as_new: carried.continued } : {}),
  };
  setHandler(progressQuery, () => progress);
  const { startRun, saveStep, finishRun } = memoryActivities;
  const { plannerLlm, summarize } = llmActivities(input.llm_task_queue);

  const tools: AgentTool[] = carried?.tools ?? (await listTools(agent));
  const { planner: plannerSystem, executor: executorSystem } = withDatetime(p, p.system_prompt, p.executor_system_prompt);

  const templateParams: Record<string, string> = {};
  for (const [key, value] of Object.entries(p)) {
    if (value !== undefined && value !== null) templateParams[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  templateParams.tools_prompt = buildToolsPrompt(tools.map((t) => t.spec));
  templateParams.user_prompt = question;

  // The planner loads the completed steps' texts itself: the workflow keeps only their IDs.
  const completedIds: string[] = [...(carried?.completed_step_ids ?? [])];
  let template = p.planner_prompt_template;
  if (!carried) {
    const { history_ids } = await startRun({
      ids,
      question,
      app_type: agent.app_type ?? agent.type,
      resume: input.memory_id !== undefined,
      message_history_limit: p.message_history_limit,
    });
    completedIds.push(...history_ids);
  }
  if (progress.steps_executed > 0) template = p.reflect_prompt_template;
  else if (completedIds.length > 0) template = p.planner_with_history_template;
  // The seed's llm_response_filter picks the planner's answer text from the raw response; the
  // interface defaults select what the providers return anyway, so only a custom one travels.
  const responseFilter =
    p.llm_response_filter !== llmResponseFilterFor(agent.llm.interface) ? { response_filter: p.llm_response_filter } : {};
  let plannerCalls = carried?.planner_calls ?? 0;
  const promptRef = (tmpl: string, suffix?: string): PlannerPromptRef => ({
    template: tmpl,
    params: templateParams,
    steps: progress.plan,
    completed_step_ids: completedIds,
    ...(suffix ? { suffix } : {}),
  });
  const planner = async (render: PlannerPromptRef, summary: string) => {
    const position = { role: 'planner', call: plannerCalls++ } as const;
    const answer = await plannerLlm.executeWithOptions({ summary }, [
      { model: modelForCall(agent.llm, position), system: plannerSystem, render, position, ...responseFilter },
    ]);
    progress.usage = addUsage(progress.usage, answer.usage);
    return answer.text;
  };

  try {
    for (;;) {
      if (progress.steps_executed >= p.max_steps) {
        const response = maxStepsReachedMessage(p.max_steps, await summarizeSteps(), ids.memory_id);
        return await finish(response);
      }
      const used = progress.usage.input_tokens + progress.usage.output_tokens;
      if (p.token_budget > 0 && progress.steps_executed > 0 && used >= p.token_budget) {
        return await finish(tokenBudgetReachedMessage(p.token_budget, used, await summarizeSteps(), ids.memory_id));
      }
      if (progress.steps_executed > 0 && historyIsLong()) {
        await continueAsNew<typeof planExecuteReflect>({
          ...input,
          ids,
          memory_id: undefined,
          carried: {
            plan: progress.plan,
            completed_step_ids: completedIds,
            completed_steps: progress.completed_steps,
            steps_executed: progress.steps_executed,
            usage: progress.usage,
            planner_calls: plannerCalls,
            tools,
            continued: (carried?.continued ?? 0) + 1,
          },
        });
      }
      progress.status = 'planning';
      const parsed = await planWithRetries(template);
      if (parsed.result !== '') return await finish(parsed.result);

      progress.plan = parsed.steps;
      const step = parsed.steps[0];
      const index = progress.steps_executed;
      const executorWorkflowId = `${workflowInfo().workflowId}/step-${index + 1}`;
      progress.status = 'executing';
      progress.current_step = { index, step, executor_workflow_id: executorWorkflowId };
      setCurrentDetails(progressMarkdown(progress));
      let result: string;
      let chars: number;
      let ok = true;
      try {
        const out = await executeChild(reactExecutor, {
          workflowId: executorWorkflowId,
          staticSummary: `step ${index + 1}: ${preview(step, 150)}`,
          args: [
            {
              step,
              stepIndex: index,
              system_prompt: executorSystem,
              model: modelForStep(agent.executor_llm, index),
              tools,
              max_iteration: p.executor_max_iterations,
              message_history_limit: p.executor_message_history_limit,
              ids,
              ...(input.llm_task_queue ? { llm_task_queue: input.llm_task_queue } : {}),
            },
          ],
        });
        // The executor saved the whole result in memory; a preview is enough here.
        result = out.result_preview;
        chars = out.result_chars;
        progress.usage = addUsage(progress.usage, out.usage);
      } catch (err) {
        // A failed step goes back to the planner, which may re-plan around it.
        if (!(err instanceof ChildWorkflowFailure) || isCancellation(err)) throw err;
        ok = false;
        result = `Step failed: ${causeMessage(err)}`;
        chars = result.length;
        await saveStep({ ids, stepIndex: index, step, result });
      }
      completedIds.push(stepTraceId(ids.parent_interaction_id, index));
      progress.completed_steps.push({
        index,
        step,
        result_preview: preview(result),
        result_chars: chars,
        ok,
        executor_workflow_id: executorWorkflowId,
      });
      progress.steps_executed++;
      progress.current_step = undefined;
      setCurrentDetails(progressMarkdown(progress));
      template = p.reflect_prompt_template;
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err; // not a failure: the run goes on in a new execution
    progress.status = 'failed';
    progress.error = causeMessage(err);
    setStatusAttribute('failed');
    // Record the failure even when the run is being cancelled.
    await CancellationScope.nonCancellable(() => finishRun({ ids, response: '', error: progress.error }));
    throw err;
  }

  async function finish(response: string): Promise<RunOutput> {
    await finishRun({ ids, response });
    progress.status = 'completed';
    progress.result = response;
    setStatusAttribute('completed');
    setCurrentDetails(progressMarkdown(progress));
    return { ...ids, response, usage: progress.usage, steps_executed: progress.steps_executed };
  }

  /**
   * The run's end status as a search attribute, when the client set perflow's attributes at
   * start (the server has them registered). Added after runs were recorded without it, hence
   * the patch: histories from before replay without the upsert.
   */
  function setStatusAttribute(status: 'completed' | 'failed'): void {
    if (!patched('perflow-status-search-attribute')) return;
    if (workflowInfo().typedSearchAttributes.get(SearchAttributes.agent) === undefined) return;
    upsertSearchAttributes([{ key: SearchAttributes.status, value: status }]);
  }

  /** Whether to continue-as-new before the next step, keeping each execution's history bounded. */
  function historyIsLong(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || (p.continue_as_new_after_events > 0 && info.historyLength >= p.continue_as_new_after_events);
  }

  async function planWithRetries(tmpl: string): Promise<{ steps: string[]; result: string }> {
    const attempts = Math.max(1, p.max_parse_retries);
    let next = promptRef(tmpl);
    let lastError = '';
    let lastRaw = '';
    for (let attempt = 0; attempt < attempts; attempt++) {
      const what = progress.steps_executed === 0 ? 'initial plan' : `reflect after step ${progress.steps_executed}`;
      lastRaw = await planner(next, attempt === 0 ? `planner: ${what}` : `planner: ${what}, retry ${attempt} after an unparseable answer`);
      const parsed = parsePlannerOutput(lastRaw);
      if (parsed.ok) return parsed;
      lastError = parsed.error;
      log.warn('planner answer could not be parsed; asking again', { attempt: attempt + 1, error: lastError });
      next = promptRef(tmpl, parseRetrySuffix(lastError));
    }
    throw ApplicationFailure.nonRetryable(
      `planner answer could not be parsed after ${attempts} attempts (${lastError}); last answer: ${JSON.stringify(preview(lastRaw, 500))}`,
      FailureTypes.PlannerOutputInvalid,
    );
  }

  async function summarizeSteps(): Promise<string> {
    const listing = progress.completed_steps.map((s, i) => `${i + 1}. ${s.step}: ${preview(s.result_preview, 300)}`).join('\n');
    try {
      const answer = await summarize.executeWithOptions({ summary: 'planner: max-steps summary' }, [{
        model: modelForCall(agent.llm, { role: 'summary' }),
        system: MAX_STEPS_SUMMARY_SYSTEM_PROMPT,
        render: promptRef(MAX_STEPS_SUMMARY_PROMPT_TEMPLATE),
        position: { role: 'summary' },
      }]);
      progress.usage = addUsage(progress.usage, answer.usage);
      return answer.text;
    } catch (err) {
      log.warn('max-steps summary call failed; listing the completed steps instead', { error: causeMessage(err) });
      return `Completed steps:\n${listing}`;
    }
  }
}

