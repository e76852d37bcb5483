/** `perflow worker`: the only command that runs worker code. */
import type { CommandHandler } from '../context';

export const worker: CommandHandler = async ({ env }) => {
  // Loaded only here: the worker package is heavy. (`require`, as the checkout's tsx hook is CommonJS only.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runWorker } = require('../../workers/main') as typeof import('../../workers/main');
  await runWorker(env);
  return 0;
};
