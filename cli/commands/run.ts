/** Starting a run: `run` (the agent file read and checked here, the run started on Temporal). */
import { PerflowError } from '../../client/errors';
import { loadAgentFile, parseParams, startRun } from '../../client/run';
import { parseOnBusy } from '../../client/busy-memory';
import { checkWebhookUrl, checkWorkerPolicy } from '../../client/worker-policy';
import { withClient, type CommandHandler } from '../context';
import { note } from '../output';
import { checkFollowOrWait, reportStarted } from '../started-run';

export const run: CommandHandler = async (ctx) => {
  const { o, config } = ctx;
  if (!o.agent) throw new PerflowError('invalid', 'run needs --agent FILE');
  checkFollowOrWait(o);
  const onBusy = parseOnBusy(o['on-busy'], '--on-busy');
  // --memory-id is the memory_id parameter, over --param and the agent file's: startRun resolves the run's IDs from it.
  const runParams = { ...parseParams(o.param ?? []), ...(o['memory-id'] !== undefined ? { memory_id: o['memory-id'] } : {}) };
  const { agent, parameters, warnings, notes } = await loadAgentFile(o.agent, runParams, { extraToolTypes: config.extraToolTypes, ...(config.limits ? { limits: config.limits } : {}) });
  checkWorkerPolicy(agent, config);
  const webhook = o.webhook;
  if (webhook !== undefined) checkWebhookUrl(webhook, config);
  const question = o.question ?? parameters.question;
  if (!question) throw new PerflowError('invalid', 'run needs --question TEXT (or a question parameter)');
  for (const warning of warnings) note(`perflow: warning: ${warning}`);
  for (const line of notes) note(`perflow: note: ${line}`);
  return withClient(ctx, async (perflow) => {
    if (parameters.memory_id !== undefined) {
      // Only a run that continues a conversation reads MongoDB here (its driver loads with it).
      const { assertMemoryExists } = await import('../../client/memory');
      await assertMemoryExists(perflow, parameters.memory_id, parameters.tenant_id);
    }
    const started = await startRun(perflow, { agent, parameters, question, ...(onBusy ? { onBusy } : {}), ...(webhook !== undefined ? { webhook } : {}) });
    return reportStarted(perflow, ctx, started);
  });
};
