import { errorOf } from '../../support/definition-error';
import { DEFAULT_REPLAN_KEYWORDS } from '../../../core/prompts';
import {
  parseAgentDefinition,
  resolveParameters,
  llmResponseFilterFor,
} from '../../../core/agent';
import { DEFAULT_PLANNER_SYSTEM_PROMPT, DEFAULT_REFLECT_PROMPT_TEMPLATE, PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT } from '../../../core/prompts';

const minimal = {
  name: 'demo',
  type: 'plan_execute_and_reflect',
  llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o' },
};


describe('parseAgentDefinition', () => {
  it('fills every default into a minimal agent file', () => {
    const agent = parseAgentDefinition(minimal);
    expect(agent).toEqual({
      name: 'demo',
      type: 'plan_execute_and_reflect',
      description: '',
      llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o' },
      executor_llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o' },
      memory: { type: 'conversation_index' },
      tools: [],
      mcp_servers: [],
      instructions: [],
      parameters: {
        max_steps: 20,
        token_budget: 0,
        continue_as_new_after_events: 0,
        executor_max_iterations: 20,
        message_history_limit: 10,
        executor_message_history_limit: 10,
        inject_datetime: false,
        max_parse_retries: 2,
        max_iterations: 20,
        max_iterations_per_todo: 5,
        max_step_attempts: 3,
        replan_after_failed_attempts: 3,
        replan_keywords: [...DEFAULT_REPLAN_KEYWORDS],
        replan_confidence_threshold: 0.7,
        max_parallel_steps: 1,
        plan_approval: 'none',
        approval_timeout_action: 'reject',
        max_plan_rejections: 3,
      },
    });
  });

  it('reads approval parameters: durations in seconds or with a unit, and rejects plan approval where plans are Ivy lists', () => {
    const at = (parameters: Record<string, unknown>, type = 'plan_execute_and_reflect') => resolveParameters(parseAgentDefinition({ ...minimal, type }), parameters);
    expect(at({ plan_approval: 'first', approval_timeout: '15m' })).toMatchObject({ plan_approval: 'first', approval_timeout: 900 });
    expect(at({ approval_timeout: 90 }).approval_timeout).toBe(90);
    expect(at({ approval_timeout: '2h' }).approval_timeout).toBe(7200);
    expect(() => at({ approval_timeout: 'soon' })).toThrow(/parameters\.approval_timeout: expected a duration such as "90s"/);
    expect(() => at({ plan_approval: 'sometimes' })).toThrow(/parameters\.plan_approval: expected none, first or every/);
    expect(() => at({ plan_approval: 'every' }, 'todo_list')).toThrow(/parameters\.plan_approval: todo_list agents take no plan approval/);
    expect(at({ plan_approval: 'every' }, 'plan_and_execute').plan_approval).toBe('every');
    expect(at({ max_parallel_steps: '4' }).max_parallel_steps).toBe(4);
    expect(at({ max_parallel_steps: 2 }, 'plan_and_execute').max_parallel_steps).toBe(2);
    expect(() => at({ max_parallel_steps: 2 }, 'todo_list')).toThrow(/parameters\.max_parallel_steps: todo_list agents run their steps in the order their seed defines/);
  });

  it('takes the interface from the seed parameter _llm_interface and model_id as the model', () => {
    const agent = parseAgentDefinition({
      name: 'seed',
      type: 'plan_execute_and_reflect',
      llm: { model_id: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0', parameters: { prompt: '${parameters.question}' } },
      memory: { type: 'conversation_index' },
      parameters: { _llm_interface: 'bedrock/converse/claude' },
      tools: [{ type: 'ListCollectionsTool' }],
      app_type: 'os_chat',
    });
    expect(agent.llm.interface).toBe('bedrock/converse/claude');
    expect(agent.llm.model).toBe('us.anthropic.claude-3-7-sonnet-20250219-v1:0');
    expect(agent.parameters._llm_interface).toBe('bedrock/converse/claude');
    expect(agent.tools).toEqual([{ type: 'ListCollectionsTool' }]);
  });

  it('accepts the underscore spelling of an interface', () => {
    expect(parseAgentDefinition({ ...minimal, llm: { interface: 'openai_v1_chat_completions', model: 'm' } }).llm.interface).toBe(
      'openai/v1/chat/completions',
    );
  });

  it('coerces numbers and booleans given as strings', () => {
    const agent = parseAgentDefinition({ ...minimal, parameters: { max_steps: '5', inject_datetime: 'true' } });
    expect(agent.parameters.max_steps).toBe(5);
    expect(agent.parameters.inject_datetime).toBe(true);
  });

  it('keeps unknown parameters for custom prompts', () => {
    expect(parseAgentDefinition({ ...minimal, parameters: { team: 'search' } }).parameters.team).toBe('search');
  });

  it('lets a partial executor model inherit the planner interface', () => {
    const agent = parseAgentDefinition({ ...minimal, executor_llm: { model: 'gpt-4o-mini' } });
    expect(agent.executor_llm).toEqual({ interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini' });
  });

  it('accepts a scripted model without a model name', () => {
    const agent = parseAgentDefinition({
      ...minimal,
      llm: {
        interface: 'scripted',
        script: {
          planner: ['{"steps": ["a"]}', '{"result": "done"}'],
          executor: [[{ tool_calls: [{ name: 'echo', input: { text: 'hi' } }] }, { content: 'hi' }]],
        },
      },
    });
    expect(agent.executor_llm.script?.executor[0]).toHaveLength(2);
  });

  it('reports all three bad fields of a file in one line', () => {
    const error = errorOf(() =>
      parseAgentDefinition({ ...minimal, name: '', llm: { interface: 'foo', model: 'm' }, parameters: { max_steps: 'abc' } }),
    );
    expect(error.issues.map((i) => i.path)).toEqual(['name', 'llm.interface', 'parameters.max_steps']);
    expect(error.message).not.toMatch(/\n/);
    expect(error.message).toBe(
      'invalid agent file: name: must not be empty; ' +
        'llm.interface: expected one of openai/v1/chat/completions, bedrock/converse/claude, bedrock/converse/deepseek_r1, anthropic/v1/messages, google/generate_content, openai/v1/responses, scripted; ' +
        'parameters.max_steps: expected a positive integer',
    );
  });

  it('names missing, unknown and nested fields by their path', () => {
    const error = errorOf(() =>
      parseAgentDefinition({ type: 'react', llm: { interface: 'scripted' }, tools: [{}], extra: 1 }),
    );
    expect(error.issues).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'type', message: 'expected one of plan_execute_and_reflect, step_by_step, todo_list, plan_and_execute' },
      { path: 'llm.script', message: 'is required when interface is "scripted"' },
      { path: 'tools[0].type', message: 'is required' },
      { path: 'extra', message: 'unknown field' },
    ]);
  });

  it('requires a model name for a real interface', () => {
    expect(() => parseAgentDefinition({ ...minimal, llm: { interface: 'bedrock/converse/claude' } })).toThrow(
      'invalid agent file: llm.model: is required for interface "bedrock/converse/claude"',
    );
  });
});

describe('resolveParameters', () => {
  it('fills the seed prompts, the interface and its response filter', () => {
    const params = resolveParameters(parseAgentDefinition(minimal));
    expect(params.system_prompt).toBe(DEFAULT_PLANNER_SYSTEM_PROMPT);
    expect(params.reflect_prompt_template).toBe(DEFAULT_REFLECT_PROMPT_TEMPLATE);
    expect(params.plan_execute_reflect_response_format).toBe(PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT);
    expect(params.llm_interface).toBe('openai/v1/chat/completions');
    expect(params.llm_response_filter).toBe('$.choices[0].message.content');
    expect(params.datetime_format).toBe('%Y-%m-%d %H:%M:%S %Z');
    expect(params.max_steps).toBe(20);
  });

  it('lets run parameters override agent parameters', () => {
    const agent = parseAgentDefinition({ ...minimal, parameters: { max_steps: 7, planner_prompt: 'agent' } });
    const params = resolveParameters(agent, { max_steps: '3', planner_prompt: 'run', question: 'q', reflect_prompt: undefined });
    expect(params.max_steps).toBe(3);
    expect(params.planner_prompt).toBe('run');
    expect(params.question).toBe('q');
  });

  it('keeps an explicit response filter', () => {
    const params = resolveParameters(parseAgentDefinition(minimal), { llm_response_filter: '$.x' });
    expect(params.llm_response_filter).toBe('$.x');
  });

  it('reports invalid run parameters under parameters.', () => {
    const error = errorOf(() => resolveParameters(parseAgentDefinition(minimal), { max_steps: 0, inject_datetime: 'yes' }));
    expect(error.issues.map((i) => i.path)).toEqual(['parameters.max_steps', 'parameters.inject_datetime']);
    expect(error.message).toBe(
      'invalid agent parameters: parameters.max_steps: expected a positive integer; parameters.inject_datetime: expected true or false',
    );
  });
});

describe('llmResponseFilterFor', () => {
  it('gives the seed filter of each interface', () => {
    expect(llmResponseFilterFor('openai/v1/chat/completions')).toBe('$.choices[0].message.content');
    expect(llmResponseFilterFor('bedrock/converse/claude')).toBe('$.output.message.content[0].text');
    expect(llmResponseFilterFor('bedrock/converse/deepseek_r1')).toBe('$.output.message.content[0].text');
    expect(llmResponseFilterFor('scripted')).toBe('$.content');
  });
});

describe('tool types in an agent file', () => {
  const withTools = (tools: unknown[]) => ({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, tools });

  it('accepts the built-in tool types', () => {
    expect(parseAgentDefinition(withTools([{ type: 'CalculatorTool' }, { type: 'SearchCollectionTool' }])).tools).toHaveLength(2);
  });

  it('rejects an unknown tool type in one line naming the field and the known types', () => {
    expect(() => parseAgentDefinition(withTools([{ type: 'CalculatorTool' }, { type: 'WebSearchTool' }]))).toThrow(
      'invalid agent file: tools[1].type: unknown tool type "WebSearchTool"; expected one of CalculatorTool, ListCollectionsTool, CollectionSchemaTool, SearchCollectionTool',
    );
  });

  it('runs a seed OpenSearch tool as the MongoDB tool in its role, under the seed\'s name unless the entry names it', () => {
    const tools = parseAgentDefinition(withTools([{ type: 'ListIndexTool' }, { type: 'SearchIndexTool', name: 'search' }, { type: 'IndexMappingTool' }])).tools;
    expect(tools.map((t) => [t.type, t.name])).toEqual([
      ['ListCollectionsTool', 'ListIndexTool'],
      ['SearchCollectionTool', 'search'],
      ['CollectionSchemaTool', 'IndexMappingTool'],
    ]);
  });

  it('accepts the types of a worker with other tools when told', () => {
    expect(parseAgentDefinition(withTools([{ type: 'WebSearchTool' }]), { toolTypes: ['WebSearchTool'] }).tools[0].type).toBe('WebSearchTool');
    expect(parseAgentDefinition(withTools([{ type: 'Anything' }]), { toolTypes: 'any' }).tools[0].type).toBe('Anything');
  });
});

describe('mcp_servers in an agent file', () => {
  const withServers = (mcp_servers: unknown) => ({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, mcp_servers });

  it('accepts stdio and streamable HTTP servers', () => {
    const agent = parseAgentDefinition(
      withServers([
        { name: 'files', command: 'node', args: ['server.js'], env: { ROOT: '/data' } },
        { name: 'remote', url: 'http://127.0.0.1:9000/mcp' },
      ]),
    );
    expect(agent.mcp_servers.map((s) => s.name)).toEqual(['files', 'remote']);
  });

  it('takes timeout_seconds for the calls of its tools, a positive number', () => {
    expect(parseAgentDefinition(withServers([{ name: 'slow', command: 'node', timeout_seconds: '300' }])).mcp_servers[0].timeout_seconds).toBe(300);
    expect(() => parseAgentDefinition(withServers([{ name: 'slow', url: 'http://127.0.0.1:9000/mcp', timeout_seconds: 0 }]))).toThrow('invalid agent file: mcp_servers[0]');
  });

  it('rejects a server without command or url in one line naming it', () => {
    expect(() => parseAgentDefinition(withServers([{ name: 'x' }]))).toThrow(/^invalid agent file: mcp_servers\[0\]: expected \{"name", "command"/);
  });
});
