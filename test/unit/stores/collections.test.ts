import { memoryCollectionsFromEnv } from '../../../config/env';
import { allMemoryCollections, DEFAULT_COLLECTIONS, eventLiveOf, LIVE_EVENT_SHARDS } from '../../../core/memory-collections';
import { isHidden, type MongoToolsOptions } from '../../../activities/tools/mongo/access';

describe('memory collection names from the environment', () => {
  it('defaults to perflow_memories, perflow_interactions, perflow_prompts and perflow_events', () => {
    expect(memoryCollectionsFromEnv({})).toEqual(DEFAULT_COLLECTIONS);
  });

  it('takes PERFLOW_MEMORIES_COLLECTION, PERFLOW_INTERACTIONS_COLLECTION, PERFLOW_PROMPTS_COLLECTION, PERFLOW_EVENTS_COLLECTION and PERFLOW_EVALS_COLLECTION', () => {
    expect(
      memoryCollectionsFromEnv({ PERFLOW_MEMORIES_COLLECTION: 'agent_memories', PERFLOW_INTERACTIONS_COLLECTION: 'agent.interactions', PERFLOW_PROMPTS_COLLECTION: 'agent_prompts', PERFLOW_EVENTS_COLLECTION: 'agent_events', PERFLOW_EVALS_COLLECTION: 'agent_evals' }),
    ).toEqual({
      memories: 'agent_memories',
      interactions: 'agent.interactions',
      prompts: 'agent_prompts',
      events: 'agent_events',
      evals: 'agent_evals',
    });
  });

  it('rejects unusable names in one line naming the variable', () => {
    expect(() => memoryCollectionsFromEnv({ PERFLOW_MEMORIES_COLLECTION: 'bad$name' })).toThrow(/^PERFLOW_MEMORIES_COLLECTION="bad\$name" is not a usable collection name/);
    expect(() => memoryCollectionsFromEnv({ PERFLOW_INTERACTIONS_COLLECTION: 'system.views' })).toThrow(/PERFLOW_INTERACTIONS_COLLECTION/);
    expect(() => memoryCollectionsFromEnv({ PERFLOW_MEMORIES_COLLECTION: 'same', PERFLOW_INTERACTIONS_COLLECTION: 'same' })).toThrow(/must differ/);
    expect(() => memoryCollectionsFromEnv({ PERFLOW_EVENTS_COLLECTION: 'perflow_prompts' })).toThrow(/must differ/);
  });
});

describe('the collections the MongoDB tools keep off', () => {
  it('are the memory’s, the events archive, the evals and the tenants’ budgets and spend', () => {
    expect(allMemoryCollections(DEFAULT_COLLECTIONS)).toEqual(['perflow_memories', 'perflow_interactions', 'perflow_prompts', 'perflow_events', 'perflow_evals', 'perflow_events.archive', 'perflow_tenant_budgets', 'perflow_tenant_spend', 'perflow_scores']);
  });
});

describe('the live shards of the runs’ event streams', () => {
  it('put a run always in the same one of 256 collections named after the events collection, and spread runs over them', () => {
    expect(eventLiveOf('perflow_events', 'run-1')).toBe(eventLiveOf('perflow_events', 'run-1'));
    expect(eventLiveOf('agent_events', 'run-1')).toMatch(/^agent_events\.live\.[0-9a-f]{2}$/);
    const shards = new Set(Array.from({ length: 2_000 }, (_, i) => eventLiveOf('perflow_events', `perflow-run-${i}`)));
    expect(shards.size).toBeGreaterThan(240);
    expect(shards.size).toBeLessThanOrEqual(LIVE_EVENT_SHARDS);
  });

  it('are kept from the MongoDB tools with the archive, as collections named after a protected one', () => {
    const options = { protectedCollections: allMemoryCollections(DEFAULT_COLLECTIONS) } as MongoToolsOptions;
    expect(isHidden(eventLiveOf('perflow_events', 'run-1'), options)).toBe(true);
    expect(isHidden('perflow_events.archive', options)).toBe(true);
    expect(isHidden('perflow_events_report', options)).toBe(false);
    expect(isHidden('flights', options)).toBe(false);
  });
});
