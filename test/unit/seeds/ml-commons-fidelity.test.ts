/**
 * perflow against OpenSearch ml-commons' own code and unit tests (MLPlanExecuteAndReflectAgentRunner
 * and MLPlanExecuteAndReflectAgentRunnerTest, AgentUtils, commons-text's StringSubstitutor as
 * ml-commons constructs it): each case is ml-commons' input with its expected output, or the
 * choice perflow documents where it differs (docs/agent-file.md, docs/how-a-run-works.md).
 */
import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { parsePlannerOutput } from '../../../core/planner-output';
import { DEFAULT_EXECUTOR_SYSTEM_PROMPT, DEFAULT_PLANNER_SYSTEM_PROMPT, maxStepsReachedMessage } from '../../../core/prompts';
import { buildToolsPrompt, formatCompletedSteps, formatSteps, renderTemplate, templateParams } from '../../../core/template';

const agent = (parameters: Record<string, unknown> = {}) => parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, parameters });

describe('an empty prompt text is not set: the default is used', () => {
  // ml-commons' testSetupPromptParametersWithDateInjection: with only inject_datetime given, both
  // system prompts are the defaults (the planner's holds the JSON response format). perflow gives
  // the same for an empty or blank value (a request body's empty field, --param system_prompt=).
  it.each(['', '  '])('system_prompt %j: the planner still gets the default with its response format', (blank) => {
    const p = resolveParameters(agent({ inject_datetime: true }), { system_prompt: blank, executor_system_prompt: blank });
    expect(p.system_prompt).toBe(DEFAULT_PLANNER_SYSTEM_PROMPT);
    expect(p.system_prompt).toContain('"steps"');
    expect(p.executor_system_prompt).toBe(DEFAULT_EXECUTOR_SYSTEM_PROMPT);
  });

  it('likewise for every prompt text, template, datetime_format and llm_response_filter', () => {
    const keys = ['planner_prompt', 'reflect_prompt', 'planner_prompt_template', 'reflect_prompt_template', 'planner_with_history_template', 'datetime_format', 'llm_response_filter'] as const;
    const defaults = resolveParameters(agent());
    const blank = resolveParameters(agent(Object.fromEntries(keys.map((k) => [k, '']))));
    for (const k of keys) expect([k, blank[k]]).toEqual([k, defaults[k]]);
    // A value that is not blank is kept as it is.
    expect(resolveParameters(agent({ system_prompt: ' mine ' })).system_prompt).toBe(' mine ');
  });
});

describe("templates as ml-commons' StringSubstitutor reads them (new StringSubstitutor(params, \"${parameters.\", \"}\"))", () => {
  it('$${parameters.name} is the literal ${parameters.name} (DEFAULT_ESCAPE `$`)', () => {
    expect(renderTemplate('say $${parameters.name} to ${parameters.name}', { name: 'Ada' })).toBe('say ${parameters.name} to Ada');
  });

  it('${parameters.mode:-fast} is the default when mode is unset (DEFAULT_VALUE_DELIMITER `:-`), the value when set', () => {
    expect(renderTemplate('run ${parameters.mode:-fast}', {})).toBe('run fast');
    expect(renderTemplate('run ${parameters.mode:-fast}', { mode: 'careful' })).toBe('run careful');
    expect(renderTemplate('run ${parameters.mode:-}!', {})).toBe('run !');
    // Unknown variables without a default stay as they are.
    expect(renderTemplate('run ${parameters.mode}', {})).toBe('run ${parameters.mode}');
  });

  it('in parameter values too: an escape survives the passes that fill nested values, a default fills a missing one', () => {
    const params = templateParams({ planner_prompt: 'keep $${parameters.x}, use ${parameters.depth:-shallow} and ${parameters.question:-no question}' }, 'Q?', []);
    expect(params.planner_prompt).toBe('keep ${parameters.x}, use shallow and Q?');
  });
});

describe("the prompt's lists, rendered as ml-commons renders them (plan_execute_and_reflect runs since the ml-commons-prompt-format patch)", () => {
  it('steps: String.join(", ", steps) (testAddSteps expects "step1, step2")', () => {
    expect(formatSteps(['step1', 'step2'], 'ml-commons')).toBe('step1, step2');
    // Runs recorded before keep perflow's JSON strings.
    expect(formatSteps(['step1', 'step2'])).toBe('"step1", "step2"');
  });

  it('completed steps: "\\n<step-%d>\\n%s\\n</step-%d>\\n" and "\\n<step-%d-result>\\n%s\\n</step-%d-result>\\n", joined by ", "', () => {
    const steps = [
      { step: 'find the index', result: 'index-a' },
      { step: 'count the documents', result: '42' },
    ];
    expect(formatCompletedSteps(steps, 'ml-commons')).toBe(
      '\n<step-1>\nfind the index\n</step-1>\n, \n<step-1-result>\nindex-a\n</step-1-result>\n, \n<step-2>\ncount the documents\n</step-2>\n, \n<step-2-result>\n42\n</step-2-result>\n',
    );
  });

  it("earlier exchanges: each question and response as they are (setupMemoryAndRun's completedSteps.add(question); add(response)), this run's steps from <step-1>", () => {
    const history = [
      { step: 'input-1', result: 'response-1' },
      { step: 'input-2', result: 'response-2' },
    ];
    expect(formatCompletedSteps([...history, { step: 'the step', result: 'done' }], 'ml-commons', 2)).toBe('input-1, response-1, input-2, response-2, \n<step-1>\nthe step\n</step-1>\n, \n<step-1-result>\ndone\n</step-1-result>\n');
  });

  it('tools: "Tool %d - %s: %s\\n\\n" under the heading, then the closing sentence (testAddToolsToPrompt)', () => {
    expect(buildToolsPrompt([{ name: 'tool1', description: 'description1' }], 'ml-commons')).toBe(
      'In this environment, you have access to the tools listed below. Use these tools to create your plan, and do not reference or use any tools not listed here.\nTool 1 - tool1: description1\n\nNo other tools are available. Do not invent tools. Only use tools to create the plan.\n\n',
    );
    expect(buildToolsPrompt([], 'ml-commons')).toBe(
      'In this environment, you have access to the tools listed below. Use these tools to create your plan, and do not reference or use any tools not listed here.\nNo other tools are available. Do not invent tools. Only use tools to create the plan.\n\n',
    );
  });
});

describe('max_steps', () => {
  // ml-commons accepts 0 and ends before the first planner call (handleMaxStepsReached); perflow
  // refuses it before the run starts: a run that may take no step is a mistake in the file.
  it('0 is refused in one line naming the parameter', () => {
    expect(() => resolveParameters(agent(), { max_steps: 0 })).toThrow(/parameters\.max_steps: expected a positive integer/);
    expect(() => agent({ max_steps: 0 })).toThrow(/parameters\.max_steps: expected a positive integer/);
  });

  it("reached: ml-commons' wording (\"Here's a summary of the steps completed so far:\"), then how to go on", () => {
    expect(maxStepsReachedMessage(2, 'both steps done', 'mem-1')).toBe("Max Steps Limit (2) Reached. Here's a summary of the steps completed so far:\n\nboth steps done\n\nTo continue, run the agent again with memory_id mem-1.");
  });
});

describe("planner answers ml-commons' parseLLMOutput fails on, which perflow reads (docs/how-a-run-works.md)", () => {
  it('two fenced JSON blocks: the first block (ml-commons: the span from the first fence to the last is not JSON)', () => {
    expect(parsePlannerOutput('```json\n{"steps": ["a"], "result": ""}\n```\nthen\n```json\n{"steps": ["b"], "result": ""}\n```')).toEqual({ ok: true, steps: ['a'], result: '' });
  });

  it('a blank step is left out (ml-commons sends it to the executor as its question)', () => {
    expect(parsePlannerOutput('{"steps": ["", "b"], "result": ""}')).toEqual({ ok: true, steps: ['b'], result: '' });
  });

  it('a whitespace-only or null result is no result: the steps go on (ml-commons: " " is the final answer, null fails)', () => {
    expect(parsePlannerOutput('{"steps": ["a"], "result": "   "}')).toEqual({ ok: true, steps: ['a'], result: '' });
    expect(parsePlannerOutput('{"steps": ["a"], "result": null}')).toEqual({ ok: true, steps: ['a'], result: '' });
  });

  it('a duplicate result key: the last one, as JSON.parse reads it (ml-commons: org.json refuses the duplicate)', () => {
    expect(parsePlannerOutput('{"steps": ["a"], "result": "x", "result": ""}')).toEqual({ ok: true, steps: ['a'], result: '' });
  });

  it('as ml-commons: a result wins over steps; neither is an error', () => {
    expect(parsePlannerOutput('{"steps": ["a"], "result": "final"}')).toEqual({ ok: true, steps: [], result: 'final' });
    expect(parsePlannerOutput('{"steps": [], "result": ""}')).toEqual({ ok: false, error: 'planner returned neither steps nor a result' });
  });
});
