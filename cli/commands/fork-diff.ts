/** Forking a run from a step, and comparing two runs: `fork`, `diff`. */
import { diffRuns } from '../../client/diff';
import { formatDiff } from '../../client/text-views';
import { PerflowError } from '../../client/errors';
import { forkRun } from '../../client/fork';
import { loadAgentFile, parseParams } from '../../client/run';
import { aboutRun, requireId, withClient, type CommandHandler } from '../context';
import { answer } from '../output';
import { checkFollowOrWait, reportStarted } from '../started-run';

export const fork: CommandHandler = async (ctx) => {
  const { o, config } = ctx;
  const id = requireId(ctx);
  if (o['from-step'] === undefined) throw new PerflowError('invalid', 'fork needs --from-step N');
  const fromStep = Number(o['from-step']);
  if (!Number.isInteger(fromStep) || fromStep < 1) throw new PerflowError('invalid', `--from-step expects a step number from 1, got "${o['from-step']}"`);
  checkFollowOrWait(o);
  const params = parseParams(o.param ?? []);
  const agent = o.agent ? (await loadAgentFile(o.agent, params, { extraToolTypes: config.extraToolTypes })).agent : undefined;
  return withClient(ctx, async (perflow) => {
    const started = await forkRun(perflow, id, {
      fromStep,
      ...(agent ? { agent } : {}),
      params,
      ...(o.question !== undefined ? { question: o.question } : {}),
      ...(o['workflow-id'] !== undefined ? { workflowId: o['workflow-id'] } : {}),
    });
    return reportStarted(perflow, ctx, started);
  });
};

export const diff: CommandHandler = async (ctx) => {
  const [a, b] = ctx.positionals;
  if (!a || !b) throw new PerflowError('invalid', 'diff needs two workflow IDs: perflow diff A B');
  return withClient(ctx, async ({ client }) => {
    // Each run named on its own: a missing one is the one the error names.
    for (const id of [a, b]) await client.workflow.getHandle(aboutRun(ctx, id)).describe();
    const d = await diffRuns(client, a, b);
    answer(ctx.o.json, d, () => formatDiff(d));
    return 0;
  });
};
