/**
 * The default texts of run parameters, by release. A run records the set it was started with
 * (`parameter_defaults`) and leaves out the values equal to that set's, so its start event
 * does not carry ~7 KB of default prompts, and its replays and resets read the same texts after
 * a later release changes a default. A released set never changes: a new default is a new set,
 * made current (a unit test pins each set's digest).
 */
import { DEFAULT_DATETIME_FORMAT } from '../datetime';
import {
  DEFAULT_EXECUTOR_SYSTEM_PROMPT,
  DEFAULT_PLANNER_PROMPT,
  DEFAULT_PLANNER_PROMPT_TEMPLATE,
  DEFAULT_PLANNER_SYSTEM_PROMPT,
  DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE,
  DEFAULT_REFLECT_PROMPT,
  DEFAULT_REFLECT_PROMPT_TEMPLATE,
  PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT,
} from '../prompts';

/** The parameters with a default text. */
export interface DefaultedTexts {
  /** @default "%Y-%m-%d %H:%M:%S %Z" */
  datetime_format: string;
  /** @default DEFAULT_PLANNER_SYSTEM_PROMPT */
  system_prompt: string;
  /** @default DEFAULT_EXECUTOR_SYSTEM_PROMPT */
  executor_system_prompt: string;
  /** @default DEFAULT_PLANNER_PROMPT */
  planner_prompt: string;
  /** @default DEFAULT_REFLECT_PROMPT */
  reflect_prompt: string;
  /** @default DEFAULT_PLANNER_PROMPT_TEMPLATE */
  planner_prompt_template: string;
  /** @default DEFAULT_REFLECT_PROMPT_TEMPLATE */
  reflect_prompt_template: string;
  /** @default DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE */
  planner_with_history_template: string;
  /** Always PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT, for custom prompts (as the seed sets it). */
  plan_execute_reflect_response_format: string;
}

export const PARAMETER_DEFAULT_SETS: Readonly<Record<string, Readonly<DefaultedTexts>>> = {
  '1': {
    datetime_format: DEFAULT_DATETIME_FORMAT,
    system_prompt: DEFAULT_PLANNER_SYSTEM_PROMPT,
    executor_system_prompt: DEFAULT_EXECUTOR_SYSTEM_PROMPT,
    planner_prompt: DEFAULT_PLANNER_PROMPT,
    reflect_prompt: DEFAULT_REFLECT_PROMPT,
    planner_prompt_template: DEFAULT_PLANNER_PROMPT_TEMPLATE,
    reflect_prompt_template: DEFAULT_REFLECT_PROMPT_TEMPLATE,
    planner_with_history_template: DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE,
    plan_execute_reflect_response_format: PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT,
  },
};

/** The set this release starts runs with. */
export const CURRENT_PARAMETER_DEFAULTS = '1';

/** The default texts of a set; unknown to this code (a run started by a newer release) throws, naming the set. */
export function parameterDefaults(set: string = CURRENT_PARAMETER_DEFAULTS): Readonly<DefaultedTexts> {
  const texts = PARAMETER_DEFAULT_SETS[set];
  if (!texts) {
    throw new Error(`parameter defaults "${set}" are unknown to this worker (it knows ${Object.keys(PARAMETER_DEFAULT_SETS).join(', ')}); run a worker of the release that started the run`);
  }
  return texts;
}

/** Resolved parameters as a run's input carries them: without the values equal to the current set's. */
export function sparseParameters<P extends object>(resolved: P): { parameters: Partial<P>; parameter_defaults: string } {
  const defaults: Record<string, string> = { ...parameterDefaults() };
  const parameters = Object.fromEntries(Object.entries(resolved).filter(([key, value]) => defaults[key] !== value)) as Partial<P>;
  return { parameters, parameter_defaults: CURRENT_PARAMETER_DEFAULTS };
}

/** The resolved parameters of a run input: with `parameter_defaults`, its left-out values filled in from that set. */
export function denseParameters<P extends object>(input: { parameters: P | Partial<P>; parameter_defaults?: string }): P {
  if (input.parameter_defaults === undefined) return input.parameters as P;
  return { ...parameterDefaults(input.parameter_defaults), ...input.parameters } as P;
}
