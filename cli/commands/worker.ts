/** `perflow worker`: the only command that runs worker code. */
import type { CommandHandler } from '../context';

export const worker: CommandHandler = async ({ env }) => {
  // Loaded only here: the worker package is heavy.
  const { runWorker } = await import('../../workers/main');
  await runWorker(env);
  return 0;
};
