/**
 * Replaying a recorded history against workflow code, as a worker would run it: the worker
 * side's, because it loads the workflow bundle (`perflow replay`, `perflow/worker`).
 */
import type { DataConverter } from '@temporalio/common';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { REPLAY_SINKS, workflowCode, workflowSource } from './workflow-source';

/**
 * Replays a history against perflow's workflow code, or against the workflows module at
 * `workflowsPath` (a candidate version, before deploying it). An encrypted history needs the
 * workers' data converter (`encryptionDataConverter(keys)`).
 * @returns undefined when deterministic, else the reason in one line.
 */
export async function replayHistory(history: unknown, workflowId = 'replay', workflowsPath?: string, dataConverter?: DataConverter): Promise<string | undefined> {
  try {
    // Replay logs errors only, so its output is the verdict (the native core's warning about the
    // failing workflow task included: the verdict says the same).
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    // already installed
  }
  try {
    // perflow's workflows as its workers run them (a checkout's bundled once and kept while they do not change); a candidate's bundled as they are.
    const code = workflowsPath ? { workflowsPath } : { workflowBundle: (await workflowCode(workflowSource())).workflowBundle };
    await Worker.runReplayHistory({ ...code, sinks: REPLAY_SINKS, ...(dataConverter ? { dataConverter } : {}) }, history, workflowId);
    return undefined;
  } catch (err) {
    const e = err as Error;
    const cause = (e as { cause?: unknown }).cause;
    // A nondeterminism error carries the core's failure as debug text; its message names the event and what differs.
    const inner = /Failure \{ message: "((?:[^"\\]|\\.)*)"/.exec(e.message)?.[1]?.replace(/\\(.)/g, '$1');
    const msg = `${e.name}: ${inner ?? e.message}${cause instanceof Error ? ` (${cause.name}: ${cause.message})` : ''}`;
    return msg.replace(/\s*[\r\n]+\s*/g, ' ');
  }
}
