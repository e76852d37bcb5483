/**
 * A2A push notifications: each task with stored configs is followed on its run's event stream
 * (as SubscribeToTask reads it) and each status change is handed to a `deliverWebhook` workflow
 * (workflows/webhooks.ts: retried for up to 24 h across worker restarts, 410 stops it). The
 * delivery's workflow ID is `TASK/a2a-push/CONFIG/OFFSET`: Temporal refuses a second start of
 * it, so a follower that resumes after a restart from the last recorded offset sends nothing
 * twice to the workflows (the receiver may still see a retried POST: at least once).
 */
import { StreamResponse, TaskState } from '@a2a-js/sdk';
import type { PerflowClient } from '../client/connect';
import { startWebhookDelivery } from '../client/webhooks';
import type { MongoPushConfigStore, PushConfigRecord } from './push-configs';
import { TERMINAL } from './parts';
import { NoTask, runTask } from './run-tasks';
import { offsetOf, runUpdates } from './run-updates';

/** How long a follower waits for its task's run to exist (a config sent with a message is stored just before the run starts). */
const TASK_APPEAR_MS = 60_000;
/** How long a follower waits before trying again after MongoDB or Temporal failed it. */
const RETRY_FOLLOW_MS = 5_000;

/** How deliveries are retried (defaults: workflows/webhooks.ts's, 24 hours from 5 s). */
export interface PushRetry {
  retry_for_ms?: number;
  initial_interval_ms?: number;
}

/** The delivery workflow of one notification: stable, so a re-sent start is refused. */
export const pushWorkflowId = (taskId: string, configId: string, offset: number): string => `${taskId}/a2a-push/${configId}/${offset}`;

export class PushNotifier {
  private readonly following = new Map<string, { stop: AbortController; done: Promise<void> }>();

  constructor(
    private readonly perflow: PerflowClient,
    private readonly store: () => MongoPushConfigStore,
    private readonly retry: PushRetry = {},
  ) {}

  /** Follows every config whose task's end was not yet notified (a restarted server resumes them). */
  async resume(): Promise<void> {
    const c = await this.store().collection();
    for (const r of await c.find({ done: false }).toArray()) this.follow(r);
  }

  /** Follows one config's task from where it was last notified (nothing when it is followed already). */
  follow(record: PushConfigRecord): void {
    if (record.done || this.following.has(record._id)) return;
    const stop = new AbortController();
    const done = this.run(record, stop.signal).finally(() => this.following.delete(record._id));
    this.following.set(record._id, { stop, done });
  }

  /** Stops following, once each follower has let go of MongoDB and Temporal (deliveries already started go on in their workflows). */
  async close(): Promise<void> {
    const all = [...this.following.values()];
    for (const f of all) f.stop.abort();
    await Promise.all(all.map((f) => f.done.catch(() => undefined)));
  }

  private async run(record: PushConfigRecord, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        return await this.notify(record, signal);
      } catch (err) {
        if (signal.aborted) return;
        console.error(`perflow a2a: push notifications of task ${record.task_id} paused (${(err as Error).message}); trying again`);
        await sleep(RETRY_FOLLOW_MS, signal);
      }
    }
  }

  private async notify(record: PushConfigRecord, signal: AbortSignal): Promise<void> {
    const scope = record.tenant !== undefined ? { tenant: record.tenant } : {};
    const task = await this.taskOnceStarted(record.task_id, scope, signal);
    if (!task) return;
    let state = record.state;
    for await (const u of runUpdates(this.perflow, record.task_id, task.contextId, { from: record.offset + 1, signal })) {
      // The answer's artifact comes with the final task, sent next.
      if (u.kind !== 'statusUpdate') continue;
      const offset = offsetOf(u.data);
      if (offset === undefined) continue;
      const next = u.data.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
      const ended = TERMINAL.includes(next);
      if (next === state && !ended) continue;
      // Deleted meanwhile: no more notifications.
      const current = await (await this.store().collection()).findOne({ _id: record._id });
      if (!current) return;
      const payload: StreamResponse = ended ? { payload: { $case: 'task', value: await runTask(this.perflow, record.task_id, scope) } } : { payload: { $case: 'statusUpdate', value: u.data } };
      await this.deliver(current, offset, payload);
      state = next;
      await (await this.store().collection()).updateOne({ _id: record._id }, { $set: { offset, state, done: ended } });
      if (ended) return;
    }
    // The stream ended without the task's end (MongoDB unreachable): followed again shortly.
    if (!signal.aborted) throw new Error('the run event stream ended before the task did');
  }

  /** The task once its run exists (a config may be stored just before), or undefined when it never did (a refused task). */
  private async taskOnceStarted(taskId: string, scope: { tenant?: string }, signal: AbortSignal) {
    const until = Date.now() + TASK_APPEAR_MS;
    for (;;) {
      try {
        return await runTask(this.perflow, taskId, scope);
      } catch (err) {
        if (!(err instanceof NoTask) || Date.now() > until || signal.aborted) {
          if (err instanceof NoTask) return undefined;
          throw err;
        }
        await sleep(500, signal);
      }
    }
  }

  /** Starts the notification's delivery; already started (a resumed follower) is delivered as far as this server is concerned. */
  private async deliver(r: PushConfigRecord, offset: number, payload: StreamResponse): Promise<void> {
    const workflowId = pushWorkflowId(r.task_id, r.config_id, offset);
    await startWebhookDelivery(this.perflow.client, this.perflow.config.taskQueue, workflowId, {
      url: r.url,
      id: workflowId,
      body: JSON.stringify(StreamResponse.toJSON(payload)),
      a2a: r.authentication ? { authorization: `${r.authentication.scheme} ${r.authentication.credentials}` } : r.token ? { token: r.token } : {},
      ...(this.retry.retry_for_ms !== undefined ? { retry_for_ms: this.retry.retry_for_ms } : {}),
      ...(this.retry.initial_interval_ms !== undefined ? { initial_interval_ms: this.retry.initial_interval_ms } : {}),
    });
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });
