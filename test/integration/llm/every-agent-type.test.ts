/**
 * The same agent on any interface: each agent type's scripted run is replayed over the wire. Its
 * model answers, in the order the scripted run asked for them, are given by a local server that
 * speaks Anthropic's Messages API, Gemini's or OpenAI's Responses API to the official SDK; the
 * agent file changes only its `llm` block, and the run answers as it does on the scripted model.
 */
import { randomUUID } from 'node:crypto';
import type { AgentType } from '../../../core/agent';
import { scriptedChat } from '../../../activities/llm/scripted';
import type { RawChatResponse } from '../../../core/llm-types';
import { runInput, startAgentRun, useHarness } from '../../support/harness';
import { AGENT_TYPES, expectedResponse, typedAgent } from '../../support/typed-agents';
import { streamedAnthropicMessage, useWireServer, type WireStream } from '../../support/wire-server';
import { streamedGeminiResponse } from '../../support/gemini-wire';
import { streamedResponse } from '../../support/responses-wire';

jest.setTimeout(180_000);

const harness = useHarness();

/** Each interface: its model block, and an answer as its server streams it. */
const INTERFACES: { name: string; llm: (url: string) => Record<string, unknown>; reply: (a: RawChatResponse) => WireStream; env: Record<string, string | undefined> }[] = [
  {
    name: 'anthropic/v1/messages',
    llm: (url) => ({ interface: 'anthropic/v1/messages', model: 'claude-sonnet-4-6', base_url: url }),
    reply: (a) => streamedAnthropicMessage({ text: a.content ? [a.content] : [], toolUses: a.tool_calls.map((c) => ({ id: `toolu_${randomUUID().slice(0, 8)}`, name: c.name, inputParts: [JSON.stringify(c.input)] })) }),
    env: { ANTHROPIC_API_KEY: 'sk-ant-every-type', ANTHROPIC_BASE_URL: undefined },
  },
  {
    name: 'google/generate_content',
    llm: (url) => ({ interface: 'google/generate_content', model: 'gemini-2.5-flash', base_url: url }),
    reply: (a) => streamedGeminiResponse({ text: a.content ? [a.content] : [], calls: a.tool_calls.map((c) => ({ name: c.name, args: c.input })) }),
    env: { GEMINI_API_KEY: 'gm-every-type', GOOGLE_API_KEY: undefined, GEMINI_BASE_URL: undefined },
  },
  {
    name: 'openai/v1/responses',
    llm: (url) => ({ interface: 'openai/v1/responses', model: 'gpt-5', base_url: `${url}/v1` }),
    reply: (a) => streamedResponse({ text: a.content ? [a.content] : [], functionCalls: a.tool_calls.map((c) => ({ callId: `call_${randomUUID().slice(0, 8)}`, name: c.name, argumentParts: [JSON.stringify(c.input)] })) }),
    env: { OPENAI_API_KEY: 'sk-every-type', OPENAI_BASE_URL: undefined },
  },
];
const servers = INTERFACES.map((i) => useWireServer(() => i.env));

describe.each(AGENT_TYPES)('%s', (type: AgentType) => {
  it('runs on Anthropic, Gemini and the Responses API as on the scripted model, its agent file changing only its llm block', async () => {
    const agent = typedAgent(type, 2);
    const script = (agent.llm as { script: Parameters<typeof scriptedChat>[0] }).script;
    harness().recorder.splice(0);
    const scripted = await (await startAgentRun(harness(), runInput(agent, `every interface: ${type}`), 'scripted')).result();
    expect(scripted.response).toBe(expectedResponse(type, 2));
    // What the scripted model answered, call by call, in the order it was asked.
    const answers = harness().recorder.map((request) => scriptedChat(script, request));
    for (const [i, iface] of INTERFACES.entries()) {
      const server = servers[i]();
      const before = server.requests.length;
      server.reply(...answers.map(iface.reply));
      const run = await startAgentRun(harness(), runInput({ ...agent, llm: iface.llm(server.url) }, `every interface: ${type}`), 'wire');
      expect([iface.name, (await run.result()).response]).toEqual([iface.name, scripted.response]);
      expect(server.requests.length - before).toBe(answers.length);
    }
  });
});
