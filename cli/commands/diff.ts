/** Comparing two runs: `diff` (the only command that loads the text-diff library). */
import { diffRuns } from '../../client/diff';
import { formatDiff } from '../../client/text-views';
import { PerflowError } from '../../client/errors';
import { aboutRun, withClient, type CommandHandler } from '../context';
import { answer } from '../output';

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
