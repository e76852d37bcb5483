/**
 * The most a caller may ask of a run: an upper bound for every integer parameter and for the
 * question. A deployment raises them (the client's `PERFLOW_PARAMETER_LIMITS`, a JSON object such
 * as `{"max_steps": 20000}`); beyond them a run is refused before it starts, in one line naming
 * the field. Pure module.
 *
 * @module
 */

/** Default upper bounds (docs/agent-file.md). */
export const PARAMETER_LIMITS = {
  max_steps: 5_000,
  executor_max_iterations: 200,
  message_history_limit: 1_000,
  executor_message_history_limit: 1_000,
  max_parse_retries: 10,
  token_budget: 1_000_000_000,
  // Temporal ends a workflow at 51,200 events.
  continue_as_new_after_events: 50_000,
  max_iterations: 5_000,
  max_iterations_per_todo: 200,
  max_step_attempts: 20,
  replan_after_failed_attempts: 20,
  max_parallel_steps: 32,
  max_plan_rejections: 100,
} as const satisfies Record<string, number>;

export type ParameterLimits = { [K in keyof typeof PARAMETER_LIMITS]: number };

/** The longest question a run takes (characters). */
export const QUESTION_MAX_CHARS = 100_000;

/** Where each bound is raised (the refusals name it). */
export const LIMITS_VARIABLE = 'PERFLOW_PARAMETER_LIMITS';

/** The parameters above their bound, as `parameters.x` issues. */
export function limitIssues(p: Readonly<Record<string, unknown>>, limits: ParameterLimits = PARAMETER_LIMITS): Array<{ path: string; message: string }> {
  return Object.entries(limits).flatMap(([key, max]) => {
    const value = p[key];
    return typeof value === 'number' && value > max ? [{ path: `parameters.${key}`, message: `${value} is above this deployment's limit of ${max} (raise it with ${LIMITS_VARIABLE}='{"${key}": N}')` }] : [];
  });
}

/** The limits with a deployment's raises (a JSON object of parameter → bound); a malformed value is an Error naming it. */
export function parameterLimits(json: string | undefined): ParameterLimits {
  if (json === undefined || json.trim() === '') return PARAMETER_LIMITS;
  let raised: unknown;
  try {
    raised = JSON.parse(json);
  } catch {
    raised = undefined;
  }
  if (typeof raised !== 'object' || raised === null || Array.isArray(raised)) throw new Error(`${LIMITS_VARIABLE} must be a JSON object such as {"max_steps": 20000}`);
  const limits: Record<string, number> = { ...PARAMETER_LIMITS };
  for (const [key, value] of Object.entries(raised)) {
    if (!(key in PARAMETER_LIMITS)) throw new Error(`${LIMITS_VARIABLE}: "${key}" has no limit; limited parameters: ${Object.keys(PARAMETER_LIMITS).join(', ')}`);
    if (!Number.isInteger(value) || (value as number) < 1) throw new Error(`${LIMITS_VARIABLE}: ${key} must be a positive integer, got ${JSON.stringify(value)}`);
    limits[key] = value as number;
  }
  return limits as ParameterLimits;
}
