/**
 * Axon Ivy's STEP_BY_STEP agent (IvyAgent): the planning model writes a plan, the execution
 * model maps it to structured steps (each with one tool); each step runs in a ReAct executor
 * child with its tool, its result becomes a named variable, and the execution model decides
 * YES (insert adaptive steps, numbered stepNo + 1000), NO (continue) or COMPLETE (goal achieved).
 */
import { ApplicationFailure, log } from '@temporalio/workflow';
import { instructionsOf } from '../core/agent';
import { AiStep, numberAdaptiveSteps, parseAiSteps, parseStepDecision, type StepDecision } from '../core/agent-types';
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
} from '../core/agent-types';
import { preview } from '../core/text';
import { FailureTypes, type RunInput, type RunOutput, type StepView } from './definitions';
import { agentTypeSystemPrompt, toolListing, toolsNamed, variableListing, type Variable } from './agent-type-helpers';
import { openRun } from './kernel/context';
import { checkpoint, finish, guard } from './kernel/lifecycle';
import { ask, askParsed } from './kernel/model-calls';
import { fullResult, runStep } from './kernel/steps';

/** What a step_by_step run carries across continue-as-new. */
interface StepByStepState {
  /** Every step, planned and adaptive, in execution order; the pending ones are still to run. */
  views: StepView[];
  variables: Variable[];
  /** Steps executed so far. */
  unit: number;
  /** The last executed step, whose whole result is the response. */
  last?: { unit: number; ok: boolean };
}

export async function stepByStep(input: RunInput<StepByStepState>): Promise<RunOutput> {
  const run = await openRun(input, { maxUnits: input.parameters.max_iterations, planningSystem: agentTypeSystemPrompt(input.parameters) });
  const { agent, question, p, progress } = run;
  const goal = agent.goal ?? question;
  const toolIds = run.tools.map((t) => t.spec.name);
  const planning = instructionBlock(instructionsOf(agent, 'planning'));
  const execution = instructionBlock(instructionsOf(agent, 'execution'));
  const state: StepByStepState = run.carried?.agent_state ?? { views: [], variables: [{ name: 'query', value: question }], unit: 0 };
  const { views, variables } = state;
  progress.steps = views;
  progress.variables = variables.map((v) => v.name);

  return guard(run, async () => {
    if (!run.carried) await plan();
    syncPlan();
    for (let step = nextStep(); step; step = nextStep()) {
      if (state.unit >= p.max_iterations) {
        for (const s of views) if (s.status === 'pending') s.status = 'skipped';
        return finish(run, maxIterationsReachedMessage(p.max_iterations, doneListing(), run.ids.memory_id), metadata());
      }
      const ended = await checkpoint(run, { state: () => state, metadata });
      if (ended) return ended;
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
      const unit = state.unit;
      const outcome = await runStep(run, { unit, label: `step ${step.stepNo}: ${step.name}`, text, tools: toolsNamed(run.tools, [step.toolId]) });
      step.status = outcome.ok ? 'completed' : 'failed';
      variables.push({ name: step.resultName ?? resultNameOf(step), value: outcome.result });
      progress.variables = variables.map((v) => v.name);
      state.last = { unit, ok: outcome.ok };

      const decision = await decide(step, outcome.result, unit, views.filter((s) => s.status === 'pending'));
      step.decision = decision.decision;
      if (decision.decision === 'COMPLETE') {
        for (const s of views) if (s.status === 'pending') s.status = 'skipped';
        syncPlan();
        break;
      }
      if (decision.decision === 'YES' && decision.steps.length > 0) {
        const taken = new Set(views.map((s) => s.stepNo));
        const adaptive = numberAdaptiveSteps(decision.steps, step.stepNo, taken).map((s) => ({ ...view(s), adaptive: true }));
        views.splice(views.indexOf(step) + 1, 0, ...adaptive);
      }
      syncPlan();
      state.unit++;
    }
    const response = state.last ? await fullResult(run, state.last.unit) : '';
    return finish(run, response, metadata());
  });

  /** The plan, then its structured steps (the execution model's mapping). */
  async function plan(): Promise<void> {
    const crudePlan = await ask(run, {
      model: 'planning',
      position: { role: 'planner', call: 0 },
      summary: 'planning model: plan',
      prompt: fill(STEP_PLANNING_TEMPLATE, { goal, planningInstructions: planning, query: question, availableTools: toolListing(run.tools) }),
      withHistory: true,
    });
    const steps = await askParsed(
      run,
      {
        model: 'execution',
        position: { role: 'task', kind: 'mapping', call: 0 },
        summary: 'execution model: plan → steps',
        prompt: dataMappingPrompt(AI_STEP_FIELDS, crudePlan, toolIds),
      },
      (raw) => rejectUnknownTools(parseAiSteps(raw, toolIds)),
      'the structured steps',
      { next: 0 },
    );
    views.push(...[...steps].sort((a, b) => a.stepNo - b.stepNo).map(view));
  }

  /** The next step to run: steps run in list order, and adaptive steps are inserted after the step that decided them. */
  function nextStep(): StepView | undefined {
    return views.find((s) => s.status === 'pending');
  }

  async function decide(step: StepView, latest: string, unit: number, remaining: StepView[]): Promise<{ decision: StepDecision; steps: AiStep[] }> {
    const prompt =
      fill(EXECUTION_PROMPT_TEMPLATE, { goal, executionInstructions: execution, originalQuery: question, currentStepName: step.name, latestResult: latest }) +
      fill(EXECUTION_DECISION_FORMAT, {
        observationHistory: progress.completed_steps.map((s) => `${s.step}: ${preview(s.result_preview, 300)}`).join('\n'),
        remainingSteps: remaining.map((s) => `${s.stepNo}. ${s.name} (${s.toolId})`).join('\n') || 'none',
        toolIds: toolIds.join(', ') || 'none',
      });
    const raw = await ask(run, { model: 'execution', position: { role: 'task', kind: 'decision', call: unit }, summary: `execution model: decision after step ${step.stepNo}`, prompt });
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
