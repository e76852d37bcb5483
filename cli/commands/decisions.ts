/** People's decisions on runs: `pending`, and the commands that answer a run's question or hold it. */
import type { Client } from '@temporalio/client';
import { approvePlan, approveTool as approveToolCall, denyTool as denyToolCall, guideRun, listPending, pauseRun, raiseBudget as raiseBudgetOf, readStepsFile, rejectPlan, resumeRun, type DecidedBy, type RoutedDecision } from '../../client/decisions';
import { PerflowError } from '../../client/errors';
import type { DecisionRecord } from '../../client';
import { parseJsonObject } from '../../client/json-file';
import { requireId, withClient, type CommandContext, type CommandHandler } from '../context';
import { decisionLine, pendingRunLines } from '../format';
import { answer } from '../output';

export const pending: CommandHandler = (ctx) =>
  withClient(ctx, async ({ client }) => {
    const runs = await listPending(client, 100, ctx.o.tenant);
    answer(ctx.o.json, runs, () => pendingRunLines(runs));
    return 0;
  });

type Send = (client: Client) => Promise<DecisionRecord>;

/**
 * A decision command: `prepare` checks the options (before connecting) and says what to send
 * to the run; the recorded decision is printed.
 */
function decisionCommand(prepare: (ctx: CommandContext, id: string, by: DecidedBy) => Send | Promise<Send>): CommandHandler {
  return async (ctx) => {
    const id = requireId(ctx);
    const send = await prepare(ctx, id, ctx.o.by !== undefined ? { by: ctx.o.by } : {});
    return withClient(ctx, async ({ client }) => {
      const d = await send(client);
      // Given a root's ID, the decision may have gone to the descendant that waited.
      const to = (d as Partial<RoutedDecision>).workflow_id ?? id;
      answer(ctx.o.json, { ...d, workflow_id: to }, () => decisionLine(to, d));
      return 0;
    });
  };
}

/** The `--reason` a command needs. */
function reasonFor({ o, command }: CommandContext): string {
  if (!o.reason) throw new PerflowError('invalid', `${command} needs --reason TEXT`);
  return o.reason;
}

export const approve = decisionCommand(async ({ o }, id, by) => {
  if (o['steps-file'] && o.step) throw new PerflowError('invalid', 'use either --steps-file or --step, not both');
  const steps = o['steps-file'] ? await readStepsFile(o['steps-file']) : o.step;
  return (c) => approvePlan(c, id, { ...by, ...(steps ? { steps } : {}) });
});

export const reject = decisionCommand((ctx, id, by) => {
  const reason = reasonFor(ctx);
  return (c) => rejectPlan(c, id, { ...by, reason, stop: ctx.o.stop ?? false });
});

export const approveTool = decisionCommand(({ o }, id, by) => {
  const input = o.input !== undefined ? parseJsonObject(o.input, '--input') : undefined;
  return (c) => approveToolCall(c, id, { ...by, ...(input ? { input } : {}) });
});

export const denyTool = decisionCommand((ctx, id, by) => {
  const reason = reasonFor(ctx);
  return (c) => denyToolCall(c, id, { ...by, reason });
});

export const guide = decisionCommand(({ positionals }, id, by) => {
  const text = positionals.slice(1).join(' ');
  if (text.trim() === '') throw new PerflowError('invalid', 'guide needs the guidance: perflow guide ID TEXT');
  return (c) => guideRun(c, id, text, by);
});

export const pause = decisionCommand(({ o }, id, by) => (c) => pauseRun(c, id, { ...by, ...(o.reason ? { reason: o.reason } : {}) }));

export const resume = decisionCommand((_ctx, id, by) => (c) => resumeRun(c, id, by));

export const raiseBudget = decisionCommand(({ o }, id, by) => {
  const usd = o.usd !== undefined && o.usd.trim() !== '' ? Number(o.usd) : NaN;
  if (!Number.isFinite(usd) || usd <= 0) throw new PerflowError('invalid', `raise-budget needs --usd N (a positive number of US dollars)${o.usd !== undefined ? `, got "${o.usd}"` : ''}`);
  return (c) => raiseBudgetOf(c, id, { ...by, usd });
});
