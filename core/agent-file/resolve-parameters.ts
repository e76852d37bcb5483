/**
 * The parameters of one run: the agent file's, the run's and a fork's inherited ones merged,
 * checked against the agent's type (its spec, built in or added) and the limits, and every default filled in.
 */
import { fallbackError, toIssues } from '../issues';
import { unknownParameterWarnings, unusedParameters } from './applicability';
import type { AgentDefinition } from './definition';
import { AgentDefinitionError } from './errors';
import { limitIssues, PARAMETER_LIMITS, type ParameterLimits } from './limits';
import { agentTypeSpec, knownAgentTypes } from './known-agent-types';
import { llmResponseFilterFor } from './model';
import { parameterDefaults } from './parameter-defaults';
import { AgentParameters, type ResolvedParameters } from './parameters';

/**
 * The parameters of one run: the agent's parameters overridden by run-time parameters (as in
 * the seed's execute API; `undefined` values do not override), validated, and defaulted.
 *
 * `llm_response_filter` is the planner's; the executor's interface may differ, so derive its
 * filter with {@link llmResponseFilterFor}(`agent.executor_llm.interface`).
 *
 * @param agent - a parsed agent definition
 * @param runParams - run-time parameters
 * @param inherited - parameters taken over from another run (a fork's source), under the run's: not checked again
 * @param limits - the upper bounds of the integer parameters (core/agent-file/limits.ts)
 * @throws AgentDefinitionError with `parameters.` paths when a merged parameter is invalid, or
 *   the agent file or the run gives one that does nothing for the agent's type
 */
export function resolveParameters(agent: AgentDefinition, runParams: Record<string, unknown> = {}, inherited: Record<string, unknown> = {}, limits: ParameterLimits = PARAMETER_LIMITS): ResolvedParameters {
  const overrides = Object.fromEntries(Object.entries(runParams).filter(([, v]) => v !== undefined));
  // The agent file's own parameters were checked when it was parsed; its parameters here hold every default.
  const unused = unusedParameters(agent.type, overrides);
  if (unused.length > 0) throw new AgentDefinitionError(unused, 'invalid agent parameters');
  const parsed = AgentParameters.safeParse({ ...agent.parameters, ...inherited, ...overrides }, { error: fallbackError });
  if (!parsed.success) {
    throw new AgentDefinitionError(toIssues(parsed.error, ['parameters']), 'invalid agent parameters');
  }
  const p = parsed.data;
  const above = limitIssues(p, limits);
  if (above.length > 0) throw new AgentDefinitionError(above, 'invalid agent parameters');
  const llmInterface = p.llm_interface ?? p._llm_interface ?? agent.llm.interface;
  // The interface is the model's: a parameter naming another cannot switch it (the model, key
  // and region belong to llm), so it is rejected here rather than failing the first call.
  for (const key of ['llm_interface', '_llm_interface'] as const) {
    const named = p[key];
    if (named !== undefined && named !== agent.llm.interface) {
      throw new AgentDefinitionError(
        [{ path: `parameters.${key}`, message: `"${named}" differs from llm.interface "${agent.llm.interface}"; to switch the interface set llm.interface (and its model) in the agent file` }],
        'invalid agent parameters',
      );
    }
  }
  const spec = agentTypeSpec(agent.type);
  if (p.plan_approval !== 'none' && !spec.planApproval) {
    throw new AgentDefinitionError(
      [{ path: 'parameters.plan_approval', message: `${agent.type} agents take no plan approval (${spec.why?.planApproval ?? 'they write no plan to review'}); use none — tool approval, guidance and pause work for them` }],
      'invalid agent parameters',
    );
  }
  if (p.max_parallel_steps > 1 && !spec.parallelSteps) {
    const parallel = knownAgentTypes().filter((s) => s.parallelSteps).map((s) => s.type);
    throw new AgentDefinitionError(
      [{ path: 'parameters.max_parallel_steps', message: `${agent.type} agents ${spec.why?.parallelSteps ?? 'run one step at a time'}; parallel steps are for ${parallel.join(' and ')} (use 1)` }],
      'invalid agent parameters',
    );
  }
  // An empty or blank prompt text, template, date format or response filter is not set (an empty
  // field of a request body, `--param system_prompt=`): its default is used (docs/agent-file.md).
  const given = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v);
  const d = parameterDefaults();
  return {
    ...p,
    datetime_format: given(p.datetime_format) ?? d.datetime_format,
    system_prompt: given(p.system_prompt) ?? d.system_prompt,
    executor_system_prompt: given(p.executor_system_prompt) ?? d.executor_system_prompt,
    planner_prompt: given(p.planner_prompt) ?? d.planner_prompt,
    reflect_prompt: given(p.reflect_prompt) ?? d.reflect_prompt,
    planner_prompt_template: given(p.planner_prompt_template) ?? d.planner_prompt_template,
    reflect_prompt_template: given(p.reflect_prompt_template) ?? d.reflect_prompt_template,
    planner_with_history_template: given(p.planner_with_history_template) ?? d.planner_with_history_template,
    llm_interface: llmInterface,
    llm_response_filter: given(p.llm_response_filter) ?? llmResponseFilterFor(llmInterface),
    plan_execute_reflect_response_format: d.plan_execute_reflect_response_format,
  };
}

/** Warnings for the agent's and the run's parameters that perflow does not know (see {@link unknownParameterWarnings}). */
export function parameterWarnings(agent: AgentDefinition, runParams: Record<string, unknown> = {}): string[] {
  const given = { ...agent.parameters, ...runParams };
  // The agent file's parameters hold every known one (defaulted): only unknown ones can warn.
  const texts = Object.values(given).filter((v): v is string => typeof v === 'string');
  return unknownParameterWarnings(given, Object.keys(AgentParameters.shape), texts);
}
