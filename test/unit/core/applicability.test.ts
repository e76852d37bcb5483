import { parameterWarnings, parseAgentDefinition, resolveParameters } from '../../../core/agent';

const agentOf = (type: string, extra: Record<string, unknown> = {}) =>
  parseAgentDefinition({ name: 'a', type, llm: { interface: 'scripted', script: { planner: [] } }, ...(type === 'step_by_step' ? { goal: 'g' } : {}), ...extra });

describe('a parameter or field that does nothing for the agent type', () => {
  it.each([
    ['todo_list', 'max_steps', 'plan_execute_and_reflect and plan_and_execute'],
    ['step_by_step', 'max_iterations_per_todo', 'todo_list'],
    ['plan_execute_and_reflect', 'max_iterations', 'step_by_step and todo_list'],
    ['plan_execute_and_reflect', 'replan_keywords', 'plan_and_execute'],
    ['plan_and_execute', 'reflect_prompt_template', 'plan_execute_and_reflect'],
  ])('is refused in a %s agent file: parameters.%s', (type, key, usedBy) => {
    expect(() => agentOf(type, { parameters: { [key]: key === 'replan_keywords' ? ['x'] : key.endsWith('template') ? 't' : 3 } })).toThrow(
      `invalid agent file: parameters.${key}: does nothing for a ${type} agent (it is for ${usedBy}); remove it`,
    );
  });

  it('is refused as a run parameter, naming it and the type', () => {
    expect(() => resolveParameters(agentOf('step_by_step'), { max_steps: 5 })).toThrow(
      'invalid agent parameters: parameters.max_steps: does nothing for a step_by_step agent (it is for plan_execute_and_reflect and plan_and_execute); remove it',
    );
    expect(resolveParameters(agentOf('step_by_step'), { max_iterations: 5 }).max_iterations).toBe(5);
  });

  it('is not refused when taken over from another run (a fork keeps its source\'s resolved parameters)', () => {
    const source = resolveParameters(agentOf('plan_execute_and_reflect'));
    expect(source.max_iterations).toBe(20);
    expect(resolveParameters(agentOf('plan_execute_and_reflect'), { max_steps: 4 }, source).max_steps).toBe(4);
  });

  it('is refused for goal and instructions where the type ignores them', () => {
    expect(() => agentOf('plan_execute_and_reflect', { goal: 'g', instructions: [{ type: 'planning', content: 'x' }] })).toThrow(
      'invalid agent file: goal: does nothing for a plan_execute_and_reflect agent (it is for step_by_step and todo_list); remove it; instructions: does nothing for a plan_execute_and_reflect agent (it is for step_by_step, todo_list and plan_and_execute)',
    );
    expect(() => agentOf('plan_and_execute', { goal: 'g' })).toThrow('goal: does nothing for a plan_and_execute agent');
    expect(agentOf('plan_and_execute', { instructions: [{ type: 'planning', content: 'x' }] }).instructions).toHaveLength(1);
  });
});

describe('an unknown parameter', () => {
  it('gets a warning naming the closest known parameter', () => {
    expect(parameterWarnings(agentOf('plan_execute_and_reflect', { parameters: { max_step: 3 } }))).toEqual([
      'parameters.max_step is not a perflow parameter (did you mean max_steps?); it is kept for prompts that use ${parameters.max_step}',
    ]);
    expect(parameterWarnings(agentOf('todo_list'), { max_iteratons: 2 })[0]).toContain('(did you mean max_iterations?)');
    expect(parameterWarnings(agentOf('todo_list'), { house_style: 'terse' })).toEqual([
      'parameters.house_style is not a perflow parameter; it is kept for prompts that use ${parameters.house_style}',
    ]);
  });

  it('gets none when a prompt of the agent uses it', () => {
    expect(parameterWarnings(agentOf('plan_execute_and_reflect', { parameters: { house_style: 'terse', system_prompt: 'Write ${parameters.house_style}.' } }))).toEqual([]);
  });
});
