import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { limitIssues, PARAMETER_LIMITS, parameterLimits } from '../../../core/agent-file/limits';

const agent = parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } } });

describe('the upper bounds of run parameters', () => {
  it('allow at least 5,000 steps and 200 executor iterations, and refuse more in one line naming the field and how to raise it', () => {
    expect(resolveParameters(agent, { max_steps: 5_000, executor_max_iterations: 200 })).toMatchObject({ max_steps: 5_000, executor_max_iterations: 200 });
    expect(() => resolveParameters(agent, { max_steps: 100_000_000 })).toThrow(`invalid agent parameters: parameters.max_steps: 100000000 is above this deployment's limit of 5000 (raise it with PERFLOW_PARAMETER_LIMITS='{"max_steps": N}')`);
    expect(() => resolveParameters(agent, { executor_max_iterations: 201 })).toThrow(/parameters\.executor_max_iterations: 201 is above/);
  });

  it('bound every integer parameter', () => {
    for (const key of Object.keys(PARAMETER_LIMITS)) expect(limitIssues({ [key]: Number.MAX_SAFE_INTEGER })).toEqual([{ path: `parameters.${key}`, message: expect.stringContaining('is above') }]);
  });

  it('are raised by the deployment, and a malformed raise is named', () => {
    const raised = parameterLimits('{"max_steps": 200000000}');
    expect(resolveParameters(agent, { max_steps: 100_000_000 }, {}, raised).max_steps).toBe(100_000_000);
    expect(parameterLimits(undefined)).toBe(PARAMETER_LIMITS);
    expect(() => parameterLimits('[1]')).toThrow('PERFLOW_PARAMETER_LIMITS must be a JSON object such as {"max_steps": 20000}');
    expect(() => parameterLimits('{"steps": 1}')).toThrow(/PERFLOW_PARAMETER_LIMITS: "steps" has no limit/);
    expect(() => parameterLimits('{"max_steps": 0}')).toThrow('PERFLOW_PARAMETER_LIMITS: max_steps must be a positive integer, got 0');
  });
});
