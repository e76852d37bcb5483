/** Inspecting runs: `status`, `watch`, `result`, `list`, `cancel` (they load no agent-file schemas; only `watch` loads the MongoDB driver). */
import { PerflowError } from '../../client/errors';
import { cancelRun, getResult, listRuns, parseListStatus, runSummary } from '../../client/ops';
import { runStatus } from '../../client/run-status';
import { watchRun } from '../../client/watch';
import { requireId, withClient, type CommandHandler } from '../context';
import { runListLine, statusLines, subAgentLines } from '../format';
import { webhookLine } from '../../client/webhooks';
import { answer } from '../output';
import { terminalColumns } from '../started-run';
import { EventPrinter } from '../event-lines';

export const status: CommandHandler = async (ctx) => {
  const id = requireId(ctx);
  return withClient(ctx, async ({ client }) => {
    const { status: json, progress: p, subAgents, fingerprint, webhook } = await runStatus(client, id);
    answer(ctx.o.json, json, () => [
      ...statusLines(id, p),
      ...(fingerprint ? [`  fingerprint: ${fingerprint.id}`] : []),
      ...(webhook ? [`  ${webhookLine(webhook)}`] : []),
      ...subAgentLines(subAgents),
    ]);
    return 0;
  });
};

export const watch: CommandHandler = async (ctx) => {
  const id = requireId(ctx);
  const raw = ctx.o.from;
  const from = raw === undefined ? 0 : Number(raw);
  if (!Number.isInteger(from) || from < 0) throw new PerflowError('invalid', `--from expects an event offset (0, 1, 2, …), got "${raw}"`);
  return withClient(ctx, async (perflow) => {
    // --json: one event per line (NDJSON), each written as it arrives.
    const printer = ctx.o.json ? undefined : new EventPrinter({ write: (t) => void process.stdout.write(t), ...terminalColumns(true) });
    for await (const event of watchRun(perflow, id, { from })) {
      if (printer) printer.print(event);
      else process.stdout.write(`${JSON.stringify(event)}\n`);
    }
    return 0;
  });
};

export const result: CommandHandler = async (ctx) => {
  const id = requireId(ctx);
  return withClient(ctx, async ({ client }) => {
    const r = await getResult(client, id);
    answer(ctx.o.json, r, () => r.response);
    return 0;
  });
};

export const list: CommandHandler = async (ctx) => {
  const { o } = ctx;
  const wanted = parseListStatus(o.status, '--status');
  return withClient(ctx, async ({ client }) => {
    const runs = await listRuns(client, wanted, 100, o.agent, o.tenant, o.fingerprint, o.schedule);
    answer(o.json, runs.map(runSummary), () => runs.map(runListLine));
    return 0;
  });
};

export const cancel: CommandHandler = async (ctx) => {
  const id = requireId(ctx);
  return withClient(ctx, async ({ client }) => {
    await cancelRun(client, id);
    answer(ctx.o.json, { workflow_id: id, cancel_requested: true }, () => `cancellation requested for ${id}`);
    return 0;
  });
};
