/** Every agent file under examples/ validates, so the README's examples stay usable. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentDefinition, resolveParameters } from '../../core/agent';

const dir = join(__dirname, '..', '..', 'examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

it('has an example per LLM interface', () => {
  const interfaces = new Set(files.map((f) => parseAgentDefinition(JSON.parse(readFileSync(join(dir, f), 'utf8'))).llm.interface));
  expect([...interfaces].sort()).toEqual(['anthropic/v1/messages', 'bedrock/converse/claude', 'bedrock/converse/deepseek_r1', 'google/generate_content', 'openai/v1/chat/completions', 'openai/v1/responses', 'scripted']);
});

it('has an example per agent type', () => {
  const types = new Set(files.map((f) => parseAgentDefinition(JSON.parse(readFileSync(join(dir, f), 'utf8'))).type));
  expect([...types].sort()).toEqual(['plan_and_execute', 'plan_execute_and_reflect', 'step_by_step', 'todo_list']);
});

it.each(files)('%s validates', (file) => {
  const agent = parseAgentDefinition(JSON.parse(readFileSync(join(dir, file), 'utf8')));
  expect(resolveParameters(agent).max_steps).toBeGreaterThan(0);
});
