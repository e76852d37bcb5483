import type { Db } from 'mongodb';

export function createSmokeActivities(db: Db) {
  return {
    async writeAndRead(id: string, text: string): Promise<{ id: string; text: string }> {
      const docs = db.collection<{ _id: string; text: string }>('smoke');
      await docs.replaceOne({ _id: id }, { text }, { upsert: true });
      const doc = await docs.findOne({ _id: id });
      if (!doc) throw new Error(`smoke document ${id} was not found after writing it`);
      return { id: doc._id, text: doc.text };
    },
  };
}

export type SmokeActivities = ReturnType<typeof createSmokeActivities>;
