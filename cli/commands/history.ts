/** A run's event history: `history` saves it, `replay` checks it against the workflow code, `reset` rewinds the run. */
import { resolve as resolvePath } from 'node:path';
import { workflowUrl } from '../../client/connect';
import { PerflowError } from '../../client/errors';
import { fetchHistory, readHistoryFile, resetRun, writeHistoryFile } from '../../client/ops';
import { encryptionDataConverter } from '../../codec/encryption';
import { historyWorkflowId, parseResetTarget } from '../../client/ops';
import { encryptionKeyIdsIn, missingKeyMessage } from '../../codec/encryption';
import { requireId, withClient, type CommandHandler } from '../context';
import { answer } from '../output';

export const history: CommandHandler = async (ctx) => {
  const { o } = ctx;
  const id = requireId(ctx);
  if (!o.out) throw new PerflowError('invalid', 'history needs --out FILE');
  const file = o.out;
  return withClient(ctx, async ({ client }) => {
    const h = await fetchHistory(client, id);
    await writeHistoryFile(file, h, id);
    const events = h.events?.length ?? 0;
    answer(o.json, { workflow_id: id, file: resolvePath(file), events }, () => `wrote ${events} events to ${file}`);
    return 0;
  });
};

export const replay: CommandHandler = async (ctx) => {
  // The worker side, loaded for this command only: it bundles the workflow code.
  const { replayHistory } = await import('../../workers/replay');
  const { o, config } = ctx;
  let history: unknown;
  let workflowId: string;
  if (o.history) {
    const read = await readHistoryFile(o.history);
    history = read.history;
    workflowId = historyWorkflowId(o.history, read.workflowId, o['workflow-id']);
  } else {
    const id = requireId(ctx, 'a workflow ID or --history FILE');
    workflowId = id;
    history = await withClient(ctx, ({ client }) => fetchHistory(client, id));
  }
  // An encrypted history needs its keys: say which, rather than fail the replay's workflow task.
  const missing = [...encryptionKeyIdsIn(history)].find((id) => !config.encryption?.keys.has(id));
  if (missing !== undefined) throw new PerflowError('failed', missingKeyMessage(missing, config.encryption));
  const problem = await replayHistory(history, workflowId, o.workflows ? resolvePath(o.workflows) : undefined, encryptionDataConverter(config.encryption));
  answer(o.json, { workflow_id: workflowId, deterministic: problem === undefined, ...(problem ? { problem } : {}) }, () =>
    problem ? `replay failed: ${problem}` : 'replay ok: the history is deterministic with the current workflow code',
  );
  return problem ? 3 : 0;
};

export const reset: CommandHandler = async (ctx) => {
  const { o, config } = ctx;
  const id = requireId(ctx);
  const target = parseResetTarget(o.to);
  return withClient(ctx, async ({ client }) => {
    const r = await resetRun(client, id, target, o.reason ?? 'perflow reset');
    const ui = workflowUrl(config, id, r.runId);
    answer(o.json, { workflow_id: id, run_id: r.runId, reset_to_event: r.eventId, ui_url: ui }, () => [`reset ${id} to event ${r.eventId}: new run_id ${r.runId}`, `ui: ${ui}`]);
    return 0;
  });
};
