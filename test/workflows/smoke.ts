/** A trivial workflow for the foundation smoke test: one activity writes to MongoDB and reads back. */
import { proxyActivities } from '@temporalio/workflow';
import type { SmokeActivities } from './smoke-activities';

const { writeAndRead } = proxyActivities<SmokeActivities>({ startToCloseTimeout: '30 seconds' });

export async function smokeWorkflow(id: string, text: string): Promise<{ id: string; text: string }> {
  return writeAndRead(id, text);
}
