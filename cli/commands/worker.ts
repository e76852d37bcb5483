/** `perflow worker`: the only command that runs worker code. */
import type { CommandHandler } from '../context';

export const worker: CommandHandler = async ({ env, o }) => {
  // Loaded only here: the worker package is heavy.
  const { runWorker } = await import('../../workers/main');
  // --deployment NAME --build-id ID: the Worker Deployment version (over PERFLOW_DEPLOYMENT and PERFLOW_BUILD_ID).
  const versioned = {
    ...env,
    ...(o.deployment !== undefined ? { PERFLOW_DEPLOYMENT: o.deployment } : {}),
    ...(o['build-id'] !== undefined ? { PERFLOW_BUILD_ID: o['build-id'] } : {}),
  };
  // --nexus-agents DIR: this folder's agent files, served to other namespaces through Nexus.
  await runWorker(versioned, o['nexus-agents'] !== undefined ? { nexusAgentsDir: o['nexus-agents'] } : {});
  return 0;
};
