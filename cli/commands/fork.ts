/** Forking a run from a step: `fork`. */
import { PerflowError } from '../../client/errors';
import { forkRun } from '../../client/fork';
import { loadAgentFile, parseParams } from '../../client/run';
import { requireId, withClient, type CommandHandler } from '../context';
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
