import { buildToolsPrompt, formatCompletedSteps, formatSteps, renderTemplate, templateParams } from '../../../core/template';
import { DEFAULT_REFLECT_PROMPT_TEMPLATE } from '../../../core/prompts';

describe('renderTemplate', () => {
  it('replaces every occurrence of a known parameter', () => {
    expect(renderTemplate('${parameters.a} and ${parameters.a}, ${parameters.b_c}', { a: 'x', b_c: 'y' })).toBe(
      'x and x, y',
    );
  });

  it('leaves unknown and undefined parameters as they are', () => {
    expect(renderTemplate('${parameters.known} ${parameters.unknown} ${parameters.undef}', { known: 'k', undef: undefined })).toBe(
      'k ${parameters.unknown} ${parameters.undef}',
    );
  });

  it('does not expand placeholders that appear inside substituted values', () => {
    expect(renderTemplate('${parameters.a}', { a: 'see ${parameters.b}', b: 'B' })).toBe('see ${parameters.b}');
  });

  it('inserts values with dollar signs literally', () => {
    expect(renderTemplate('cost: ${parameters.a}', { a: "$& $1 $$ $'" })).toBe("cost: $& $1 $$ $'");
  });

  it('does not treat inherited object properties as parameters', () => {
    expect(renderTemplate('${parameters.constructor}', {})).toBe('${parameters.constructor}');
  });

  it('fills the seed reflect template completely', () => {
    const out = renderTemplate(DEFAULT_REFLECT_PROMPT_TEMPLATE, {
      tools_prompt: 'T',
      planner_prompt: 'P',
      user_prompt: 'U',
      steps: formatSteps(['a']),
      completed_steps: formatCompletedSteps([{ step: 'a', result: 'r' }]),
      reflect_prompt: 'R',
    });
    expect(out).not.toContain('${parameters.');
    expect(out).toContain('Original plan:\n["a"]\n');
  });
});

describe('formatCompletedSteps', () => {
  it('tags each step and its result with the step number', () => {
    expect(
      formatCompletedSteps([
        { step: 'List indices', result: 'a, b' },
        { step: 'Count docs', result: '42' },
      ]),
    ).toBe(
      '<step-1>\nList indices\n</step-1>\n<step-1-result>\na, b\n</step-1-result>\n' +
        '<step-2>\nCount docs\n</step-2>\n<step-2-result>\n42\n</step-2-result>',
    );
  });

  it('gives an empty string for no steps', () => {
    expect(formatCompletedSteps([])).toBe('');
  });
});

describe('formatSteps', () => {
  it('quotes each step as JSON and separates them with commas', () => {
    expect(formatSteps(['one', 'say "two"'])).toBe('"one", "say \\"two\\""');
  });
});

describe('buildToolsPrompt', () => {
  it('lists each tool as a name and description line under a heading', () => {
    const text = buildToolsPrompt([
      { name: 'ListIndexTool', description: 'Lists\nindices' },
      { name: 'SearchIndexTool', description: 'Searches an index' },
    ]);
    expect(text.split('\n')[0]).toMatch(/tools listed below/);
    expect(text).toContain('\n- ListIndexTool: Lists indices\n- SearchIndexTool: Searches an index');
  });

  it('says that no tools are available when there are none', () => {
    expect(buildToolsPrompt([])).toMatch(/^No tools are available/);
  });
});

describe('templateParams', () => {
  it('fills ${parameters.question} from the run\'s question wherever a parameter value or template uses it', () => {
    const params = templateParams({ planner_prompt: 'Plan for: ${parameters.question}', executor_system_prompt: 'Keep ${parameters.question} in mind.' }, 'How many flights?', []);
    expect(params.question).toBe('How many flights?');
    expect(params.planner_prompt).toBe('Plan for: How many flights?');
    expect(renderTemplate(params.executor_system_prompt, params)).toBe('Keep How many flights? in mind.');
    expect(renderTemplate('{"prompt": "${parameters.question}"}', params)).toBe('{"prompt": "How many flights?"}');
  });

  it('takes the run\'s question over a question parameter, and never fills placeholders inside it', () => {
    const params = templateParams({ question: 'stale', other: 'x' }, 'Is ${parameters.other} set?', []);
    expect(params.question).toBe('Is ${parameters.other} set?');
  });
});
