import type { Db } from 'mongodb';
import { checkCollection, settings, visibleCollections } from '../../../activities/tools/mongo/access';

/** A database as listCollections answers it: a collection, a view over perflow's memory, and the memory. */
function fakeDb(): Pick<Db, 'listCollections' | 'databaseName'> {
  const infos = [
    { name: 'flights', type: 'collection' },
    { name: 'memories_view', type: 'view', options: { viewOn: 'perflow_memories', pipeline: [] } },
    { name: 'perflow_memories', type: 'collection' },
  ];
  const listCollections = (filter: { name?: string; type?: string } = {}) => ({
    toArray: async () => infos.filter((c) => (filter.name === undefined || c.name === filter.name) && (filter.type === undefined || c.type === filter.type)),
  });
  return { databaseName: 'app', listCollections: listCollections as unknown as Db['listCollections'] };
}

const options = { defaultDb: 'app', protectedCollections: ['perflow_memories'] };

describe('the MongoDB tools and views', () => {
  it('never list a view (one can read any collection of its database, perflow\'s memory included)', async () => {
    expect(await visibleCollections(fakeDb(), options)).toEqual([{ name: 'flights', type: 'collection' }]);
  });

  it('refuse to read a view, naming why', async () => {
    await expect(checkCollection(fakeDb(), 'memories_view', options)).rejects.toThrow('"memories_view" is a view, which this tool does not read (a view can read any collection); read the collection it is built on');
    await expect(checkCollection(fakeDb(), 'flights', options)).resolves.toBeUndefined();
  });

  it("take the tool's timeout as the server's maxTimeMS", () => {
    expect(settings({}, options).maxTimeMS).toBe(90_000);
    expect(settings({ timeout_seconds: 5 }, options).maxTimeMS).toBe(5_000);
  });
});
