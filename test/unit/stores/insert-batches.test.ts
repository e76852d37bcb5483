/**
 * A command that hangs (a connection that stalls without an error) holds the inserts waiting
 * behind it only so long: then they go in a command of their own. The collection is a stand-in
 * whose first insert never answers; what batches do on a real server is in
 * test/integration/insert-batches.test.ts.
 */
import type { Collection, Document } from 'mongodb';
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
