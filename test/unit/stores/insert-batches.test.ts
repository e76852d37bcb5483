/**
 * A command that hangs (a connection that stalls without an error) holds the inserts waiting
 * behind it only so long: then they go in a command of their own. A command whose connection
 * drops fails each of its callers, unsent again: whether it was written is unknown. The
 * collections are stand-ins for a server that hangs or drops; what batches do on a real server is
 * in test/integration/insert-batches.test.ts.
 */
import { MongoNetworkError, type Collection, type Document } from 'mongodb';
import { Inserts } from '../../../stores/insert-batches';

function hangingFirst(): { collection: Collection<Document>; sent: Document[][] } {
  const sent: Document[][] = [];
  const collection = {
    namespace: 'db.hanging',
    insertMany: (docs: Document[]) => {
      sent.push(docs);
      return sent.length === 1 ? new Promise(() => undefined) : Promise.resolve({ acknowledged: true, insertedCount: docs.length });
    },
  } as unknown as Collection<Document>;
  return { collection, sent };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('inserts behind a command that hangs', () => {
  it('wait while it is young, then go on their own; the hung one stays its own callers\' wait', async () => {
    const { collection, sent } = hangingFirst();
    const inserts = new Inserts(200);
    let hungDone = false;
    void inserts.insert(collection, [{ _id: 'hung' }]).then(() => (hungDone = true));
    const behind = Promise.all([inserts.insert(collection, [{ _id: 'a' }]), inserts.insert(collection, [{ _id: 'b' }])]);
    await tick(50);
    expect(sent).toEqual([[{ _id: 'hung' }]]);
    await expect(behind).resolves.toEqual([[], []]);
    expect(sent).toEqual([[{ _id: 'hung' }], [{ _id: 'a' }, { _id: 'b' }]]);
    expect(hungDone).toBe(false);
    // Later inserts are not held by the hung one either.
    await expect(inserts.insert(collection, [{ _id: 'c' }])).resolves.toEqual([]);
  });
});

describe('inserts in a command whose connection drops', () => {
  it('fail, each with the error, and are not sent again on their own (they may have been written)', async () => {
    const sent: Document[][] = [];
    const collection = {
      namespace: 'db.dropping',
      insertMany: async (docs: Document[]) => {
        sent.push(docs);
        if (sent.length === 1) return tick(20).then(() => ({ acknowledged: true, insertedCount: 1 }));
        throw new MongoNetworkError('connection 7 to 127.0.0.1:27017 closed');
      },
    } as unknown as Collection<Document>;
    const inserts = new Inserts();
    const outcomes = await Promise.allSettled([inserts.insert(collection, [{ _id: 'first' }]), inserts.insert(collection, [{ _id: 'a' }]), inserts.insert(collection, [{ _id: 'b' }])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(outcomes.slice(1).map((o) => (o as PromiseRejectedResult).reason)).toEqual([expect.any(MongoNetworkError), expect.any(MongoNetworkError)]);
    expect(sent).toEqual([[{ _id: 'first' }], [{ _id: 'a' }, { _id: 'b' }]]);
  });
});
