/**
 * `perflow mcp`: the agents of a folder as MCP tools, over stdio (stdout is the protocol's: every
 * note goes to stderr) or streamable HTTP, until Ctrl-C or, over stdio, until the client closes.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { PerflowError } from '../../client/errors';
import { withClient, type CommandHandler } from '../context';
import { note } from '../output';

export const mcpCommand: CommandHandler = async (ctx) => {
  const { o, env } = ctx;
  const dir = resolve(o.agents ?? 'agents');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new PerflowError('invalid', `mcp needs --agents DIR, a folder of agent files (${o.agents === undefined ? 'no ./agents here' : `${dir} is not a folder`})`);
  const port = o.http === undefined ? undefined : Number(o.http);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new PerflowError('invalid', `--http expects a port number, got "${o.http}"`);
  for (const flag of ['host', 'token', 'allowed-host', 'unsafe-no-token'] as const) {
    if (port === undefined && o[flag] !== undefined) throw new PerflowError('invalid', `--${flag} is for the HTTP server: add --http PORT`);
  }
  // The MCP SDK and the listener load only for this command.
  const [{ offeredAgents }, { createMcpServer }, { RunTaskStore }] = await Promise.all([import('../../mcp/agent-tools'), import('../../mcp/server'), import('../../mcp/run-tasks')]);
  const agents = await offeredAgents(dir);
  if (agents.length === 0) throw new PerflowError('invalid', `${dir} holds no agent file (JSON with a "name"): nothing to offer`);
  return withClient(ctx, async (perflow) => {
    const tasks = new RunTaskStore(perflow);
    const session = () => createMcpServer({ perflow, agentsDir: dir, agents, tasks });
    const names = agents.map((a) => a.tool).join(', ');
    if (port === undefined) {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const server = session();
      const stopped = new Promise<void>((done) => {
        server.onclose = done;
        process.stdin.once('end', done);
      });
      await server.connect(new StdioServerTransport());
      note(`perflow mcp: ${agents.length} agents as tools over stdio (${names})`);
      await Promise.race([stopped, signalled()]);
      await server.close();
    } else {
      const { serveMcpHttp } = await import('../../mcp/http');
      const token = o.token ?? (env.PERFLOW_MCP_TOKEN?.trim() || undefined);
      const http = await serveMcpHttp({
        session,
        port,
        ...(o.host ? { host: o.host } : {}),
        ...(token ? { token } : {}),
        ...(o['unsafe-no-token'] ? { unsafeNoToken: true } : {}),
        ...(o['allowed-host'] ? { allowedHosts: o['allowed-host'] } : {}),
      });
      note(`perflow mcp: ${agents.length} agents as tools at ${http.url} (${names}; Ctrl-C stops it)`);
      // A generated token is shown once; a given one is the user's already.
      if (http.tokenGenerated) note(`perflow mcp: token ${http.token} (send "Authorization: Bearer TOKEN")`);
      else if (http.token === undefined) note('perflow mcp: --unsafe-no-token: any local process can run these agents');
      await signalled();
      note('perflow mcp: stopping');
      await http.close();
    }
    return 0;
  });
};

const signalled = () =>
  new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
