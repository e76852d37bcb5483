/**
 * The seed's plan-execute-reflect loop as a deterministic workflow: the planner writes a plan,
 * a ReAct executor child workflow carries out its first step, the planner re-evaluates with
 * the completed steps, until it returns a result or `max_steps` is reached.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AgentDefinition, ResolvedParameters } from '../core/agent';
import { formatDatetime, injectDatetime } from '../core/datetime';
import { addUsage, ZERO_USAGE, type ToolSpec } from '../core/llm-types';
import { parsePlannerOutput } from '../core/planner-output';
import {
  MAX_STEPS_SUMMARY_PROMPT_TEMPLATE,
  MAX_STEPS_SUMMARY_SYSTEM_PROMPT,
  maxStepsReachedMessage,
  parseRetrySuffix,
  tokenBudgetReachedMessage,
} from '../core/prompts';
import { buildToolsPrompt, formatCompletedSteps, formatSteps, renderTemplate, type CompletedStep } from '../core/template';
import { FailureTypes, preview, progressMarkdown, progressQuery, type Progress, type RunIds, type RunOutput } from './definitions';
import { memoryActivities } from './memory';
import { reactExecutor } from './react-executor';

const { describeTools } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

const { plannerLlm } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

// The max-steps summary is a courtesy: one quick retry, then a plain listing.
const summarize = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
}).plannerLlm;

export interface PlanExecuteReflectInput {
  agent: AgentDefinition;
  question: string;
  /** Agent parameters merged with run parameters (see `resolveParameters`). */
  parameters: ResolvedParameters;
  /** IDs chosen by the client, so it can show them before the run starts; missing ones are generated. */
  ids?: Partial<RunIds>;
  /** Continue this existing conversation: its recent exchanges become completed steps. */
  memory_id?: string;
}

export async function planExecuteReflect(input: PlanExecuteReflectInput): Promise<RunOutput> {
  const { agent, question } = input;
  const p = input.parameters;
  const ids: RunIds = {
    memory_id: input.memory_id ?? input.ids?.memory_id ?? uuid4(),
    parent_interaction_id: input.ids?.parent_interaction_id ?? uuid4(),
    executor_agent_memory_id: input.ids?.executor_agent_memory_id ?? uuid4(),
    executor_agent_parent_interaction_id: input.ids?.executor_agent_parent_interaction_id ?? uuid4(),
  };
  const progress: Progress = {
    ...ids,
    status: 'planning',
    agent: agent.name,
    question,
    plan: [],
    completed_steps: [],
    steps_executed: 0,
    max_steps: p.max_steps,
    usage: ZERO_USAGE,
  };
  setHandler(progressQuery, () => progress);
  const { startRun, saveStep, finishRun } = memoryActivities;

  const toolSpecs: ToolSpec[] = agent.tools.length > 0 ? await describeTools(agent.tools) : [];
  let plannerSystem = p.system_prompt;
  let executorSystem = p.executor_system_prompt;
  if (p.inject_datetime) {
    const { text, warning } = formatDatetime(Date.now(), p.datetime_format); // workflow time: replay-safe
    if (warning) log.warn(warning);
    plannerSystem = injectDatetime(plannerSystem, text);
    executorSystem = injectDatetime(executorSystem, text);
  }

  const templateParams: Record<string, string> = {};
  for (const [key, value] of Object.entries(p)) {
    if (value !== undefined && value !== null) templateParams[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  templateParams.tools_prompt = buildToolsPrompt(toolSpecs);
  templateParams.user_prompt = question;

  const completed: CompletedStep[] = [];
  let template = p.planner_prompt_template;
  const { history } = await startRun({
    ids,
    question,
    app_type: agent.app_type ?? agent.type,
    resume: input.memory_id !== undefined,
    message_history_limit: p.message_history_limit,
  });
  if (history.length > 0) {
    completed.push(...history);
    template = p.planner_with_history_template;
  }
  let plannerCalls = 0;
  const planner = async (prompt: string, summary: string) => {
    const answer = await plannerLlm.executeWithOptions({ summary }, [
      { model: agent.llm, system: plannerSystem, prompt, position: { role: 'planner', call: plannerCalls++ } },
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
      progress.status = 'planning';
      const prompt = renderTemplate(template, {
        ...templateParams,
        steps: formatSteps(progress.plan),
        completed_steps: formatCompletedSteps(completed),
      });
      const parsed = await planWithRetries(prompt);
      if (parsed.result !== '') return await finish(parsed.result);

      progress.plan = parsed.steps;
      const step = parsed.steps[0];
      const index = progress.steps_executed;
      const executorWorkflowId = `${workflowInfo().workflowId}/step-${index + 1}`;
      progress.status = 'executing';
      progress.current_step = { index, step, executor_workflow_id: executorWorkflowId };
      setCurrentDetails(progressMarkdown(progress));
      let result: string;
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
              model: agent.executor_llm,
              tools: agent.tools,
              toolSpecs,
              max_iteration: p.executor_max_iterations,
              message_history_limit: p.executor_message_history_limit,
              ids,
            },
          ],
        });
        result = out.result;
        progress.usage = addUsage(progress.usage, out.usage);
      } catch (err) {
        // A failed step goes back to the planner, which may re-plan around it.
        if (!(err instanceof ChildWorkflowFailure) || isCancellation(err)) throw err;
        ok = false;
        result = `Step failed: ${causeMessage(err)}`;
      }
      await saveStep({ ids, stepIndex: index, step, result });
      completed.push({ step, result });
      progress.completed_steps.push({
        index,
        step,
        result_preview: preview(result),
        ok,
        executor_workflow_id: executorWorkflowId,
      });
      progress.steps_executed++;
      progress.current_step = undefined;
      setCurrentDetails(progressMarkdown(progress));
      template = p.reflect_prompt_template;
    }
  } catch (err) {
    progress.status = 'failed';
    progress.error = causeMessage(err);
    // Record the failure even when the run is being cancelled.
    await CancellationScope.nonCancellable(() => finishRun({ ids, response: '', error: progress.error }));
    throw err;
  }

  async function finish(response: string): Promise<RunOutput> {
    await finishRun({ ids, response });
    progress.status = 'completed';
    progress.result = response;
    setCurrentDetails(progressMarkdown(progress));
    return { ...ids, response, usage: progress.usage, steps_executed: progress.steps_executed };
  }

  async function planWithRetries(prompt: string): Promise<{ steps: string[]; result: string }> {
    const attempts = Math.max(1, p.max_parse_retries);
    let next = prompt;
    let lastError = '';
    let lastRaw = '';
    for (let attempt = 0; attempt < attempts; attempt++) {
      const what = progress.steps_executed === 0 ? 'initial plan' : `reflect after step ${progress.steps_executed}`;
      lastRaw = await planner(next, attempt === 0 ? `planner: ${what}` : `planner: ${what}, retry ${attempt} after an unparseable answer`);
      const parsed = parsePlannerOutput(lastRaw);
      if (parsed.ok) return parsed;
      lastError = parsed.error;
      log.warn('planner answer could not be parsed; asking again', { attempt: attempt + 1, error: lastError });
      next = prompt + parseRetrySuffix(lastError);
    }
    throw ApplicationFailure.nonRetryable(
      `planner answer could not be parsed after ${attempts} attempts (${lastError}); last answer: ${JSON.stringify(preview(lastRaw, 500))}`,
      FailureTypes.PlannerOutputInvalid,
    );
  }

  async function summarizeSteps(): Promise<string> {
    const listing = completed.map((s, i) => `${i + 1}. ${s.step}: ${preview(s.result, 300)}`).join('\n');
    try {
      const answer = await summarize.executeWithOptions({ summary: 'planner: max-steps summary' }, [{
        model: agent.llm,
        system: MAX_STEPS_SUMMARY_SYSTEM_PROMPT,
        prompt: renderTemplate(MAX_STEPS_SUMMARY_PROMPT_TEMPLATE, {
          ...templateParams,
          completed_steps: formatCompletedSteps(completed),
        }),
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

function causeMessage(err: unknown): string {
  if (isCancellation(err)) return 'the run was cancelled';
  let message = '';
  for (let e = err as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.message) message = e.message; // the deepest cause that says something
  }
  return message || String(err);
}
