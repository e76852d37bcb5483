/**
 * Axon Ivy's STEP_BY_STEP agent (IvyAgent): the planning model writes a plan, the execution
 * model maps it to structured steps (each with one tool); each step runs in a ReAct executor
 * child with its tool, its result becomes a named variable, and the execution model decides
 * YES (insert adaptive steps, numbered stepNo + 1000), NO (continue) or COMPLETE (goal achieved).
 */
import { ApplicationFailure, log, patched } from '@temporalio/workflow';
import {
  AI_STEP_FIELDS,
  carriedVariableListing,
  dataMappingPrompt,
  decisionRetrySuffix,
  EXECUTION_DECISION_FORMAT,
  EXECUTION_PROMPT_TEMPLATE,
  fill,
  foldStepByStep,
  maxIterationsReachedMessage,
  numberAdaptiveSteps,
  parseAiSteps,
  parseStepDecision,
  STEP_EXECUTION_TEMPLATE,
  STEP_PLANNING_TEMPLATE,
  toolListing,
  toolsNamed,
  variablesMetadata,
  type AiStep,
  type EarlierStepByStep,
  type StepDecision,
  type Variable,
} from '../core/agent-types';
import { wholeResultMarker } from '../core/template';
import { preview } from '../core/text';
import { FailureTypes, type RunInput, type RunOutput, type StepView } from './definitions';
import { addVariable, openAgentTypeRun, showPlan, skipPending } from './kernel/agent-type-run';
import { CARRIED_STEPS, checkpoint, finish, guard } from './kernel/lifecycle';
import { finishAnswer } from './kernel/typed-output';
import { ask, askJudgment, askParsed } from './kernel/model-calls';
import { counterOf } from './kernel/call-positions';
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
  /** Decisions asked again after an unreadable answer, so far (the scripted model's position). */
  decisionRetries?: number;
  /** A long run's earliest steps and results, no longer carried (memory holds them). */
  earlier?: EarlierStepByStep;
}

/** IvyAgent's FINALIZE_STEP: a step whose `next` is -1 is the last. */
const FINALIZE_STEP = -1;
/** Runs recorded before followed the list order whatever `next` said, and never re-asked a decision. */
const NEXT_STEP_PATCH = 'step-by-step-follows-next';
const DECISION_RETRY_PATCH = 'step-by-step-decision-retry';
/** Runs recorded before carried every step and result across continue-as-new. */
const EARLIER_STEPS_PATCH = 'step-by-step-earlier-steps';

export async function stepByStep(input: RunInput<StepByStepState>): Promise<RunOutput> {
  const { run, state, toolIds, planning, execution } = await openAgentTypeRun<StepByStepState>(input, (p) => p.max_iterations, ({ question }) => ({
    views: [],
    variables: [{ name: 'query', value: question }],
    unit: 0,
  }));
  const { agent, question, p, progress } = run;
  const goal = agent.goal ?? question;
  const { views, variables } = state;
  progress.steps = views;
  addVariable(run, variables);

  return guard(run, async () => {
    if (!run.carried) await plan();
    syncPlan();
    for (let step = nextStep(); step; step = nextStep()) {
      if (state.unit >= p.max_iterations) {
        skipPending(views);
        return finish(run, maxIterationsReachedMessage(p.max_iterations, doneListing(), run.ids.memory_id), metadata());
      }
      const ended = await checkpoint(run, { state: () => state, fold, metadata });
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
        variables: carriedVariableListing(variables, state.earlier),
      });
      const unit = state.unit;
      const outcome = await runStep(run, { unit, label: `step ${step.stepNo}: ${step.name}`, text, tools: toolsNamed(run.tools, [step.toolId]) });
      step.status = outcome.ok ? 'completed' : 'failed';
      addVariable(run, variables, { name: step.resultName ?? resultNameOf(step), value: outcome.result });
      state.last = { unit, ok: outcome.ok };

      const decision = await decide(step, outcome.result, unit, views.filter((s) => s.status === 'pending'));
      step.decision = decision.decision;
      if (decision.decision === 'COMPLETE') {
        skipPending(views);
        syncPlan();
        break;
      }
      if (decision.decision === 'YES' && decision.steps.length > 0) {
        const taken = new Set(views.map((s) => s.stepNo));
        const adaptive = numberAdaptiveSteps(decision.steps, step.stepNo, taken).map((s) => ({ ...view(s), adaptive: true }));
        views.splice(views.indexOf(step) + 1, 0, ...adaptive);
      } else if (decision.decision === 'NO' && followNext(step)) {
        syncPlan();
        break;
      }
      syncPlan();
      state.unit++;
    }
    const response = state.last ? await fullResult(run, state.last.unit) : '';
    return finishAnswer(run, response, metadata());
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

  /**
   * Follows a step's `next` after a NO decision, where it differs from the list order:
   * FINALIZE_STEP (-1) ends the run (the rest is skipped), a later step is jumped to (the steps
   * between are skipped), an earlier one runs again (bounded by `max_iterations`).
   * @returns true when the run ends here
   */
  function followNext(step: StepView): boolean {
    const following = nextStep();
    // Adaptive steps were renumbered (stepNo + 1000): their own `next` no longer names a step.
    if (step.adaptive || step.next === undefined || step.next === following?.stepNo) return false;
    if (step.next === FINALIZE_STEP) {
      if (!following || !patched(NEXT_STEP_PATCH)) return false;
      skipPending(views);
      return true;
    }
    const at = views.indexOf(step);
    const later = views.findIndex((s, i) => i > at && s.status === 'pending' && s.stepNo === step.next);
    if (later !== -1) {
      if (!patched(NEXT_STEP_PATCH)) return false;
      for (let i = at + 1; i < later; i++) if (views[i].status === 'pending') views[i].status = 'skipped';
      return false;
    }
    const earlier = views.find((s, i) => i <= at && s.stepNo === step.next);
    if (earlier) {
      if (!patched(NEXT_STEP_PATCH)) return false;
      const { decision: _d, ...again } = earlier;
      views.splice(at + 1, 0, { ...again, status: 'pending', repeated: true });
      return false;
    }
    log.warn('a step names a next step that is not in the plan; continuing with the plan', { step: step.stepNo, next: step.next });
    return false;
  }

  /** The next step to run: steps run in list order, and adaptive steps are inserted after the step that decided them. */
  function nextStep(): StepView | undefined {
    return views.find((s) => s.status === 'pending');
  }

  async function decide(step: StepView, latest: string, unit: number, remaining: StepView[]): Promise<{ decision: StepDecision; steps: AiStep[] }> {
    const prompt =
      fill(EXECUTION_PROMPT_TEMPLATE, { goal, executionInstructions: execution, originalQuery: question, currentStepName: step.name, latestResult: wholeResultMarker(unit) }) +
      fill(EXECUTION_DECISION_FORMAT, {
        observationHistory: progress.completed_steps.map((s) => `${s.step}: ${preview(s.result_preview, 300)}`).join('\n'),
        remainingSteps: remaining.map((s) => `${s.stepNo}. ${s.name} (${s.toolId})`).join('\n') || 'none',
        toolIds: toolIds.join(', ') || 'none',
      });
    // An unreadable decision is asked again, with the parse error, up to max_parse_retries times; then the plan goes on.
    const decided = await askJudgment(
      run,
      // The decision judges the step's whole result (read from memory by the activity).
      { model: 'execution', position: { role: 'task', kind: 'decision', call: unit }, summary: `execution model: decision after step ${step.stepNo}`, prompt, takesFeedback: true, wholeResults: { [unit]: latest } },
      parseStepDecision,
      { next: unit },
      {
        kind: 'decision',
        fallback: { decision: 'NO' as const, steps: [] },
        assumed: 'NO (the plan goes on)',
        retry: { position: () => ({ role: 'task', kind: 'decision_retry', call: counterOf(state, 'decisionRetries').next++ }), suffix: decisionRetrySuffix },
        patch: DECISION_RETRY_PATCH,
      },
    );
    if (decided.decision !== 'YES') return { decision: decided.decision, steps: [] };
    if (decided.steps.length === 0) {
      log.warn('decision YES came without steps to insert; continuing with the plan');
      return { decision: 'YES', steps: [] };
    }
    const steps = rejectUnknownTools(parseAiSteps(JSON.stringify(decided.steps), toolIds));
    if (!steps.ok) {
      log.warn('adaptive steps could not be read; continuing with the plan', { error: steps.error });
      return { decision: 'YES', steps: [] };
    }
    return { decision: 'YES', steps: steps.value };
  }

  function syncPlan(): void {
    showPlan(run, views.filter((s) => s.status === 'pending' || s.status === 'running').map((s) => s.name));
  }

  function doneListing(): string {
    return progress.completed_steps.map((s) => `- ${s.step}: ${preview(s.result_preview, 300)}`).join('\n');
  }

  function metadata(): Record<string, unknown> {
    const { earlier } = state;
    return {
      agent_type: 'step_by_step',
      goal,
      steps: views,
      variables: variablesMetadata(variables),
      // A long run's earliest steps and results are in memory (`perflow memory`), counted here.
      ...(earlier ? { earlier_steps: earlier.views, earlier_variables: earlier.variables } : {}),
    };
  }

  /** Before a continue-as-new: a long run carries its latest CARRIED_STEPS steps and results only, so its input stays small. */
  function fold(): Promise<void> {
    const long = variables.length - 1 > CARRIED_STEPS || views.filter((s) => s.status !== 'pending' && s.status !== 'running').length > CARRIED_STEPS;
    if (long && patched(EARLIER_STEPS_PATCH)) foldStepByStep(state, CARRIED_STEPS);
    return Promise.resolve();
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
