/**
 * A second message to a busy conversation: a run started on a memory whose earlier run is still
 * going is refused (`reject`, the default), waits for it (`enqueue`), or stops it and goes on
 * from its work so far (`interrupt`). Which runs a memory is busy with comes from the
 * `PerflowMemory` search attribute; the waiting and the interrupted run's record are the
 * workflow's (workflows/kernel/run-order.ts).
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { interruptSignal } from '../workflows/definitions';
import { PerflowError } from './errors';
import { needingSearchAttributes, queryLiteral } from './ops';
import { lenientClient } from './payloads';

export const ON_BUSY = ['reject', 'enqueue', 'interrupt'] as const;
export type OnBusy = (typeof ON_BUSY)[number];

/** An `on_busy` choice given as `what` (`--on-busy`, `on_busy`); undefined when not given. */
export function parseOnBusy(value: unknown, what: string): OnBusy | undefined {
  if (value === undefined || (ON_BUSY as readonly unknown[]).includes(value)) return value as OnBusy | undefined;
  throw new PerflowError('invalid', `${what} must be reject, enqueue or interrupt, got ${JSON.stringify(value)}`);
}

export interface BusyRun {
  workflow_id: string;
  started: Date;
  /** The runs it waits for, when it is queued itself. */
  after: string[];
}

/**
 * The runs still going on a conversation (queued ones included), oldest first; with `tenant`,
 * that tenant's only (a caller never sees nor stops another tenant's runs).
 */
export async function busyRuns(client: Client, memoryId: string, tenant?: string): Promise<BusyRun[]> {
  const ofTenant = tenant !== undefined ? ` AND PerflowTenant = ${queryLiteral(tenant)}` : '';
  return needingSearchAttributes(client, 'a run on a conversation', async () => {
    const out: BusyRun[] = [];
    for await (const wf of lenientClient(client).workflow.list({ query: `PerflowMemory = ${queryLiteral(memoryId)} AND ExecutionStatus = 'Running'${ofTenant}` })) {
      const after = Array.isArray(wf.memo?.after) ? (wf.memo.after as unknown[]).filter((a): a is string => typeof a === 'string') : [];
      out.push({ workflow_id: wf.workflowId, started: wf.startTime, after });
    }
    // Visibility lags a run's end a little: a run it still lists is asked directly (one describe each, only when busy).
    const running = await Promise.all(out.map((r) => stillRunning(client, r.workflow_id)));
    return out.filter((_, i) => running[i]).sort((a, b) => a.started.getTime() - b.started.getTime());
  });
}

async function stillRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** The last run of a conversation's queue: the one no other run waits for (the latest started, if several). */
export function queueTail(runs: readonly BusyRun[]): BusyRun | undefined {
  const waitedFor = new Set(runs.flatMap((r) => r.after));
  return runs.filter((r) => !waitedFor.has(r.workflow_id)).at(-1) ?? runs.at(-1);
}

/**
 * Makes room on memory `memoryId` for run `workflowId`, as `onBusy` says; returns the runs it
 * must wait for (empty when the conversation is free). `reject` throws a `conflict` naming the
 * running run; `interrupt` signals and cancels every run of the conversation, queued ones too.
 */
export async function makeRoom(client: Client, memoryId: string, workflowId: string, onBusy: OnBusy, tenant?: string): Promise<string[]> {
  const runs = await busyRuns(client, memoryId, tenant);
  if (runs.length === 0) return [];
  if (onBusy === 'reject') {
    const names = runs.map((r) => r.workflow_id).join(', ');
    throw new PerflowError(
      'conflict',
      `memory ${memoryId} is busy: ${runs.length > 1 ? `runs ${names} are` : `run ${names} is`} still going; wait for ${runs.length > 1 ? 'them' : 'it'}, or send the message with on-busy enqueue (it runs after) or interrupt (it stops the running one)`,
    );
  }
  if (onBusy === 'enqueue') return [queueTail(runs)!.workflow_id];
  for (const r of runs) {
    const handle = client.workflow.getHandle(r.workflow_id);
    try {
      // Signal first: the run then knows the cancellation is an interruption, and keeps its work so far as its answer.
      await handle.signal(interruptSignal, { by: workflowId });
      await handle.cancel();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return runs.map((r) => r.workflow_id);
}
