import { resolveRunIds } from '../../../client/run';
import { runIdsFor } from '../../../workflows/kernel/context';
import { parseAgentDefinition, resolveParameters } from '../../../core/agent';

const agent = parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } } }, { toolTypes: 'any' });
const UUID = /^[0-9a-f-]{36}$/;

describe('a run\'s memory IDs', () => {
  it('are new ones, and the run continues no conversation, when nothing names one', () => {
    const { ids, continuesConversation, parameters } = resolveRunIds({ parameters: resolveParameters(agent) });
    expect(Object.values(ids)).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID), expect.stringMatching(UUID), expect.stringMatching(UUID)]);
    expect(continuesConversation).toBe(false);
    expect(parameters).not.toHaveProperty('memory_id');
  });

  it('continue the conversation and executor memory the parameters name, which then leave the parameters', () => {
    const { ids, continuesConversation, parameters } = resolveRunIds({ parameters: resolveParameters(agent, { memory_id: 'm-1', executor_agent_memory_id: 'em-1', max_steps: 3 }) });
    expect(ids).toMatchObject({ memory_id: 'm-1', executor_agent_memory_id: 'em-1' });
    expect(continuesConversation).toBe(true);
    expect(parameters).not.toHaveProperty('memory_id');
    expect(parameters).not.toHaveProperty('executor_agent_memory_id');
    expect(parameters).toMatchObject({ max_steps: 3 });
  });

  it('take the memoryId option over the memory_id parameter', () => {
    expect(resolveRunIds({ memoryId: 'm-2', parameters: resolveParameters(agent, { memory_id: 'm-1' }) }).ids.memory_id).toBe('m-2');
  });

  it('reach the workflow in `ids` alone, which it takes as they are', () => {
    const ids = { memory_id: 'm', parent_interaction_id: 'p', executor_agent_memory_id: 'em', executor_agent_parent_interaction_id: 'ep' };
    expect(runIdsFor({ ids, parameters: {} })).toEqual(ids);
  });

  it('are read from the fields of inputs recorded before as well', () => {
    const ids = { memory_id: 'm', parent_interaction_id: 'p', executor_agent_memory_id: 'em', executor_agent_parent_interaction_id: 'ep' };
    expect(runIdsFor({ ids, memory_id: 'm', parameters: { executor_agent_memory_id: 'em' } })).toEqual(ids);
    expect(runIdsFor({ memory_id: 'old-m', parameters: { executor_agent_memory_id: 'old-em' } })).toMatchObject({ memory_id: 'old-m', executor_agent_memory_id: 'old-em' });
  });
});
