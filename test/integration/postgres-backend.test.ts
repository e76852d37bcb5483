/**
 * The memory backend for load: FerretDB on a private PostgreSQL cluster
 * (PERFLOW_MONGO_BACKEND=postgresql), started and stopped by servers/ as the benchmark uses it.
 * A run of each agent type completes against it with its memory written there.
 */
import { startMongo, type MongoServer } from '../../servers';
import { AGENT_TYPES, expectedResponse, typedAgent } from '../support/typed-agents';
import { createHarness, runInput, startAgentRun, type Harness } from '../support/harness';

jest.setTimeout(240_000);

let mongo: MongoServer;
let harness: Harness;

beforeAll(async () => {
  mongo = await startMongo({ ...process.env, MONGODB_URI: '', PERFLOW_MONGO_BACKEND: 'postgresql' });
  harness = await createHarness({ mongoUri: mongo.uri });
});

afterAll(async () => {
  await harness?.close();
  await mongo?.stop();
});

it('serves FerretDB from PostgreSQL', () => {
  expect(mongo.kind).toBe('ferretdb-postgresql');
});

it.each(AGENT_TYPES)('runs a %s agent with its memory in PostgreSQL', async (type) => {
  const out = await (await startAgentRun(harness, runInput(typedAgent(type, 2), `postgres ${type}`), 'pg')).result();
  expect(out.response).toBe(expectedResponse(type, 2));
  const root = await harness.memory.interactions.findOne({ _id: out.parent_interaction_id });
  expect(root?.response).toBe(out.response);
  expect(await harness.memory.interactions.countDocuments({ memory_id: out.executor_agent_memory_id, origin: 'tool' })).toBe(2);
});
