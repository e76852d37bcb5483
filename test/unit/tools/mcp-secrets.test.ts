/** `${NAME}` references in MCP servers' env and headers, resolved from the worker's environment. */
import { resolveSecrets } from '../../../activities/tools/mcp';

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
