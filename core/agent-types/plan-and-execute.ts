/**
 * Structured plan-and-execute (seed 003): its prompts, the parsing of plans and viability
 * checks, re-planning, renumbering and the run statistics (its default keywords: core/prompts.ts).
 *
 * Pure module: safe to import from workflow code.
 *
 * @module
 */
import { z } from 'zod';
import { extractJson, type Parsed } from '../json-in-text';
import { intFrom, lazySchema, optionalText, parseList, zodProblem } from './common';


/** The planning prompt of plan_and_execute (`get_execution_plan_prompt`). */
export const EXECUTION_PLAN_TEMPLATE = `You are planning how to answer a user query with tools. Break it into executable steps.

{{planningInstructions}}USER QUERY: {{query}}

AVAILABLE TOOLS:
{{availableTools}}

Respond with a JSON array only. Each element is one step:
{"goal": "what the step achieves", "primary_tools": ["the tool to use first", ...], "success_criteria": "how to tell the step is done", "context": "optional hints or constraints"}
Use only the available tools. Keep the plan short: the last step should yield what the answer needs.`;

/**
 * perflow's own addition to the plan prompt when `max_parallel_steps` > 1 (the seed's text
 * stays as it is): steps may name their dependencies.
 */
export function parallelPlanInstructions(maxParallel: number): string {
  return `

Steps may run in parallel: add "depends_on": [numbers of the earlier steps whose results the step needs] to a step (steps are numbered from 1 in plan order; "depends_on": [] needs none). Consecutive steps whose dependencies are done run at the same time (at most ${maxParallel}); a step without "depends_on" waits for every step before it.`;
}

/** The input of one step's guided ReAct execution (`_build_action_input_from_plan`). */
export const STEP_ACTION_TEMPLATE = `{{executionInstructions}}Original query: {{query}}

Current step ({{stepNum}} of {{totalSteps}}): {{goal}}
Use the tool "{{tool}}".
Success criteria: {{successCriteria}}{{context}}{{previousResults}}`;

/** The LLM viability check after a step (`PlanAdapter.should_replan`, trigger 3). */
export const VIABILITY_TEMPLATE = `USER QUERY: {{query}}

COMPLETED STEPS:
{{completedSteps}}

REMAINING PLAN:
{{remainingSteps}}

Given the results so far, will the remaining plan still achieve the goal?
Respond with a JSON object only: {"replan": true|false, "confidence": a number from 0 to 1 that re-planning is needed, "reason": "why"}`;

/** The StepVerifier's check of a step's success criteria against its observation. */
export const STEP_VERIFICATION_TEMPLATE = `STEP GOAL: {{goal}}
SUCCESS CRITERIA: {{successCriteria}}

OBSERVATION:
{{observation}}

Does the observation meet the success criteria?
Respond with a JSON object only: {"met": true|false, "reason": "why, and what is missing when not met"}`;

/** plan_and_execute plans at this temperature unless the agent's `llm.parameters` set one (seed 003). */
export const PLANNING_TEMPERATURE = 0.3;

/** The re-planning prompt (`PlanAdapter.adapt_plan`). */
export const ADAPT_PLAN_TEMPLATE = `The plan for a user query has to change.

{{planningInstructions}}USER QUERY: {{query}}

COMPLETED STEPS (keep their work; do not repeat them):
{{completedSteps}}

ISSUE: {{issue}}

PLAN THAT NO LONGER WORKS (the unfinished part):
{{remainingSteps}}

AVAILABLE TOOLS:
{{availableTools}}

Write a new plan for the rest of the work that addresses the issue and continues toward the original goal. Respond with a JSON array only, each element {"goal", "primary_tools", "success_criteria", "context"}.`;

/** Final-answer synthesis from the step summaries (`react_final_answer_from_steps`). */
export const FINAL_ANSWER_TEMPLATE = `Answer the user query using the results of the executed plan.

USER QUERY: {{query}}

STEPS:
{{stepSummaries}}

OBSERVATIONS:
{{observations}}

Write the final answer for the user. Use only what the steps found; say plainly what could not be done.`;


/** A structured plan step (seed 003 `PlanStep`). */
export interface PlanStep {
  step_num: number;
  goal: string;
  primary_tools: string[];
  success_criteria: string;
  context?: string;
  /** The step numbers whose results this step needs (max_parallel_steps > 1): it may run once they are done. Absent: after every step before it. */
  depends_on?: number[];
}

const planStepInput = lazySchema(() =>
  z.object({
    step_num: intFrom().optional().catch(undefined),
    goal: z.string().min(1),
    primary_tools: z.preprocess((v) => (typeof v === 'string' ? [v] : v ?? []), z.array(z.string())),
    success_criteria: z.string().default(''),
    context: optionalText(),
    depends_on: z.array(intFrom()).optional().catch(undefined),
  }),
);

/** Parses a plan (a JSON array of steps), numbering steps that have no `step_num` by position from `firstNum`. */
export function parsePlanSteps(raw: string, firstNum = 1): Parsed<PlanStep[]> {
  const parsed = parseList(raw, planStepInput(), 'plan steps');
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    value: parsed.value.map((s, i) => ({
      step_num: s.step_num ?? firstNum + i,
      goal: s.goal,
      primary_tools: s.primary_tools,
      success_criteria: s.success_criteria,
      ...(s.context !== undefined && s.context !== '' ? { context: s.context } : {}),
      ...(s.depends_on !== undefined ? { depends_on: s.depends_on } : {}),
    })),
  };
}

/** Completed steps keep their numbers; the new steps follow them, numbered on, so numbers only grow. */
export function renumberAdapted(completed: readonly PlanStep[], adapted: readonly PlanStep[]): PlanStep[] {
  const start = completed.length === 0 ? 1 : Math.max(...completed.map((s) => s.step_num)) + 1;
  return [...completed, ...adapted.map((s, i) => ({ ...s, step_num: start + i }))];
}

/** The viability check's answer (trigger 3). */
export function parseViability(raw: string): Parsed<{ replan: boolean; confidence: number; reason: string }> {
  const extracted = extractJson(raw, 'object');
  if (!extracted.ok) return extracted;
  const parsed = z
    .object({
      replan: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() === 'true' : v), z.boolean()),
      confidence: z.preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number().min(0).max(1)),
      reason: z.string().default(''),
    })
    .safeParse(extracted.value);
  if (!parsed.success) return { ok: false, error: zodProblem(parsed.error, 'viability') };
  return { ok: true, value: parsed.data };
}

/** Parses the StepVerifier's verdict. */
export function parseVerification(raw: string): Parsed<{ met: boolean; reason: string }> {
  const extracted = extractJson(raw, 'object');
  if (!extracted.ok) return extracted;
  const parsed = z
    .object({
      met: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() === 'true' : v), z.boolean()),
      reason: z.string().default(''),
    })
    .safeParse(extracted.value);
  if (!parsed.success) return { ok: false, error: zodProblem(parsed.error, 'verification') };
  return { ok: true, value: parsed.data };
}

/** The first configured keyword found in an observation (case-insensitive), for trigger 2. */
export function findReplanKeyword(observation: string, keywords: readonly string[]): string | undefined {
  const text = observation.toLowerCase();
  return keywords.find((k) => k.trim() !== '' && text.includes(k.toLowerCase()));
}

/** One executed plan step (seed 003 `StepResult`). */
export interface StepResult {
  step_num: number;
  goal: string;
  success: boolean;
  tool_used: string;
  attempts: number;
  /** The observation, truncated to {@link OBSERVATION_METADATA_CHARS}. */
  observation: string;
  error?: string;
}

/** Longest observation kept in a run's metadata. */
export const OBSERVATION_METADATA_CHARS = 500;

/** The run statistics of seed 003: steps, successes, failures, success rate %, attempts, unique tools. */
export interface PlanStatistics {
  total_steps: number;
  successful_steps: number;
  failed_steps: number;
  /** Percentage with one decimal, 0 when no step ran. */
  success_rate: number;
  total_attempts: number;
  unique_tools: string[];
}

/** The statistics of the results, and of the steps a long run no longer carries when it says how they went. */
export function planStatistics(results: readonly StepResult[], earlier?: { steps: number; successful: number; attempts: number; tools: readonly string[] }): PlanStatistics {
  const total = (earlier?.steps ?? 0) + results.length;
  const ok = (earlier?.successful ?? 0) + results.filter((r) => r.success).length;
  return {
    total_steps: total,
    successful_steps: ok,
    failed_steps: total - ok,
    success_rate: total === 0 ? 0 : Math.round((ok / total) * 1000) / 10,
    total_attempts: (earlier?.attempts ?? 0) + results.reduce((n, r) => n + r.attempts, 0),
    unique_tools: [...new Set([...(earlier?.tools ?? []), ...results.map((r) => r.tool_used).filter((t) => t !== '')])].sort(),
  };
}

/** A step of a plan_and_execute plan as `progress` shows it (seed 003 `PlanStep` and its state). */
export interface PlanStepView extends PlanStep {
  status: 'pending' | 'running' | 'completed' | 'failed';
  attempts: number;
}

/** Why and when a plan_and_execute run re-planned. */
export interface Replan {
  after_step: number;
  /** `fork`: a forked run re-plans the steps after the ones it reused, under its own settings. */
  trigger: 'step_failed' | 'keyword' | 'viability' | 'guidance' | 'fork';
  reason: string;
}
