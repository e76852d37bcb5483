/** Forking a run from a step, and comparing two runs: `fork`, `diff`. */
import { CliError, diffRuns, forkRun, formatDiff, loadAgentFile, parseParams } from '../../client';
import { aboutRun, requireId, withClient, type CommandHandler } from '../context';
import { answer } from '../output';
import { checkFollowOrWait, reportStarted } from '../started-run';

export const fork: CommandHandler = async (ctx) => {
  const { o, config } = ctx;
  const id = requireId(ctx);
  if (o['from-step'] === undefined) throw new CliError('fork needs --from-step N', 2);
  const fromStep = Number(o['from-step']);
  if (!Number.isInteger(fromStep) || fromStep < 1) throw new CliError(`--from-step expects a step number from 1, got "${o['from-step']}"`, 2);
  checkFollowOrWait(o);
  const params = parseParams(o.param ?? []);
  const agent = o.agent ? (await loadAgentFile(o.agent, params, { extraToolTypes: config.extraToolTypes })).agent : undefined;
  return withClient(ctx, async (perflow) => {
    const started = await forkRun(perflow.client, id, {
      fromStep,
      ...(agent ? { agent } : {}),
      params,
      ...(o.question !== undefined ? { question: o.question } : {}),
      ...(o['workflow-id'] !== undefined ? { workflowId: o['workflow-id'] } : {}),
      taskQueue: config.taskQueue,
      ...(config.llmTaskQueue ? { llmTaskQueue: config.llmTaskQueue } : {}),
    });
    return reportStarted(perflow, ctx, started);
  });
};

export const diff: CommandHandler = async (ctx) => {
  const [a, b] = ctx.positionals;
  if (!a || !b) throw new CliError('diff needs two workflow IDs: perflow diff A B', 2);
  return withClient(ctx, async ({ client }) => {
    // Each run named on its own: a missing one is the one the error names.
    for (const id of [a, b]) await client.workflow.getHandle(aboutRun(ctx, id)).describe();
    const d = await diffRuns(client, a, b);
    answer(ctx.o.json, d, () => formatDiff(d));
    return 0;
  });
};
