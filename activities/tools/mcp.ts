/**
 * MCP servers as tool sources: their tools are listed when a run starts (the list is recorded
 * in the workflow history, so replays never need the server) and each call is its own
 * activity that connects, calls and disconnects.
 */
import { log } from '@temporalio/activity';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerConfig } from '../../core/agent';
import type { ToolSpec } from '../../core/llm-types';
import { toolTimeoutSeconds } from '../../core/tool-types';

/** How a listed MCP tool is called: the `ref.parameters` of its AgentTool. */
export interface McpToolParameters {
  server: McpServerConfig;
  tool: string;
  /** The server's `timeout_seconds`, where the workflow reads a tool's (its activity's timeout follows it). */
  timeout_seconds?: number;
}

export const MCP_TOOL_TYPE = 'mcp';

const CONNECT_TIMEOUT_MS = 30_000;

/** Reads a variable of the worker's environment by name (the worker's `ProviderConfig.secret`). */
export type SecretReader = (name: string) => string | undefined;

const SECRET_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The server with every `${NAME}` in its `env` and `headers` values replaced by the worker's
 * variable NAME. Resolved inside the activity, so the agent file and the history keep only the
 * reference, never the secret.
 * @throws Error naming the server, field and variable when a referenced variable is not set
 */
export function resolveSecrets(server: McpServerConfig, secret: SecretReader): McpServerConfig {
  const resolve = (field: 'env' | 'headers', values: Record<string, string> | undefined) =>
    values &&
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key,
        value.replace(SECRET_REFERENCE, (_, name: string) => {
          const found = secret(name);
          if (found === undefined) throw new Error(`MCP server "${server.name}": ${field}.${key} references \${${name}}, which is not set in the worker's environment`);
          return found;
        }),
      ]),
    );
  return 'command' in server ? { ...server, ...(server.env ? { env: resolve('env', server.env) } : {}) } : { ...server, ...(server.headers ? { headers: resolve('headers', server.headers) } : {}) };
}

/** The MCP SDK's client side (~0.4 s of CPU to load), loaded by a worker's first MCP tool. */
/* eslint-disable @typescript-eslint/no-require-imports */
const mcpSdk = () => ({
  ...(require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js')),
  ...(require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js')),
  ...(require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
});
/* eslint-enable @typescript-eslint/no-require-imports */

async function withMcpClient<T>(config: McpServerConfig, secret: SecretReader, fn: (client: Client) => Promise<T>): Promise<T> {
  const { Client, getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport } = mcpSdk();
  const server = resolveSecrets(config, secret);
  const client = new Client({ name: 'perflow', version: '0.1.0' });
  const transport =
    'command' in server
      ? new StdioClientTransport({
          command: server.command,
          args: server.args ?? [],
          env: { ...getDefaultEnvironment(), ...(server.env ?? {}) },
          ...(server.cwd ? { cwd: server.cwd } : {}),
          stderr: 'ignore',
        })
      : new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } });
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    return await fn(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * The tools of each server, as the model sees them (`<tool>` unless two servers share a name,
 * then `<server>_<tool>`). A server that fails to start or list is logged and skipped: the run
 * continues with the other tools.
 */
export async function listMcpTools(servers: readonly McpServerConfig[], secret: SecretReader): Promise<{ spec: ToolSpec; parameters: McpToolParameters }[]> {
  const out: { spec: ToolSpec; parameters: McpToolParameters }[] = [];
  for (const server of servers) {
    try {
      const { tools } = await withMcpClient(server, secret, (client) => client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS }));
      // The list goes into the history: a server cannot make it grow without bound.
      const listed = boundedTools(server.name, tools);
      for (const tool of listed) {
        out.push({
          spec: { name: tool.name, description: tool.description ?? '', input_schema: tool.inputSchema as Record<string, unknown> },
          parameters: { server, tool: tool.name, ...(server.timeout_seconds !== undefined ? { timeout_seconds: server.timeout_seconds } : {}) },
        });
      }
    } catch (err) {
      log.warn('MCP server skipped: it failed to start or to list its tools', { server: server.name, error: (err as Error).message });
    }
  }
  const counts = new Map<string, number>();
  for (const t of out) counts.set(t.spec.name, (counts.get(t.spec.name) ?? 0) + 1);
  for (const t of out) if ((counts.get(t.spec.name) ?? 0) > 1) t.spec = { ...t.spec, name: `${t.parameters.server.name}_${t.parameters.tool}` };
  return out;
}

/** The most tools one MCP server may offer a run, and the most characters of each tool's description and input schema. */
export const MCP_TOOL_LIMITS = { tools: 128, description: 4_000, schema: 32_000 } as const;

/**
 * A server's tool list within {@link MCP_TOOL_LIMITS}: its first tools only, each description cut
 * with a marker; a tool whose schema is larger is left out (a cut schema would mislead the model).
 * What was dropped is logged.
 */
export function boundedTools<T extends { name: string; description?: string; inputSchema: unknown }>(server: string, tools: readonly T[], warn: (message: string, attrs: Record<string, unknown>) => void = (m, a) => log.warn(m, a)): T[] {
  const { tools: most, description, schema } = MCP_TOOL_LIMITS;
  if (tools.length > most) warn('MCP server offers more tools than a run takes: the first ones are used', { server, offered: tools.length, used: most });
  return tools.slice(0, most).flatMap((tool) => {
    if (JSON.stringify(tool.inputSchema ?? {}).length > schema) {
      warn('MCP tool left out: its input schema is too large', { server, tool: tool.name, limit: schema });
      return [];
    }
    const text = tool.description ?? '';
    return [text.length > description ? { ...tool, description: `${text.slice(0, description)}… [cut: ${text.length} characters]` } : tool];
  });
}

/** Whether a person approves each call of a server's tool (the server's `requires_approval`). */
export function mcpNeedsApproval(server: McpServerConfig, tool: string): boolean {
  const r = server.requires_approval;
  return r === true || (Array.isArray(r) && r.includes(tool));
}

/** Calls one MCP tool; its text content is the observation, `isError` marks a tool error. */
export async function callMcpTool(p: McpToolParameters, input: Record<string, unknown>, secret: SecretReader): Promise<{ content: string; is_error: boolean }> {
  const timeout = toolTimeoutSeconds({ timeout_seconds: p.server.timeout_seconds }) * 1_000;
  const result = await withMcpClient(p.server, secret, (client) => client.callTool({ name: p.tool, arguments: input }, undefined, { timeout }));
  const parts = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
  const content = parts.map((c) => (c.type === 'text' ? (c.text ?? '') : JSON.stringify(c))).join('\n');
  return { content, is_error: result.isError === true };
}
