import { CLOSED_POLICY, describePolicy, envAllowed, hostAllowed, policyProblems, policyRefusal, policySubjectOf, type WorkerPolicy } from '../../../core/worker-policy';
import { clientConfigFromEnv, operatorEndpointsFromEnv, workerPolicyFromEnv } from '../../../config/env';
import { addModelInterfaces } from '../../../core/agent-file/known-interfaces';
import { genAiSystem } from '../../../telemetry/model-and-tool-calls';
import { createMemoryActivities } from '../../../activities/memory';
import type { MemoryStore } from '../../../stores/store';

const policy: WorkerPolicy = { mcpCommands: ['npx', '/usr/bin/python3'], hosts: ['api.example.com', 'mcp.internal:8443', '*.corp.example', '[::1]'], envVars: ['GITHUB_TOKEN', 'TEAM_*'] };

describe('the worker policy', () => {
  it('matches hosts by name, port and subdomain wildcard', () => {
    expect(hostAllowed(policy, 'https://api.example.com/v1')).toBe(true);
    expect(hostAllowed(policy, 'https://API.example.com:9999/v1')).toBe(true);
    expect(hostAllowed(policy, 'https://mcp.internal:8443/mcp')).toBe(true);
    expect(hostAllowed(policy, 'https://mcp.internal/mcp')).toBe(false);
    expect(hostAllowed(policy, 'http://a.b.corp.example/x')).toBe(true);
    expect(hostAllowed(policy, 'http://corp.example.evil.com/x')).toBe(false);
    expect(hostAllowed(policy, 'http://[::1]:3000/x')).toBe(true);
    expect(hostAllowed(policy, 'http://api.example.com.evil/x')).toBe(false);
    expect(hostAllowed(policy, 'not a url')).toBe(false);
    expect(hostAllowed({ ...CLOSED_POLICY, hosts: ['*'] }, 'https://anything.example')).toBe(true);
  });

  it('matches variables by name and prefix', () => {
    expect(['GITHUB_TOKEN', 'TEAM_KEY', 'TEAM_'].every((n) => envAllowed(policy, n))).toBe(true);
    expect(['OPENAI_API_KEY', 'PERFLOW_ENCRYPTION_KEYS', 'MONGODB_URI', 'GITHUB_TOKEN_2'].some((n) => envAllowed(policy, n))).toBe(false);
  });

  it('allows nothing by default: every command, host and variable an agent file asks for is named with how to allow it', () => {
    const agent = {
      llm: { interface: 'openai/v1/chat/completions', base_url: 'https://evil.example/v1' },
      mcp_servers: [
        { name: 'files', command: 'npx', args: ['-y', 'server'] },
        { name: 'remote', url: 'https://evil.example/mcp', headers: { x: '${PERFLOW_ENCRYPTION_KEYS} ${MONGODB_URI}' } },
      ],
    };
    expect(policyProblems(policySubjectOf(agent), CLOSED_POLICY)).toEqual([
      'llm.base_url: host "evil.example" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=evil.example)',
      'MCP server "files": command "npx" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_MCP_COMMANDS=npx)',
      'MCP server "remote": host "evil.example" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=evil.example)',
      'MCP server "remote": headers.x references ${PERFLOW_ENCRYPTION_KEYS}, which this worker does not let agent files read; allow it in the worker policy (PERFLOW_ALLOW_ENV=PERFLOW_ENCRYPTION_KEYS)',
      'MCP server "remote": headers.x references ${MONGODB_URI}, which this worker does not let agent files read; allow it in the worker policy (PERFLOW_ALLOW_ENV=MONGODB_URI)',
    ]);
  });

  it("sends the provider's own key only to the operator's endpoint or an allowed host", () => {
    const model = (base_url?: string) => policySubjectOf({ llm: { interface: 'openai/v1/chat/completions', ...(base_url ? { base_url } : {}) } });
    expect(policyProblems(model(), CLOSED_POLICY)).toEqual([]);
    expect(policyProblems(model('https://gateway.corp/v1'), CLOSED_POLICY, ['https://gateway.corp/v1'])).toEqual([]);
    expect(policyProblems(model('https://other.corp/v1'), CLOSED_POLICY, ['https://gateway.corp/v1'])).toHaveLength(1);
    expect(policyProblems(model('https://api.example.com/v1'), policy)).toEqual([]);
  });

  it('sends ANTHROPIC_API_KEY to ANTHROPIC_BASE_URL without PERFLOW_ALLOW_*, and nowhere else', () => {
    const operator = operatorEndpointsFromEnv({ ANTHROPIC_BASE_URL: 'https://claude-gateway.corp' });
    expect(operator).toEqual(['https://claude-gateway.corp']);
    const claude = (base_url?: string) => policySubjectOf({ llm: { interface: 'anthropic/v1/messages', api_key_env: 'ANTHROPIC_API_KEY', ...(base_url ? { base_url } : {}) } });
    expect(policyProblems(claude(), CLOSED_POLICY, operator)).toEqual([]);
    expect(policyProblems(claude('https://claude-gateway.corp'), CLOSED_POLICY, operator)).toEqual([]);
    expect(policyProblems(claude('https://evil.example'), CLOSED_POLICY, operator)).toEqual([
      'llm.base_url: host "evil.example" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=evil.example)',
    ]);
    expect(genAiSystem('anthropic/v1/messages')).toBe('anthropic');
  });

  it("lets a Gemini agent file name GOOGLE_API_KEY, the variable Google's SDK also reads, as it may GEMINI_API_KEY; not another variable", () => {
    const gemini = (api_key_env: string) => policySubjectOf({ llm: { interface: 'google/generate_content', model: 'gemini-2.5-flash', api_key_env } });
    expect(policyProblems(gemini('GOOGLE_API_KEY'), CLOSED_POLICY)).toEqual([]);
    expect(policyProblems(gemini('GEMINI_API_KEY'), CLOSED_POLICY)).toEqual([]);
    expect(policyProblems(gemini('AWS_SECRET_ACCESS_KEY'), CLOSED_POLICY)).toHaveLength(1);
  });

  it("takes the operator's endpoints and the providers' key variables from the interface specs, an added one's too", () => {
    addModelInterfaces([{ name: 'acme/chat', apiKeyVariable: 'ACME_KEY', endpointVariable: 'ACME_ENDPOINT', genAiProvider: 'acme' }]);
    const env = { OPENAI_BASE_URL: 'https://gateway.corp/v1', PERFLOW_BEDROCK_ENDPOINT: 'https://bedrock.corp', ACME_ENDPOINT: 'https://acme.corp/api' };
    expect(operatorEndpointsFromEnv(env)).toEqual(['https://gateway.corp/v1', 'https://bedrock.corp', 'https://acme.corp/api']);
    const acme = (base_url: string) => policySubjectOf({ llm: { interface: 'acme/chat', base_url, api_key_env: 'ACME_KEY' } });
    // The provider's own key may go to its operator's endpoint; elsewhere the host is refused.
    expect(policyProblems(acme('https://acme.corp/api/v2'), CLOSED_POLICY, operatorEndpointsFromEnv(env))).toEqual([]);
    expect(policyProblems(acme('https://evil.example/api'), CLOSED_POLICY, operatorEndpointsFromEnv(env))).toEqual([
      'llm.base_url: host "evil.example" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=evil.example)',
    ]);
    expect(genAiSystem('acme/chat')).toBe('acme');
    expect(genAiSystem('bedrock/converse/claude')).toBe('aws.bedrock');
  });

  it("puts every problem in one refusal, and the client's environment declares a policy only with PERFLOW_ALLOW_*", () => {
    expect(policyRefusal([])).toBeUndefined();
    expect(policyRefusal(['a'])).toBe('a');
    expect(policyRefusal(['a', 'b', 'c'])).toBe('a (and 2 more: b; c)');
    expect(clientConfigFromEnv({}).workerPolicy).toBeUndefined();
    expect(clientConfigFromEnv({ PERFLOW_ALLOW_HOSTS: 'api.example.com', OPENAI_BASE_URL: 'https://gateway.corp/v1' }).workerPolicy).toEqual({
      policy: { mcpCommands: [], hosts: ['api.example.com'], envVars: [] },
      endpoints: ['https://gateway.corp/v1'],
    });
  });

  it('requires a tenant on every run where PERFLOW_REQUIRE_TENANT says so: the worker refuses a run without one before memory is touched', async () => {
    expect(workerPolicyFromEnv({ PERFLOW_REQUIRE_TENANT: '1' }).requireTenant).toBe(true);
    expect(workerPolicyFromEnv({ PERFLOW_REQUIRE_TENANT: 'no' }).requireTenant).toBeUndefined();
    expect(() => workerPolicyFromEnv({ PERFLOW_REQUIRE_TENANT: 'sometimes' })).toThrow('PERFLOW_REQUIRE_TENANT="sometimes" is not yes or no: use 1 or 0');
    expect(describePolicy({ ...CLOSED_POLICY, requireTenant: true })).toMatch(/; every run needs a tenant$/);
    // No store: a refused run reaches none.
    const activities = createMemoryActivities({} as MemoryStore, { requireTenant: true });
    const ids = { memory_id: 'm', parent_interaction_id: 'p', executor_agent_memory_id: 'e', executor_agent_parent_interaction_id: 'x' };
    await expect(activities.startRun({ ids, question: 'q', app_type: 't', resume: false, message_history_limit: 10 })).rejects.toMatchObject({
      type: 'Policy.Refused',
      nonRetryable: true,
      message: 'this deployment requires a tenant on every run (PERFLOW_REQUIRE_TENANT): give tenant_id (--param tenant_id=ID)',
    });
  });

  it('reads PERFLOW_ALLOW_* and says what it allows on the start line', () => {
    const p = workerPolicyFromEnv({ PERFLOW_ALLOW_MCP_COMMANDS: 'npx, uvx', PERFLOW_ALLOW_HOSTS: 'api.example.com', PERFLOW_ALLOW_ENV: '' });
    expect(p).toEqual({ mcpCommands: ['npx', 'uvx'], hosts: ['api.example.com'], envVars: [] });
    expect(describePolicy(p)).toBe('agent files may start MCP commands: npx, uvx; reach hosts: api.example.com; read variables: none');
    expect(workerPolicyFromEnv({})).toEqual(CLOSED_POLICY);
  });
});

it("lets an agent file name the provider's own key (api_key_env OPENAI_API_KEY, as Axon Ivy files do): where it goes is the endpoint rule", () => {
  const named = (base_url?: string) => policySubjectOf({ llm: { interface: 'openai/v1/chat/completions', api_key_env: 'OPENAI_API_KEY', ...(base_url ? { base_url } : {}) } });
  expect(policyProblems(named(), CLOSED_POLICY)).toEqual([]);
  expect(policyProblems(named('https://evil.example/v1'), CLOSED_POLICY)).toEqual(['llm.base_url: host "evil.example" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=evil.example)']);
});
