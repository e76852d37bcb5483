/** `perflow a2a`: the agents of a folder as A2A agents over HTTP (JSON-RPC and HTTP+JSON, v1.0 and v0.3), until Ctrl-C. */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { PerflowError } from '../../client/errors';
import { withClient, type CommandHandler } from '../context';
import { note } from '../output';

export const a2aCommand: CommandHandler = async (ctx) => {
  const { o } = ctx;
  const dir = resolve(o.agents ?? 'agents');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new PerflowError('invalid', `a2a needs --agents DIR, a folder of agent files (${o.agents === undefined ? 'no ./agents here' : `${dir} is not a folder`})`);
  const port = Number(o.port ?? '7400');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new PerflowError('invalid', `--port expects a port number, got "${o.port}"`);
  // The A2A SDK and the listener load only for this command.
  const [{ offeredAgents }, { readTokenScopes }, { serveA2a }] = await Promise.all([import('../../mcp/agent-tools'), import('../../console/token-scopes'), import('../../a2a/http')]);
  const agents = await offeredAgents(dir);
  if (agents.length === 0) throw new PerflowError('invalid', `${dir} holds no agent file (JSON with a "name"): nothing to offer`);
  if (o['unsafe-no-token']) throw new PerflowError('invalid', 'perflow a2a always needs a token: give --token T or --tokens FILE, or use the one it prints');
  if (o.token !== undefined && o.tokens !== undefined) throw new PerflowError('invalid', '--token and --tokens contradict each other: give one');
  const { OPERATOR } = await import('../../client/tenant-scope');
  const tokens = o.tokens !== undefined ? await readTokenScopes(o.tokens) : o.token !== undefined ? [{ token: o.token, scope: OPERATOR }] : undefined;
  return withClient(ctx, async (perflow) => {
    const server = await serveA2a({
      perflow,
      agents,
      agentsDir: dir,
      port,
      ...(o.default !== undefined ? { defaultAgent: o.default } : {}),
      ...(o.host ? { host: o.host } : {}),
      ...(tokens ? { tokens } : {}),
      ...(o['allowed-host'] ? { allowedHosts: o['allowed-host'] } : {}),
    });
    note(`perflow a2a: ${agents.length} agents at ${server.url}/a2a/AGENT (${agents.map((a) => a.tool).join(', ')}; cards at /a2a/AGENT/.well-known/agent-card.json; Ctrl-C stops it)`);
    // A generated token is shown once; a tokens file is the user's already.
    if (server.token) note(`perflow a2a: token ${server.token} (send "Authorization: Bearer TOKEN")`);
    else if (o.token !== undefined) note('perflow a2a: the token of --token (send "Authorization: Bearer TOKEN")');
    else if (o.tokens !== undefined) note(`perflow a2a: ${tokens!.length} tokens from ${o.tokens}, each seeing its tenant's tasks only`);
    await new Promise<void>((stop) => {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    note('perflow a2a: stopping');
    await server.close();
    return 0;
  });
};
