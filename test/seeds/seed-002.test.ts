/**
 * Seed 002 (MongoDB, DeepSeek-R1) read as a user of it would: its register-agent bodies are
 * accepted as agent files, and its DeepSeek-R1 prompt works as executor_system_prompt.
 */
import { parseAgentDefinition } from '../../core/agent';
import { renderTemplate } from '../../core/template';
import { deepSeekSystemPrompt, TOOLS_PLACEHOLDER } from '../../activities/llm/deepseek-r1';
import { seedDocument } from './documents';

const seed002 = () => seedDocument('002_be5fb34948a69957.txt');

/** Every JSON body of `POST _plugins/_ml/agents/_register` in a seed text that parses as JSON. */
function registerBodies(text: string): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  for (const m of text.matchAll(/POST \/?_plugins\/_ml\/agents\/_register\n/g)) {
    let depth = 0;
    let end = m.index + m[0].length;
    for (; end < text.length; end++) {
      if (text[end] === '{') depth++;
      if (text[end] === '}' && --depth === 0) break;
    }
    try {
      bodies.push(JSON.parse(text.slice(m.index + m[0].length, end + 1)) as Record<string, unknown>);
    } catch {
      // the seed shows some bodies with a trailing comma: not JSON
    }
  }
  return bodies;
}

describe("seed 002's register-agent bodies", () => {
  it('are accepted, their ListIndexTool, SearchIndexTool and IndexMappingTool becoming the MongoDB tools that play those roles', () => {
    const bodies = registerBodies(seed002());
    const claude = bodies.find((b) => (b.parameters as { _llm_interface?: string })._llm_interface === 'bedrock/converse/claude');
    expect(claude).toBeDefined();
    const agent = parseAgentDefinition(claude);
    expect(agent.llm).toMatchObject({ interface: 'bedrock/converse/claude', model: 'your_llm_model_id' });
    expect(agent.tools.map((t) => t.type)).toEqual(['ListCollectionsTool', 'SearchCollectionTool', 'CollectionSchemaTool']);
    // The model sees them under the seed's names, which custom prompts use.
    expect(agent.tools.map((t) => t.name)).toEqual(['ListIndexTool', 'SearchIndexTool', 'IndexMappingTool']);
    // The generic body, with its placeholder interface filled in.
    const generic = bodies.find((b) => (b.parameters as { _llm_interface?: string })._llm_interface === 'YOUR_LLM_INTERFACE')!;
    const filled = parseAgentDefinition({ ...generic, parameters: { _llm_interface: 'openai/v1/chat/completions' } });
    expect(filled.tools.map((t) => t.type)).toEqual(['ListCollectionsTool', 'SearchCollectionTool', 'CollectionSchemaTool']);
    expect(filled.app_type).toBe('os_chat');
  });
});

describe("seed 002's DeepSeek-R1 prompt, passed as executor_system_prompt", () => {
  it('gets the tool list at ${parameters._tools.toString()} and the protocol once', () => {
    const line = seed002().split('\n').find((l) => l.startsWith('"You are a helpful assistant. You can ask Human to use tools'))!;
    const prompt = JSON.parse(line) as string;
    expect(prompt).toContain(TOOLS_PLACEHOLDER);
    // The workflow's rendering leaves the placeholder for the adapter.
    const rendered = renderTemplate(prompt, { persona: 'x' });
    expect(rendered).toContain(TOOLS_PLACEHOLDER);
    const tool = { name: 'SearchCollectionTool', description: 'Queries a collection.', input_schema: { type: 'object' } };
    const system = deepSeekSystemPrompt(rendered, [tool]);
    expect(system).not.toContain(TOOLS_PLACEHOLDER);
    expect(system).toContain(`[${JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.input_schema })}]`);
    expect(system.split('please also return "stop_reason"').length - 1).toBe(1);
  });
});
