import { createHash } from 'node:crypto';
import {
  CURRENT_PARAMETER_DEFAULTS,
  PARAMETER_DEFAULT_SETS,
  denseParameters,
  parseAgentDefinition,
  resolveParameters,
  sparseParameters,
} from '../../../core/agent';
import { DEFAULT_PLANNER_SYSTEM_PROMPT } from '../../../core/prompts';

const agent = parseAgentDefinition({ name: 'demo', type: 'plan_execute_and_reflect', llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o' } });

describe('parameter defaults by set', () => {
  it('a run input leaves out the default texts and names their set; filled in again it is the resolved parameters', () => {
    const resolved = resolveParameters(agent, { max_steps: 3, reflect_prompt: 'Reflect briefly.' });
    const sparse = sparseParameters(resolved);
    expect(sparse.parameter_defaults).toBe(CURRENT_PARAMETER_DEFAULTS);
    expect(sparse.parameters).not.toHaveProperty('system_prompt');
    expect(sparse.parameters).not.toHaveProperty('planner_prompt_template');
    // What the user set, and every non-text parameter, stays.
    expect(sparse.parameters).toMatchObject({ max_steps: 3, reflect_prompt: 'Reflect briefly.', executor_max_iterations: 20 });
    expect(JSON.stringify(sparse).length).toBeLessThan(JSON.stringify(resolved).length - 6_000);
    expect(denseParameters(sparse)).toEqual(resolved);
    expect(denseParameters(sparse).system_prompt).toBe(DEFAULT_PLANNER_SYSTEM_PROMPT);
  });

  it('a run input without a set is taken as it is (runs started before sets existed)', () => {
    const resolved = resolveParameters(agent);
    expect(denseParameters({ parameters: resolved })).toBe(resolved);
  });

  it('a set this code does not know fails in one line naming it', () => {
    expect(() => denseParameters({ parameters: {}, parameter_defaults: '99' })).toThrow(
      'parameter defaults "99" are unknown to this worker (it knows 1); run a worker of the release that started the run',
    );
  });

  // Runs name their set, and replay and reset read its texts: a released set never changes.
  // A new default text is a new set (made CURRENT_PARAMETER_DEFAULTS), with its digest added here.
  it.each([['1', '765f78d3f722675228467d7032604875e00ad3b41db563fcb570effde971f126']])('set %s keeps its texts', (set, digest) => {
    expect(createHash('sha256').update(JSON.stringify(PARAMETER_DEFAULT_SETS[set])).digest('hex')).toBe(digest);
  });

  it('every set is pinned above', () => {
    expect(Object.keys(PARAMETER_DEFAULT_SETS)).toEqual(['1']);
  });
});
