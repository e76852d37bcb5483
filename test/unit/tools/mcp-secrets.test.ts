/** `${NAME}` references in MCP servers' env and headers, resolved from the worker's environment. */
import { boundedTools, MCP_TOOL_LIMITS, resolveSecrets } from '../../../activities/tools/mcp';

const env: Record<string, string> = { GITHUB_TOKEN: 'ghp_123', REGION: 'eu' };
const secret = (name: string) => env[name];

describe('resolveSecrets', () => {
  it('replaces every reference in env values, keeping the rest of the text', () => {
    const server = { name: 'gh', command: 'gh-mcp', env: { TOKEN: '${GITHUB_TOKEN}', LABEL: '${REGION}-${REGION} (plain)', PLAIN: 'no reference' } };
    expect(resolveSecrets(server, secret)).toEqual({ ...server, env: { TOKEN: 'ghp_123', LABEL: 'eu-eu (plain)', PLAIN: 'no reference' } });
    expect(server.env.TOKEN).toBe('${GITHUB_TOKEN}'); // the agent's own config is untouched
  });

  it('replaces references in headers of an HTTP server', () => {
    const server = { name: 'api', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } };
    expect(resolveSecrets(server, secret)).toEqual({ ...server, headers: { Authorization: 'Bearer ghp_123' } });
  });

  it('fails in one line naming the server, the field and the variable when it is not set', () => {
    const server = { name: 'api', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${MISSING_TOKEN}' } };
    expect(() => resolveSecrets(server, secret)).toThrow('MCP server "api": headers.Authorization references ${MISSING_TOKEN}, which is not set in the worker\'s environment');
  });

  it('leaves servers without env or headers as they are', () => {
    const server = { name: 'plain', command: 'x' };
    expect(resolveSecrets(server, secret)).toEqual(server);
  });
});

describe("a hostile MCP server's tool list", () => {
  it('is bounded before it goes into the history: the first 128 tools, descriptions cut, oversized schemas left out', () => {
    const warnings: string[] = [];
    const tools = Array.from({ length: 1_000 }, (_, i) => ({ name: `t${i}`, description: i === 0 ? 'd'.repeat(1_000_000) : 'ok', inputSchema: i === 1 ? { type: 'object', description: 's'.repeat(100_000) } : { type: 'object' } }));
    const kept = boundedTools('hostile', tools, (message) => void warnings.push(message));
    expect(kept).toHaveLength(127); // 128, less the one whose schema is too large
    expect(kept.map((t) => t.name)).not.toContain('t1');
    expect(kept[0].description).toBe(`${'d'.repeat(MCP_TOOL_LIMITS.description)}… [cut: 1000000 characters]`);
    expect(JSON.stringify(kept).length).toBeLessThan(200_000);
    expect(warnings).toEqual(['MCP server offers more tools than a run takes: the first ones are used', 'MCP tool left out: its input schema is too large']);
  });
});
