import { randomUUID } from 'node:crypto';
import { Worker, NativeConnection } from '@temporalio/worker';
import { connectMongo, connectTemporal, serverEnv, uniqueTaskQueue } from '../support/env';
import { createSmokeActivities } from '../workflows/smoke-activities';
import { smokeWorkflow } from '../workflows/smoke';

// The worker bundles its workflow first: seconds on a busy machine.
jest.setTimeout(60_000);

describe('the real servers', () => {
  it('run a workflow whose activity writes a MongoDB document and reads it back', async () => {
    const mongo = await connectMongo();
    const { connection, client } = await connectTemporal();
    const nativeConnection = await NativeConnection.connect({ address: serverEnv().temporalAddress });
    const taskQueue = uniqueTaskQueue('smoke');
    const id = randomUUID();
    try {
      const db = mongo.db('perflow_smoke');
      const worker = await Worker.create({
        connection: nativeConnection,
        taskQueue,
        workflowsPath: require.resolve('../workflows/smoke'),
        activities: createSmokeActivities(db),
      });
      const result = await worker.runUntil(
        client.workflow.execute(smokeWorkflow, { taskQueue, workflowId: `smoke-${id}`, args: [id, 'hello from perflow'] }),
      );
      expect(result).toEqual({ id, text: 'hello from perflow' });
      // The document is really in the server, not only in the workflow's answer.
      expect(await db.collection<{ _id: string }>('smoke').findOne({ _id: id })).toEqual({ _id: id, text: 'hello from perflow' });
    } finally {
      await nativeConnection.close();
      await connection.close();
      await mongo.close();
    }
  });
});
