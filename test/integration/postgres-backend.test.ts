/**
 * The memory backend for load: FerretDB on a private PostgreSQL cluster
 * (PERFLOW_MONGO_BACKEND=postgresql), started and stopped by servers/ as the benchmark uses it.
 * A run of each agent type completes against it with its memory written there.
 */
import { AGENT_TYPES, expectedResponse, typedAgent } from '../support/typed-agents';
import { runInput, useHarness, runAgent } from '../support/harness';

jest.setTimeout(240_000);

const harness = useHarness({ ownMongo: { PERFLOW_MONGO_BACKEND: 'postgresql' } });

it('serves FerretDB from PostgreSQL', () => {
  expect(harness().ownMongo?.kind).toBe('ferretdb-postgresql');
});

it.each(AGENT_TYPES)('runs a %s agent with its memory in PostgreSQL', async (type) => {
  const out = await runAgent(harness(), runInput(typedAgent(type, 2), `postgres ${type}`), 'pg');
  expect(out.response).toBe(expectedResponse(type, 2));
  const root = await harness().memory.interactions.findOne({ _id: out.parent_interaction_id });
  expect(root?.response).toBe(out.response);
  expect(await harness().memory.interactions.countDocuments({ memory_id: out.executor_agent_memory_id, origin: 'tool' })).toBe(2);
});
