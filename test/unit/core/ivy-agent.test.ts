import { errorOf } from '../../support/definition-error';
/** Axon Ivy agent files (seed 004) map to perflow agent definitions. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { interfaceForModel, keyReferenceToEnv } from '../../../core/ivy-agent';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'agents', name), 'utf8')) as Record<string, unknown>;
const SUPPORT_TOOLS = ['create-support-task', 'create-support-ticket', 'choose-ticket-approvers'];


describe('Axon Ivy agent files', () => {
  it("map the seed's STEP_BY_STEP example to a step_by_step agent", () => {
    const agent = parseAgentDefinition(fixture('ivy-support-agent-steps.json'), { toolTypes: SUPPORT_TOOLS });
    expect(agent).toMatchObject({
      name: 'Step-by-Step Support Agent',
      type: 'step_by_step',
      description: 'Creates support tickets using sequential step execution',
      agent_id: 'support-agent-steps',
      goal: 'Create support ticket and assign approvers efficiently',
      llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o', api_key_env: 'OPENAI_API_KEY' },
      executor_llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini', api_key_env: 'OPENAI_API_KEY' },
      tools: SUPPORT_TOOLS.map((type) => ({ type })),
      instructions: [
        { type: 'planning', content: 'Create detailed step-by-step plan to handle support request' },
        { type: 'execution', content: 'Execute each step in planned sequence and verify completion' },
      ],
    });
    expect(resolveParameters(agent).max_iterations).toBe(15);
  });

  it("map the seed's TODO_LIST example to a todo_list agent with the default maxIterationsPerTodo", () => {
    const agent = parseAgentDefinition(fixture('ivy-support-agent-todos.json'), { toolTypes: SUPPORT_TOOLS });
    expect(agent.type).toBe('todo_list');
    expect(agent.goal).toBeUndefined();
    const p = resolveParameters(agent);
    expect([p.max_iterations, p.max_iterations_per_todo]).toEqual([15, 5]);
  });

  it('default agentType to STEP_BY_STEP and maxIterations to 20, as BaseAgent does', () => {
    const { agentType: _t, maxIterations: _m, ...rest } = fixture('ivy-support-agent-steps.json');
    const agent = parseAgentDefinition(rest, { toolTypes: 'any' });
    expect(agent.type).toBe('step_by_step');
    expect(agent.parameters.max_iterations).toBe(20);
  });

  it('keep the key out of the run: a literal key is rejected in one line naming the field', () => {
    const error = errorOf(() => parseAgentDefinition({ ...fixture('ivy-support-agent-steps.json'), planningModelKey: 'sk-live-123' }, { toolTypes: 'any' }));
    expect(error.message).toMatch(/^invalid Axon Ivy agent file: planningModelKey: expected a reference such as \$\{AI\.OpenAI\.APIKey\}/);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('sk-live-123');
  });

  it('require a goal for STEP_BY_STEP and name bad Ivy fields by their path', () => {
    const { goal: _g, ...noGoal } = fixture('ivy-support-agent-steps.json');
    expect(errorOf(() => parseAgentDefinition(noGoal, { toolTypes: 'any' })).issues).toEqual([{ path: 'goal', message: 'is required for a step_by_step agent' }]);
    const bad = errorOf(() => parseAgentDefinition({ ...noGoal, agentType: 'SWARM', tools: 'all', maxIterations: 0 }, { toolTypes: 'any' }));
    expect(bad.issues.map((i) => i.path)).toEqual(['agentType', 'maxIterations', 'tools']);
  });

  it('reject tool IDs the worker does not have, like any agent file', () => {
    expect(errorOf(() => parseAgentDefinition(fixture('ivy-support-agent-steps.json'))).message).toContain('tools[0].type: unknown tool type "create-support-task"');
  });

  it('run a scripted model from the `script` extension', () => {
    const agent = parseAgentDefinition({ id: 'x', name: 'offline', goal: 'g', planningModel: 'scripted', tools: ['CalculatorTool'], script: { planner: ['p'] } });
    expect(agent.llm).toEqual({ interface: 'scripted', script: { planner: ['p'], executor: [] } });
  });
});

describe('keyReferenceToEnv', () => {
  it.each([
    ['${AI.OpenAI.APIKey}', 'OPENAI_API_KEY'],
    ['${OPENAI_API_KEY}', 'OPENAI_API_KEY'],
    ['${ AI.Azure.OpenAI.APIKey }', 'AZURE_OPENAI_API_KEY'],
    ['${AI.Mistral.APIKey}', 'AI_MISTRAL_APIKEY'],
  ])('%s → %s', (ref, env) => {
    expect(keyReferenceToEnv(ref)).toEqual({ env });
  });

  it('refuses a literal key', () => {
    expect(keyReferenceToEnv('sk-abc')).toHaveProperty('error');
  });
});

describe('interfaceForModel', () => {
  it.each([
    ['gpt-4o', 'openai/v1/chat/completions'],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'bedrock/converse/claude'],
    ['us.deepseek.r1-v1:0', 'bedrock/converse/deepseek_r1'],
    ['scripted', 'scripted'],
  ])('%s → %s', (model, iface) => {
    expect(interfaceForModel(model)).toBe(iface);
  });
});
