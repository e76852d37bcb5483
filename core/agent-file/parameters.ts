/**
 * Agent parameters: the seed's, with its names and defaults, and perflow's own. One schema holds
 * every parameter with its TSDoc and default, so the whole set reads (and is reviewed against
 * the seeds) in one place; their resolution for one run is resolve-parameters.ts.
 */
import { z } from 'zod';
import { DEFAULT_REPLAN_KEYWORDS } from '../prompts';
import { datetimeFormatProblem } from '../datetime';
import type { DefaultedTexts } from './parameter-defaults';
import { booleanParam, durationParam, integerParam, stringParam, toNumber } from './coerce';
import { LlmInterface } from './model';

// ---------------------------------------------------------------------------------------------
// parameters

/**
 * Agent parameters: every optional parameter of the seed under its seed name and with its
 * seed default, plus perflow's own. Numbers and booleans may be given as strings (`"20"`,
 * `"true"`), as in the seed's API. Unknown parameters are kept, so custom prompts can
 * reference any `${parameters.x}`.
 */
export const AgentParameters = z.looseObject({
  /**
   * Maximum number of steps to execute before the run stops with a summary.
   * @default 20
   */
  max_steps: integerParam(1, 20),
  /**
   * Maximum ReAct iterations (model calls) of the executor for one step.
   * @default 20
   */
  executor_max_iterations: integerParam(1, 20),
  /**
   * Number of previous messages of the conversation given to the planner as completed steps.
   * @default 10
   */
  message_history_limit: integerParam(0, 10),
  /**
   * Number of previous messages of the executor's memory given to the executor.
   * @default 10
   */
  executor_message_history_limit: integerParam(0, 10),
  /**
   * Whether the current date and time is appended to both system prompts.
   * @default false
   */
  inject_datetime: booleanParam(false),
  /**
   * strftime-like format of the injected date (`%Y %m %d %H %M %S %A %B %Z`), or the same
   * fields in Java style (`yyyy-MM-dd HH:mm:ss`); anything else is refused before the run starts.
   * @default "%Y-%m-%d %H:%M:%S %Z"
   */
  datetime_format: stringParam().superRefine((format, ctx) => {
    // Blank is not set (the default format), as ml-commons' getCurrentDateTime has it.
    const problem = format === undefined || format.trim() === '' ? undefined : datetimeFormatProblem(format);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  /**
   * Planner system prompt.
   * @default DEFAULT_PLANNER_SYSTEM_PROMPT
   */
  system_prompt: stringParam(),
  /**
   * Executor system prompt.
   * @default DEFAULT_EXECUTOR_SYSTEM_PROMPT
   */
  executor_system_prompt: stringParam(),
  /**
   * Planner instruction, `${parameters.planner_prompt}` in the templates.
   * @default DEFAULT_PLANNER_PROMPT
   */
  planner_prompt: stringParam(),
  /**
   * Reflection instruction, `${parameters.reflect_prompt}` in the reflect template.
   * @default DEFAULT_REFLECT_PROMPT
   */
  reflect_prompt: stringParam(),
  /**
   * Template of the first planner call.
   * @default DEFAULT_PLANNER_PROMPT_TEMPLATE
   */
  planner_prompt_template: stringParam(),
  /**
   * Template of the planner calls after a step.
   * @default DEFAULT_REFLECT_PROMPT_TEMPLATE
   */
  reflect_prompt_template: stringParam(),
  /**
   * Template of the first planner call when the conversation has history.
   * @default DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE
   */
  planner_with_history_template: stringParam(),
  /**
   * LLM interface of the planner, seed spelling.
   * @default llm.interface
   */
  llm_interface: LlmInterface.optional(),
  /**
   * LLM interface of the planner as the seed's register-agent body names it; also used as
   * `llm.interface` when that is missing.
   * @default llm.interface
   */
  _llm_interface: LlmInterface.optional(),
  /**
   * JSONPath to the answer text in a raw model response.
   * @default per interface, see `llmResponseFilterFor`
   */
  llm_response_filter: stringParam(),
  /**
   * The user's question (the objective). Usually given at run time.
   * @default none
   */
  question: stringParam(),
  /**
   * Conversation to continue; its history becomes completed steps.
   * @default a new conversation
   */
  memory_id: stringParam(),
  /**
   * Executor memory to continue (seed 000): the executor sees its earlier steps.
   * @default a new executor memory
   */
  executor_agent_memory_id: stringParam(),
  /**
   * ID of an executor agent in another system (seed parameter; perflow's executor is built in):
   * stored on the executor memory as `agent_id`.
   * @default none
   */
  executor_agent_id: stringParam(),
  /**
   * Tenant identifier, stored on every memory document and interaction of the run; `perflow
   * memory --tenant` and `perflow list --tenant` filter by it. The run's model calls count into
   * the tenant's daily dollar cap (`perflow budget set`).
   * @default none
   */
  tenant_id: stringParam(),
  /**
   * How many times an unparseable model answer (a plan, steps, todos) is asked again, with the
   * parse error appended, before the run fails: at most 1 + max_parse_retries calls. perflow's own.
   * @default 2
   */
  max_parse_retries: integerParam(0, 2),
  /**
   * Token budget of a run (input + output tokens of every model call). When a step ends with
   * the budget used up, the run ends cleanly with "Token Budget Reached" and a summary, as at
   * max_steps. 0 means no budget. perflow's own parameter.
   * @default 0
   */
  token_budget: integerParam(0, 0),
  /**
   * A dollar budget of the run (US dollars, the run's `usage.cost_usd`), checked before each of
   * the run's model calls: when the next call would start at or over it, `budget_action` is
   * taken. Every model of the agent file needs a known price (docs/cost.md). perflow's own.
   * @default none (no budget)
   */
  max_cost_usd: z
    .preprocess(toNumber, z.number({ error: 'expected a positive number of US dollars' }).positive({ error: 'expected a positive number of US dollars' }))
    .optional(),
  /**
   * What happens when the run reaches `max_cost_usd`: `pause` (the run waits with status
   * `awaiting_budget` until `perflow raise-budget` or `perflow reject --stop`), `stop` (it ends
   * with a summary of the steps so far, as at max_steps) or `fail` (`Budget.Exceeded`). perflow's own.
   * @default "pause"
   */
  budget_action: z.enum(['pause', 'stop', 'fail'], { error: 'expected pause, stop or fail' }).optional(),
  /**
   * Continue-as-new once the run's history holds this many events (checked between steps);
   * the run also continues-as-new whenever the Temporal server suggests it. 0: only then.
   * perflow's own parameter.
   * @default 0
   */
  continue_as_new_after_events: integerParam(0, 0),
  /**
   * step_by_step and todo_list: the most step executions (todo iterations) of a run, Axon Ivy's
   * `maxIterations`.
   * @default 20
   */
  max_iterations: integerParam(1, 20),
  /**
   * todo_list: iterations of a todo whose plan does not set `maxIterationsPerTodo`.
   * @default 5
   */
  max_iterations_per_todo: integerParam(1, 5),
  /**
   * plan_and_execute: attempts of a step before it counts as failed.
   * @default 3
   */
  max_step_attempts: integerParam(1, 3),
  /**
   * plan_and_execute: re-plan when a step failed after at least this many attempts.
   * @default 3
   */
  replan_after_failed_attempts: integerParam(1, 3),
  /**
   * plan_and_execute: words in a step's observation that signal a missing prerequisite or a
   * new requirement and trigger re-planning (case-insensitive). A comma-separated string works too.
   * @default DEFAULT_REPLAN_KEYWORDS
   */
  replan_keywords: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : v),
      z.array(z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }), { error: 'expected an array of strings' }),
    )
    .default([...DEFAULT_REPLAN_KEYWORDS]),
  /**
   * plan_and_execute: the viability check re-plans when it says the remaining plan will not
   * work with at least this confidence (0 to 1).
   * @default 0.7
   */
  replan_confidence_threshold: z
    .preprocess(toNumber, z.number({ error: 'expected a number from 0 to 1' }).min(0, { error: 'expected a number from 0 to 1' }).max(1, { error: 'expected a number from 0 to 1' }))
    .default(0.7),
  /**
   * plan_execute_and_reflect and plan_and_execute: how many steps may run at once. Above 1, the planner is told it
   * may group independent steps (`[["find A", "find B"], "compare"]`); the first group runs as
   * concurrent executor children, at most this many at once, and the planner reflects once over
   * all of them. 1: the seed's behaviour (a group the planner writes anyway runs one step at a
   * time: its first step, then the planner reflects). plan_and_execute: steps with
   * `depends_on` whose dependencies are done run together. perflow's own parameter.
   * @default 1
   */
  max_parallel_steps: integerParam(1, 1),
  /**
   * Which plans a person reviews before they run: `none` (the seed's behaviour), `first` (the
   * first plan) or `every` (each new plan). The run waits with status `awaiting_approval`
   * until `perflow approve` or `perflow reject` answers. plan_execute_and_reflect and
   * plan_and_execute. perflow's own parameter.
   * @default "none"
   */
  plan_approval: z.enum(['none', 'first', 'every'], { error: 'expected none, first or every' }).default('none'),
  /**
   * How long a plan or a tool call waits for a person's decision before
   * `approval_timeout_action` is taken, in seconds or as `"15m"`, `"2h"`, `"1d"`. perflow's own.
   * @default none (waits until answered)
   */
  approval_timeout: durationParam(),
  /**
   * What happens when nobody answers within `approval_timeout`: `approve` the plan or tool
   * call, or `reject` it (a plan is re-planned, a tool call is denied). perflow's own.
   * @default "reject"
   */
  approval_timeout_action: z.enum(['approve', 'reject'], { error: 'expected approve or reject' }).default('reject'),
  /**
   * How many times in a row a proposed plan may be rejected and re-planned; the next rejection
   * ends the run with its reason. perflow's own parameter.
   * @default 3
   */
  max_plan_rejections: integerParam(0, 3),
});
/** Agent parameters as parsed (prompts not yet filled in; see {@link ResolvedParameters}). */
export type AgentParameters = z.infer<typeof AgentParameters>;

/**
 * Parameters of one run, fully defaulted: agent parameters overridden by run parameters,
 * prompts, interface and response filter filled in. Unknown parameters are carried through.
 */
export type ResolvedParameters = AgentParameters &
  DefaultedTexts & {
    /** The planner's interface. @default llm.interface */
    llm_interface: LlmInterface;
    /** JSONPath for the planner's interface. @default llmResponseFilterFor(llm_interface) */
    llm_response_filter: string;
  };
