/** Every field of the agent file given a value of the wrong type is refused in one line naming its path. */
import { AgentParameters, parseAgentDefinition } from '../../../core/agent';

const base = { name: 'a', type: 'todo_list', llm: { interface: 'scripted', script: { planner: [] } } };

/** A value of the wrong type for every field: a number where a text or list is expected, a text where a number, object or list is. */
const FIELDS: Array<[string, Record<string, unknown>]> = [
  ['name', { name: 5 }],
  ['type', { type: 5 }],
  ['description', { description: 5 }],
  ['llm', { llm: 'gpt' }],
  ['llm.interface', { llm: { interface: 5 } }],
  ['llm.parameters', { llm: { interface: 'scripted', script: { planner: [] }, parameters: 'hot' } }],
  ['executor_llm', { executor_llm: 'gpt' }],
  ['mcp_servers', { mcp_servers: 'calc' }],
  ['mcp_servers[0]', { mcp_servers: [5] }],
  ['memory', { memory: 'conversation_index' }],
  ['tools', { tools: 'CalculatorTool' }],
  ['tools[0].type', { tools: [{ type: 5 }] }],
  ['tools[0].name', { tools: [{ type: 'CalculatorTool', name: 5 }] }],
  ['tools[0].parameters', { tools: [{ type: 'CalculatorTool', parameters: 'x' }] }],
  ['tools[0].requires_approval', { tools: [{ type: 'CalculatorTool', requires_approval: 'yes' }] }],
  ['tools[0].attributes', { tools: [{ type: 'CalculatorTool', attributes: 'strict' }] }],
  ['parameters', { parameters: 'many' }],
  ['app_type', { app_type: 5 }],
  ['goal', { goal: 5 }],
  ['instructions', { instructions: 'be brief' }],
  ['instructions[0].type', { instructions: [{ type: 'sometimes', content: 'x' }] }],
  ['agent_id', { agent_id: 5 }],
];

describe('an agent file with a value of the wrong type', () => {
  it.each(FIELDS)('names the path %s', (path, wrong) => {
    expect(() => parseAgentDefinition({ ...base, ...wrong })).toThrow(new RegExp(`^invalid agent file: ${path.replace(/[.[\]]/g, '\\$&')}: `));
  });

  // Parameters that take text are given an object; the others a text that is no number, boolean or choice.
  const textParameters = ['datetime_format', 'system_prompt', 'executor_system_prompt', 'planner_prompt', 'reflect_prompt', 'planner_prompt_template', 'reflect_prompt_template', 'planner_with_history_template', 'llm_response_filter', 'question', 'memory_id', 'executor_agent_memory_id', 'executor_agent_id', 'tenant_id'];
  it.each(Object.keys(AgentParameters.shape))('names the path parameters.%s', (key) => {
    const wrong = textParameters.includes(key) ? { no: 'text' } : key === 'replan_keywords' ? 5 : 'not-a-value';
    expect(() => parseAgentDefinition({ ...base, parameters: { [key]: wrong } })).toThrow(new RegExp(`^invalid agent file: parameters\\.${key}: `));
  });
});
