/**
 * The recorded histories under test/fixtures/histories, as the replay suites read them, with the
 * workflow IDs they were recorded under.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { temporal } from '@temporalio/proto';
import type { ReplayWorkerOptions } from '@temporalio/worker';

export const HISTORY_DIR = resolve(__dirname, '..', 'fixtures', 'histories');

/** The recorded history files, sorted. */
export const HISTORY_FILES: readonly string[] = readdirSync(HISTORY_DIR)
  .filter((f) => f.endsWith('.binpb'))
  .sort();

export function readHistory(file: string): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.decode(readFileSync(join(HISTORY_DIR, file)));
}

/**
 * The workflow ID a history file was recorded under: workflow `history-<scenario>` (one file per
 * execution `.run-<k>` when it continued-as-new) and its children `history-<scenario>/step-<n>`
 * (or `/todo-<n>`, todo_list runs from before the kernel ran their iterations), and in an agent
 * tree their sub-agents' runs `…/step-<n>/agent-<k>` and theirs. `before-<patch>.`
 * files are copies kept from before a patched change.
 */
export function recordedWorkflowId(file: string): string {
  const name = file
    .replace(/^before-[a-z-]+\./, '')
    .replace(/\.binpb$/, '')
    .replace(/\.run-\d+$/, '')
    .replace(/\.((?:step|todo)-\d+)$/, '/$1')
    // An agent tree's sub-agents and their steps: `<scenario>.step-1.agent-1.step-1` → `/step-1/agent-1/step-1`.
    .replace(/\.((?:step|agent)-\d+)(?=[./]|$)/g, '/$1');
  return `history-${name}`;
}

/** Every recorded history with its workflow ID, in file order (as Worker.runReplayHistories takes them). */
export function recordedHistories(): { file: string; workflowId: string; history: temporal.api.history.v1.History }[] {
  return HISTORY_FILES.map((file) => ({ file, workflowId: recordedWorkflowId(file), history: readHistory(file) }));
}

/**
 * Replay options that run the workflows in a thread of their own, as a worker runs them. A replay
 * worker runs them in the calling thread by default (the SDK's debug mode), and there the SDK's
 * promise hook, installed for good, runs for every promise of every later test file in that Jest
 * worker, and each workflow promise's stack goes through Jest's source-map support. The SDK's
 * types leave `debugMode` out of replay options, which it honours all the same; an SDK that did
 * not would only replay slower.
 */
export function inWorkflowThread(options: ReplayWorkerOptions): ReplayWorkerOptions {
  return Object.assign({}, options, { debugMode: false });
}
