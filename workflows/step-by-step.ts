/**
 * Axon Ivy's STEP_BY_STEP agent (IvyAgent): the planning model writes a plan, the execution
 * model maps it to structured steps (each with one tool); each step runs in a ReAct executor
 * child with its tool, its result becomes a named variable, and the execution model decides
 * YES (insert adaptive steps, numbered stepNo + 1000), NO (continue) or COMPLETE (goal achieved).
 */
import { ApplicationFailure, log } from '@temporalio/workflow';
import { instructionsOf } from '../core/agent';
import { AiStep, numberAdaptiveSteps, parseAiSteps, parseStepDecision, type StepDecision } from '../core/agent-type-output';
import {
  AI_STEP_FIELDS,
  dataMappingPrompt,
  EXECUTION_DECISION_FORMAT,
  EXECUTION_PROMPT_TEMPLATE,
  fill,
  instructionBlock,
  maxIterationsReachedMessage,
  STEP_EXECUTION_TEMPLATE,
  STEP_PLANNING_TEMPLATE,
} from '../core/agent-type-prompts';
import { beginRun, toolListing, toolsNamed, variableListing, type AgentRunInput } from './agent-run';
import { FailureTypes, preview, type RunOutput, type StepView } from './definitions';

export async function stepByStep(input: AgentRunInput): Promise<RunOutput> {
  const run = await beginRun(input, input.parameters.max_iterations);
  const { agent, question, p, progress } = run;
  const goal = agent.goal ?? question;
  const toolIds = run.tools.map((t) => t.spec.name);
  const planning = instructionBlock(instructionsOf(agent, 'planning'));
  const execution = instructionBlock(instructionsOf(agent, 'execution'));
  const variables = [{ name: 'query', value: question }];
  const views: StepView[] = [];
  progress.steps = views;
  progress.variables = ['query'];

  return run.guard(async () => {
    const crudePlan = await run.ask({
      model: 'planning',
      position: { role: 'planner', call: 0 },
      summary: 'planning model: plan',
      prompt: fill(STEP_PLANNING_TEMPLATE, { goal, planningInstructions: planning, query: question, availableTools: toolListing(run.tools) }),
      withHistory: true,
    });
    const steps = await run.askParsed(
      {
        model: 'execution',
        position: { role: 'task', kind: 'mapping', call: 0 },
        summary: 'execution model: plan → steps',
        prompt: dataMappingPrompt(AI_STEP_FIELDS, crudePlan, toolIds),
      },
      (raw) => rejectUnknownTools(parseAiSteps(raw, toolIds)),
      'the structured steps',
    );
    const queue = [...steps].sort((a, b) => a.stepNo - b.stepNo).map(view);
    views.push(...queue);
    syncPlan();

    let unit = 0;
    let last: { unit: number; ok: boolean } | undefined;
    while (queue.length > 0) {
      if (unit >= p.max_iterations) {
        for (const s of queue) s.status = 'skipped';
        return run.finish(maxIterationsReachedMessage(p.max_iterations, doneListing(), run.ids.memory_id), metadata());
      }
      const step = queue.shift()!;
      step.status = 'running';
      syncPlan();
      const text = fill(STEP_EXECUTION_TEMPLATE, {
        goal,
        executionInstructions: execution,
        stepNo: String(step.stepNo),
        name: step.name,
        analysis: step.analysis ?? '',
        toolId: step.toolId,
        resultName: step.resultName ?? resultNameOf(step),
        resultDescription: step.resultDescription ?? '',
        variables: variableListing(variables),
      });
      const outcome = await run.runStep(unit, `step ${step.stepNo}: ${step.name}`, text, toolsNamed(run.tools, [step.toolId]));
      step.status = outcome.ok ? 'completed' : 'failed';
      variables.push({ name: step.resultName ?? resultNameOf(step), value: outcome.result });
      progress.variables = variables.map((v) => v.name);
      last = { unit, ok: outcome.ok };

      const decision = await decide(step, outcome.result, unit, queue);
      step.decision = decision.decision;
      if (decision.decision === 'COMPLETE') {
        for (const s of queue) s.status = 'skipped';
        syncPlan();
        break;
      }
      if (decision.decision === 'YES' && decision.steps.length > 0) {
        const taken = new Set(views.map((s) => s.stepNo));
        const adaptive = numberAdaptiveSteps(decision.steps, step.stepNo, taken).map((s) => ({ ...view(s), adaptive: true }));
        queue.unshift(...adaptive);
        views.splice(views.indexOf(step) + 1, 0, ...adaptive);
      }
      syncPlan();
      unit++;
    }
    const response = last ? await run.fullResult(last.unit) : '';
    return run.finish(response, metadata());
  });

  async function decide(step: StepView, latest: string, unit: number, remaining: StepView[]): Promise<{ decision: StepDecision; steps: AiStep[] }> {
    const prompt =
      fill(EXECUTION_PROMPT_TEMPLATE, { goal, executionInstructions: execution, originalQuery: question, currentStepName: step.name, latestResult: latest }) +
      fill(EXECUTION_DECISION_FORMAT, {
        observationHistory: progress.completed_steps.map((s) => `${s.step}: ${preview(s.result_preview, 300)}`).join('\n'),
        remainingSteps: remaining.map((s) => `${s.stepNo}. ${s.name} (${s.toolId})`).join('\n') || 'none',
        toolIds: toolIds.join(', ') || 'none',
      });
    const raw = await run.ask({ model: 'execution', position: { role: 'task', kind: 'decision', call: unit }, summary: `execution model: decision after step ${step.stepNo}`, prompt });
    const parsed = parseStepDecision(raw);
    if (!parsed.ok) {
      log.warn('decision could not be read; continuing with the plan', { error: parsed.error });
      return { decision: 'NO', steps: [] };
    }
    if (parsed.value.decision !== 'YES') return { decision: parsed.value.decision, steps: [] };
    if (parsed.value.steps.length === 0) {
      log.warn('decision YES came without steps to insert; continuing with the plan');
      return { decision: 'YES', steps: [] };
    }
    const steps = rejectUnknownTools(parseAiSteps(JSON.stringify(parsed.value.steps), toolIds));
    if (!steps.ok) {
      log.warn('adaptive steps could not be read; continuing with the plan', { error: steps.error });
      return { decision: 'YES', steps: [] };
    }
    return { decision: 'YES', steps: steps.value };
  }

  function syncPlan(): void {
    progress.plan = views.filter((s) => s.status === 'pending' || s.status === 'running').map((s) => s.name);
    run.showProgress();
  }

  function doneListing(): string {
    return progress.completed_steps.map((s) => `- ${s.step}: ${preview(s.result_preview, 300)}`).join('\n');
  }

  function metadata(): Record<string, unknown> {
    return {
      agent_type: 'step_by_step',
      goal,
      steps: views,
      variables: variables.map((v) => ({ name: v.name, value: preview(v.value, 500) })),
    };
  }
}

function view(s: AiStep): StepView {
  return { ...s, status: 'pending', adaptive: false };
}

const resultNameOf = (s: { stepNo: number }) => `step${s.stepNo}Result`;

/** A plan naming an unknown tool fails the run at once, as IvyAgent's "Tool not found". */
function rejectUnknownTools<T>(parsed: { ok: true; value: T } | { ok: false; error: string; toolNotFound?: string }) {
  if (!parsed.ok && 'toolNotFound' in parsed && parsed.toolNotFound !== undefined) {
    throw ApplicationFailure.nonRetryable(parsed.error, FailureTypes.ToolNotFound);
  }
  return parsed;
}
