/** `npm run demo` runs on the first provider whose key it finds, and says which and why. */
import { join } from 'node:path';
import { demoModel } from '../../../scripts/demo-model';

const examples = join(__dirname, '..', '..', '..', 'examples');

it.each([
  [{ ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' }, 'anthropic/v1/messages', 'claude-sonnet-4-6', 'ANTHROPIC_API_KEY'],
  [{ GOOGLE_API_KEY: 'k', OPENAI_API_KEY: 'k' }, 'google/generate_content', 'gemini-2.5-flash', 'GOOGLE_API_KEY'],
  [{ GEMINI_API_KEY: 'k', GEMINI_MODEL: 'gemini-2.5-pro' }, 'google/generate_content', 'gemini-2.5-pro', 'GEMINI_API_KEY'],
  [{ OPENAI_API_KEY: 'k', OPENAI_MODEL: 'gpt-4.1' }, 'openai/v1/chat/completions', 'gpt-4.1', 'OPENAI_API_KEY'],
  [{ BEDROCK_MODEL_ID: 'us.anthropic.claude-sonnet-4', AWS_PROFILE: 'dev' }, 'bedrock/converse/claude', 'us.anthropic.claude-sonnet-4', 'BEDROCK_MODEL_ID'],
])('with %j runs %s %s and names the variable that chose it', (env, iface, model, key) => {
  const chosen = demoModel(env, examples);
  expect([chosen.agent.llm.interface, chosen.agent.llm.model, chosen.scripted]).toEqual([iface, model, false]);
  expect(chosen.said).toBe(`model: ${iface} ${model} (${key} is set; examples/${chosen.said.match(/examples\/(\S+)\)/)?.[1]})`);
  // The agent is the flights analyst whichever model runs it.
  expect(chosen.agent.tools.map((t) => t.type)).toEqual(['ListCollectionsTool', 'CollectionSchemaTool', 'SearchCollectionTool']);
});

it('passes OPENAI_BASE_URL to the agent file, and takes Bedrock only with AWS credentials', () => {
  expect(demoModel({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, examples).agent.llm.base_url).toBe('http://127.0.0.1:11434/v1');
  expect(demoModel({ BEDROCK_MODEL_ID: 'm' }, examples).scripted).toBe(true);
});

it('runs the scripted model when no key is set, and says which keys it looked for', () => {
  const chosen = demoModel({}, examples);
  expect(chosen.scripted).toBe(true);
  expect(chosen.agent.llm.interface).toBe('scripted');
  expect(chosen.said).toContain('none of ANTHROPIC_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY, OPENAI_API_KEY, BEDROCK_MODEL_ID is set');
});
