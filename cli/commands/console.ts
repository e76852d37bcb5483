/** `perflow console`: the web console, until Ctrl-C. */
import { PerflowError } from '../../client/errors';
import type { CommandHandler } from '../context';
import { note, out } from '../output';
import { readTokenScopes } from '../../console/token-scopes';

export const consoleCommand: CommandHandler = async (ctx) => {
  const { o, config, env } = ctx;
  const port = o.port === undefined ? undefined : Number(o.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new PerflowError('invalid', `--port expects a port number, got "${o.port}"`);
  const token = o.token ?? (env.PERFLOW_CONSOLE_TOKEN?.trim() || undefined);
  const tokens = o.tokens !== undefined ? await readTokenScopes(o.tokens) : undefined;
  // The console's server (Hono) loads only for this command.
  const { startConsole } = await import('../../console/server');
  const server = await startConsole({
    config,
    ...(o.host ? { host: o.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(tokens ? { tokens } : {}),
    ...(token ? { token } : {}),
    ...(o['unsafe-no-token'] ? { unsafeNoToken: true } : {}),
    ...(o['allowed-host'] ? { allowedHosts: o['allowed-host'] } : {}),
    ...(o['allow-inline-agents'] ? { allowInlineAgents: true } : {}),
    ...(o.agents ? { agentsDir: o.agents } : {}),
  });
  // A generated token is shown once, in the URL to open (as Jupyter does); a given one is the user's already.
  const open = server.tokenGenerated || server.token === undefined ? server.openUrl : `${server.url}/?token=…`;
  out(`perflow console: ${open} (agents from ${server.agentsDir}; Ctrl-C stops it)`);
  if (server.scopedTokens > 0) note(`perflow console: ${server.scopedTokens} tokens from ${o.tokens}, each seeing its tenant's runs only (open ${server.url}/?token=TOKEN)`);
  else if (server.token === undefined) note('perflow console: --unsafe-no-token: any local process and any page this machine\'s browsers open can use this console');
  if (o['allow-inline-agents']) note('perflow console: --allow-inline-agents: whoever holds the token can make the workers run whatever an agent file can do (MCP commands included)');
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  note('perflow console: stopping');
  await server.close();
  return 0;
};
