/**
 * The prompt texts perflow keeps verbatim, compared whole against the seed documents: an edit
 * anywhere in a seed text fails here. Seed 000 shows each text as a fenced block under its
 * name; seed 004 as Java text blocks (incidental indentation and trailing spaces stripped, as
 * Java does) and DataMapping field explanations; seed 002 the DeepSeek-R1 prompt as a JSON string.
 */
import * as prompts from '../../core/prompts';
import * as agentTypes from '../../core/agent-types';
import { deepSeekSystemPrompt, TOOLS_PLACEHOLDER } from '../../activities/llm/deepseek-r1';
import { seedDocument as seed } from './documents';

/** The fenced block under `### NAME` (or `#### NAME`) of seed 000. */
function fencedBlock(text: string, name: string): string {
  const m = new RegExp(`^#{3,4} ${name}\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\`$`, 'm').exec(text);
  if (!m) throw new Error(`seed 000 has no block ${name}`);
  return m[1];
}

/** The value of a Java text block `String NAME = """…"""`, as Java reads it. */
function javaTextBlock(text: string, name: string): string {
  const m = new RegExp(`String ${name} = """\\n([\\s\\S]*?)"""`).exec(text);
  if (!m) throw new Error(`seed 004 has no text block ${name}`);
  const lines = m[1].split('\n'); // the last one is the indentation of the closing delimiter
  const indent = Math.min(...lines.filter((l, i) => l.trim() !== '' || i === lines.length - 1).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent).replace(/[ \t]+$/, '')).join('\n');
}

/** The `new FieldExplanation("name", "explanation")` list that follows `marker` in seed 004. */
function fieldExplanations(text: string, marker: string): [string, string][] {
  const start = text.indexOf(marker) + marker.length;
  const block = text.slice(start, text.indexOf('))', start));
  return [...block.matchAll(/new FieldExplanation\("([^"]+)", "([^"]+)"\)/g)].map((m) => [m[1], m[2]]);
}

describe('seed 000 (plan-execute-reflect) texts', () => {
  const text = seed('000_f71c85b1e4d96e43.txt');
  it.each([
    'PLANNER_RESPONSIBILITY',
    'EXECUTOR_RESPONSIBILITY',
    'PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT',
    'FINAL_RESULT_RESPONSE_INSTRUCTIONS',
    'DEFAULT_PLANNER_PROMPT',
    'DEFAULT_REFLECT_PROMPT',
    'DEFAULT_PLANNER_PROMPT_TEMPLATE',
    'DEFAULT_REFLECT_PROMPT_TEMPLATE',
    'DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE',
  ])('%s is the seed text, whole', (name) => {
    expect((prompts as Record<string, unknown>)[name]).toBe(fencedBlock(text, name));
  });

  it('the default system prompts are built from them as the seed says', () => {
    expect(prompts.DEFAULT_PLANNER_SYSTEM_PROMPT).toContain(prompts.PLANNER_RESPONSIBILITY);
    expect(prompts.DEFAULT_EXECUTOR_SYSTEM_PROMPT).toBe(prompts.EXECUTOR_RESPONSIBILITY);
  });
});

describe('seed 004 (Axon Ivy) texts', () => {
  const text = seed('004_f60470be8f4bdae3.txt');
  it.each(['EXECUTION_PROMPT_TEMPLATE', 'TODO_PLANNING_TEMPLATE', 'GOAL_ASSESSMENT_TEMPLATE'])('%s is the seed text, whole', (name) => {
    expect((agentTypes as Record<string, unknown>)[name]).toBe(javaTextBlock(text, name));
  });

  it("the DataMapping field explanations of AiStep and AiTodo are the seed's", () => {
    expect(agentTypes.AI_STEP_FIELDS).toEqual(fieldExplanations(text, '.withObject(new AiStep())'));
    expect(agentTypes.AI_TODO_FIELDS).toEqual(fieldExplanations(text, '.withObject(new AiTodo())'));
  });
});

describe('seed 002 (DeepSeek-R1) tool protocol', () => {
  it("is the seed's prompt after its first sentence, with the tools in place and its example's missing quote added", () => {
    const line = seed('002_be5fb34948a69957.txt').split('\n').find((l) => l.startsWith('"You are a helpful assistant. You can ask Human'))!;
    const tool = { name: 'CalculatorTool', description: 'Exact arithmetic.', input_schema: { type: 'object' } };
    const described = JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.input_schema });
    // The one deliberate difference (docs/llm-interfaces.md): the seed's tool-call example
    // lacks the opening quote of "tool_name"; the model is shown valid JSON.
    const expected = (JSON.parse(line) as string)
      .replace('You are a helpful assistant. ', '')
      .replace(TOOLS_PLACEHOLDER, described)
      .replace(',tool_name":', ',"tool_name":');
    expect(deepSeekSystemPrompt('', [tool])).toBe(expected);
  });
});
