/**
 * Remote A2A agents as tools, without Temporal: the agent file's checks, the card as the model
 * reads it, the derived message IDs, and calls against a remote agent served by the SDK's own
 * server (test/support/a2a-remote.ts): its answer, its failure, its question, a retried call
 * re-attaching to its task, and the worker policy refusing a host before any request.
 */
import { a2aToolDescription, a2aToolName, a2aToolProblems, A2A_CARD_LIMITS } from '../../../core/a2a-tool';
import { parseAgentDefinition } from '../../../core/agent';
import { hostAllowed, policyProblems, policySubjectOf, type WorkerPolicy } from '../../../core/worker-policy';
import { a2aContextId, a2aMessageId, agentCardUrl, callA2AAgent, readAgentCard, type A2ACall, type A2AHeartbeat } from '../../../activities/tools/a2a';
import { startA2ARemote, type A2ARemote } from '../../support/a2a-remote';


const POLICY: WorkerPolicy = { mcpCommands: [], hosts: ['127.0.0.1'], envVars: ['PERFLOW_TEST_*'] };
const access = (policy = POLICY, env: Record<string, string> = {}) => ({
  check: (url: string) => {
    if (!hostAllowed(policy, url)) throw new Error(`host of ${url} is not allowed`);
  },
  secret: (name: string) => env[name],
});
const place = { workflow_id: 'run-1/step-1', run_id: 'r-1', step: 0, call: 0 };

describe('the agent file', () => {
  const agent = (parameters: Record<string, unknown>) => ({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, tools: [{ type: 'A2AAgentTool', name: 'booker', parameters }] });

  it('accepts an http(s) url and a variable name, and refuses anything else in one line naming the field', () => {
    expect(parseAgentDefinition(agent({ url: 'https://agents.example.com/flights', token_env: 'FLIGHTS_TOKEN' })).tools[0].type).toBe('A2AAgentTool');
    expect(() => parseAgentDefinition(agent({ url: 'file:///etc/passwd' }))).toThrow(/tools\[0\]\.parameters\.url: expected the http\(s\) URL/);
    expect(() => parseAgentDefinition(agent({}))).toThrow(/tools\[0\]\.parameters\.url/);
    expect(() => parseAgentDefinition(agent({ url: 'https://a.example', token_env: 'Bearer abc' }))).toThrow(/tools\[0\]\.parameters\.token_env: expected the name of a worker environment variable/);
    expect(a2aToolProblems({ url: 'http://x.example', timeout_seconds: -1 })).toEqual([{ path: 'parameters.timeout_seconds', message: 'expected a positive number of seconds' }]);
  });

  it('puts the remote agent’s host and token variable under the worker policy', () => {
    const parsed = parseAgentDefinition(agent({ url: 'https://agents.example.com/flights', token_env: 'FLIGHTS_TOKEN' }));
    expect(policyProblems(policySubjectOf(parsed), POLICY)).toEqual([
      'remote agent "booker": host "agents.example.com" is not allowed on this worker; allow it in the worker policy (PERFLOW_ALLOW_HOSTS=agents.example.com)',
      'remote agent "booker": token_env FLIGHTS_TOKEN is not a variable this worker lets agent files read; allow it in the worker policy (PERFLOW_ALLOW_ENV=FLIGHTS_TOKEN)',
    ]);
    expect(policyProblems(policySubjectOf(parsed), { mcpCommands: [], hosts: ['agents.example.com'], envVars: ['FLIGHTS_TOKEN'] })).toEqual([]);
  });
});

describe('the card as the model reads it', () => {
  const card = { name: 'Flight Booker', description: 'Books flights.', skills: [{ name: 'Book a flight', description: 'Finds and books one.', examples: ['Beijing to Seattle'] }] };

  it('names the agent, says what it does and lists its skills with examples', () => {
    expect(a2aToolDescription('https://x.example', card)).toBe(
      'The remote agent "Flight Booker" (A2A): Books flights.\nIts skills:\n- Book a flight: Finds and books one. (e.g. "Beijing to Seattle")\nSend it a message; it answers, or asks for what it needs.',
    );
    expect(a2aToolName(undefined, card)).toBe('Flight_Booker');
    expect(a2aToolName('booker', card)).toBe('booker');
  });

  it('prefers the entry’s description, names the URL without a card, and bounds a huge card', () => {
    expect(a2aToolDescription('https://x.example', card, 'Books flights for staff.')).toBe('Books flights for staff.');
    expect(a2aToolDescription('https://x.example/a', undefined)).toBe('The remote agent at https://x.example/a (A2A): send it a message, it answers.');
    const huge = a2aToolDescription('u', { name: 'n', description: 'd'.repeat(10_000), skills: Array.from({ length: 100 }, (_, i) => ({ name: `s${i}` })) });
    expect(huge.length).toBeLessThan(A2A_CARD_LIMITS.description + 40);
    expect(huge).toMatch(/… \[cut: \d+ characters\]$/);
  });

  it('reads the card under the base URL, or at the URL of a .json file', () => {
    expect(agentCardUrl('https://x.example/agents/a/')).toBe('https://x.example/agents/a/.well-known/agent-card.json');
    expect(agentCardUrl('https://x.example/cards/a.json')).toBe('https://x.example/cards/a.json');
  });
});

describe('message IDs', () => {
  it('are the same for every attempt of a call, and differ between calls, turns, steps and runs', () => {
    expect(a2aMessageId(place, 1)).toBe(a2aMessageId({ ...place }, 1));
    expect(a2aMessageId(place, 1)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const others = [a2aMessageId(place, 2), a2aMessageId({ ...place, call: 1 }, 1), a2aMessageId({ ...place, step: 1 }, 1), a2aMessageId({ ...place, run_id: 'r-2' }, 1), a2aMessageId({ ...place, workflow_id: 'run-2/step-1' }, 1)];
    expect(new Set([a2aMessageId(place, 1), ...others]).size).toBe(6);
    expect(a2aContextId(place)).not.toBe(a2aMessageId(place, 1));
  });
});

describe('calls', () => {
  let remote: A2ARemote;
  beforeEach(async () => {
    remote = await startA2ARemote();
  });
  afterEach(() => remote.close());
  const call = (message: string, extra: Partial<A2ACall> = {}): A2ACall => ({ name: 'booker', parameters: { url: remote.url }, message, place, remember: () => undefined, ...extra });

  it('reads the card through the policy, with the token from the worker’s variable', async () => {
    const card = await readAgentCard('booker', { url: remote.url, token_env: 'PERFLOW_TEST_A2A' }, access(POLICY, { PERFLOW_TEST_A2A: 'tok-1' }));
    expect(card.name).toBe('Flight Booker');
    expect(remote.authorizations).toEqual(['Bearer tok-1']);
  });

  it('answers with the text and data parts of the remote task', async () => {
    const out = await callA2AAgent(call('hello'), access());
    expect(out).toEqual({ content: 'echo: hello\n{"flights":3}', is_error: false });
    expect(remote.tasksCreated).toHaveLength(1);
  });

  it('gives a remote failure as an error observation naming the agent', async () => {
    const out = await callA2AAgent(call('fail please'), access());
    expect(out.is_error).toBe(true);
    expect(out.content).toMatch(/^Error: remote agent "booker" failed the task \(.+\): the flight database is down$/);
  });

  it('refuses a host the policy does not allow before any request', async () => {
    await expect(callA2AAgent(call('hello'), access({ ...POLICY, hosts: ['agents.example.com'] }))).rejects.toThrow(/not allowed/);
    expect(remote.requests).toEqual([]);
  });

  it('refuses the endpoint a card points to on a host the policy does not allow: the token goes nowhere else', async () => {
    const elsewhere = await startA2ARemote({ endpointHost: 'localhost' });
    try {
      const out = callA2AAgent({ ...call('hello'), parameters: { url: elsewhere.url, token_env: 'PERFLOW_TEST_A2A' } }, access(POLICY, { PERFLOW_TEST_A2A: 'tok-2' }));
      await expect(out).rejects.toThrow(/localhost.*not allowed/);
      // The card was read (its host is allowed); nothing was sent to the endpoint it named.
      expect(elsewhere.requests).toEqual([`GET ${new URL(elsewhere.url).pathname}/.well-known/agent-card.json`]);
    } finally {
      await elsewhere.close();
    }
  });

  it('re-attaches a retried call to the task its first attempt created, remembered or not', async () => {
    let remembered: A2AHeartbeat | undefined;
    const first = callA2AAgent(call('hold on', { remember: (d) => (remembered = d) }), access());
    const held = await remote.held();
    // The worker died here; a second attempt with what the first remembered, and one with nothing remembered.
    await new Promise((r) => setTimeout(r, 300));
    expect(remembered).toEqual({ a2a_task_id: held });
    const again = callA2AAgent(call('hold on', { remembered }), access());
    const blind = callA2AAgent(call('hold on'), access());
    remote.release();
    const outs = await Promise.all([first, again, blind]);
    expect(outs.map((o) => o.content)).toEqual(['echo: hold on\n{"flights":3}', 'echo: hold on\n{"flights":3}', 'echo: hold on\n{"flights":3}']);
    expect(remote.tasksCreated).toEqual([held]);
  });

  it('returns the remote agent’s question, and sends the answer to the same task', async () => {
    const asked = await callA2AAgent(call('ask me'), access());
    expect(asked.input_required).toMatchObject({ question: 'Which city should the flight go to?', turn: 1 });
    const { task_id, context_id, question_id } = asked.input_required!;
    const answered = await callA2AAgent(call('Seattle', { reply: { task_id, context_id, turn: 2, question_id } }), access());
    expect(answered).toEqual({ content: 'Booked the flight to Seattle.', is_error: false });
    expect(remote.tasksCreated).toEqual([task_id]);
  });
});
