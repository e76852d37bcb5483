/** `perflow console`: the web console, until Ctrl-C. */
import { CliError } from '../../client';
import type { CommandHandler } from '../context';
import { note, out } from '../output';

export const consoleCommand: CommandHandler = async (ctx) => {
  const { o, config, env } = ctx;
  const port = o.port === undefined ? undefined : Number(o.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new CliError(`--port expects a port number, got "${o.port}"`, 2);
  const token = o.token ?? (env.PERFLOW_CONSOLE_TOKEN?.trim() || undefined);
  // The console's server (Hono) loads only for this command.
  const { startConsole } = await import('../../console/server');
  const server = await startConsole({ config, env, ...(o.host ? { host: o.host } : {}), ...(port !== undefined ? { port } : {}), ...(token ? { token } : {}), ...(o.agents ? { agentsDir: o.agents } : {}) });
  out(`perflow console: ${server.url}${token ? '/?token=…' : ''} (agents from ${server.agentsDir}; Ctrl-C stops it)`);
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  note('perflow console: stopping');
  await server.close();
  return 0;
};
