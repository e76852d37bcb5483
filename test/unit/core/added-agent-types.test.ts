/** Agent types added at run time (`addAgentTypes`): the names refused, and the checks and lists that take added types in. */
import { listQuery } from '../../../client/ops';
import { addAgentTypes, AGENT_TYPE_SPECS, knownAgentTypes, parseAgentDefinition, typesUsingField, typesUsingParameter, type AgentTypeSpec } from '../../../core/agent';

const spec = (extra: Partial<AgentTypeSpec> = {}): AgentTypeSpec => ({
  type: 'briefing',
  workflowType: 'briefing',
  parameters: ['max_steps', 'briefing_length'],
  fields: ['goal'],
  requires: ['goal'],
  planApproval: false,
  parallelSteps: false,
  fork: false,
  ...extra,
});

const agentFile = (extra: Record<string, unknown> = {}) => ({ name: 'b', type: 'briefing', llm: { interface: 'scripted', script: { planner: [] } }, ...extra });

describe('addAgentTypes', () => {
  it('refuses a built-in name, a malformed name and a workflow type that is no function name or runs a built-in type, in one line', () => {
    expect(() => addAgentTypes([spec({ type: 'todo_list' })])).toThrow('agent type "todo_list" is built in: give an added agent type a name of its own');
    expect(() => addAgentTypes([spec({ type: 'Briefing ' })])).toThrow('agent type name "Briefing " must be lower case letters, digits and "_", starting with a letter');
    expect(() => addAgentTypes([spec({ workflowType: 'brief-ing' })])).toThrow('agent type "briefing": workflowType "brief-ing" must be the name of its workflow function');
    expect(() => addAgentTypes([spec({ workflowType: 'stepByStep' })])).toThrow('agent type "briefing": workflow type "stepByStep" runs step_by_step agents; give it a workflow of its own');
    expect(knownAgentTypes()).toEqual([...AGENT_TYPE_SPECS]);
  });

  it('takes the added type into the schema, the applicability checks and the list of runs', () => {
    addAgentTypes([spec()]);
    expect(knownAgentTypes().map((s) => s.type)).toEqual(['plan_execute_and_reflect', 'step_by_step', 'todo_list', 'plan_and_execute', 'briefing']);
    expect(typesUsingParameter('max_steps')).toEqual(['plan_execute_and_reflect', 'plan_and_execute', 'briefing']);
    expect(typesUsingParameter('briefing_length')).toEqual(['briefing']);
    expect(typesUsingField('goal')).toEqual(['step_by_step', 'todo_list', 'briefing']);
    expect(() => parseAgentDefinition(agentFile())).toThrow('invalid agent file: goal: is required for a briefing agent');
    expect(() => parseAgentDefinition(agentFile({ goal: 'brief', instructions: [{ type: 'planning', content: 'be brief' }] }))).toThrow(
      'invalid agent file: instructions: does nothing for a briefing agent (it is for step_by_step, todo_list and plan_and_execute); remove it',
    );
    expect(parseAgentDefinition(agentFile({ goal: 'brief', parameters: { max_steps: 3 } })).type as string).toBe('briefing');
    expect(listQuery()).toBe(
      "(WorkflowType = 'planExecuteReflect' OR WorkflowType = 'stepByStep' OR WorkflowType = 'todoList' OR WorkflowType = 'planAndExecute' OR WorkflowType = 'briefing')",
    );
  });
});
