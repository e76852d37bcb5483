/** `perflow worker`: the only command that runs worker code. */
import type { CommandHandler } from '../context';

export const worker: CommandHandler = async ({ env, o }) => {
  // Loaded only here: the worker package is heavy.
  const { runWorker } = await import('../../workers/main');
  // --nexus-agents DIR: this folder's agent files, served to other namespaces through Nexus.
  await runWorker(env, o['nexus-agents'] !== undefined ? { nexusAgentsDir: o['nexus-agents'] } : {});
  return 0;
};
