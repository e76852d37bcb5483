import {
  DEFAULT_EXECUTOR_SYSTEM_PROMPT,
  DEFAULT_PLANNER_PROMPT,
  DEFAULT_PLANNER_PROMPT_TEMPLATE,
  DEFAULT_PLANNER_SYSTEM_PROMPT,
  DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE,
  DEFAULT_REFLECT_PROMPT,
  DEFAULT_REFLECT_PROMPT_TEMPLATE,
  EXECUTOR_RESPONSIBILITY,
  FINAL_RESULT_RESPONSE_INSTRUCTIONS,
  MAX_STEPS_SUMMARY_PROMPT_TEMPLATE,
  PLANNER_RESPONSIBILITY,
  PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT,
  maxStepsReachedMessage,
  parseRetrySuffix,
} from '../../../core/prompts';

describe('seed prompt texts', () => {
  it('keeps the planner responsibility verbatim from its first line to its last example', () => {
    expect(PLANNER_RESPONSIBILITY.startsWith(
      'You are a thoughtful and analytical planner agent in a plan-execute-reflect framework. Your job is to design a clear, step-by-step plan for a given objective.\n\nInstructions:\n- Break the objective',
    )).toBe(true);
    expect(PLANNER_RESPONSIBILITY).toContain('- Respond only in JSON format.\n\nStep examples:\n');
    expect(PLANNER_RESPONSIBILITY.endsWith('Bad example: "Use Tool to sample documents from all indices"')).toBe(true);
  });

  it('keeps the executor responsibility verbatim and uses it as the executor system prompt', () => {
    expect(EXECUTOR_RESPONSIBILITY.startsWith(
      'You are a precise and reliable executor agent in a plan-execute-reflect framework.',
    )).toBe(true);
    expect(EXECUTOR_RESPONSIBILITY.endsWith('- Break complex searches into simpler queries when appropriate.')).toBe(true);
    expect(DEFAULT_EXECUTOR_SYSTEM_PROMPT).toBe(EXECUTOR_RESPONSIBILITY);
  });

  it('indents the JSON examples of the response format with tabs', () => {
    expect(PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT).toContain('{\n\t"steps": array[string],\n\t"result": string\n}');
    expect(PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT).toContain(
      '{\n\t"steps": ["This is an example step", "this is another example step"],\n\t"result": ""\n}',
    );
    expect(PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT).toContain(
      '\t"result": "This is an example result\\n with escaped special characters"',
    );
    expect(PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT.endsWith('3. Only respond with a pure JSON object')).toBe(true);
  });

  it('keeps the final result instructions and both default prompts verbatim', () => {
    expect(FINAL_RESULT_RESPONSE_INSTRUCTIONS).toContain('3. Include key findings from all intermediate steps — do NOT omit them.');
    expect(DEFAULT_PLANNER_PROMPT).toBe(
      'For the given objective, generate a step-by-step plan composed of simple, self-contained steps. The final step should directly yield the final answer. Avoid unnecessary steps.',
    );
    expect(DEFAULT_REFLECT_PROMPT).toBe(
      'Update your plan based on the latest step results. If the task is complete, return the final answer. Otherwise, include only the remaining steps. Do not repeat previously completed steps.',
    );
  });

  it('builds the planner system prompt from its three parts joined by newlines', () => {
    expect(DEFAULT_PLANNER_SYSTEM_PROMPT).toBe(
      `${PLANNER_RESPONSIBILITY}\n${PLAN_EXECUTE_REFLECT_RESPONSE_FORMAT}\n${FINAL_RESULT_RESPONSE_INSTRUCTIONS}`,
    );
  });

  it('lays out the planner template with the seed placeholders', () => {
    expect(DEFAULT_PLANNER_PROMPT_TEMPLATE).toBe(
      '${parameters.tools_prompt}\n\n${parameters.planner_prompt}\n\nObjective: ${parameters.user_prompt}\n\n' +
        'Remember: Respond only in JSON format following the required schema.',
    );
  });

  it('lays out the reflect template with the plan, the completed steps and the reflect prompt', () => {
    expect(DEFAULT_REFLECT_PROMPT_TEMPLATE).toContain('Objective: ```${parameters.user_prompt}```\n\nOriginal plan:\n[${parameters.steps}]\n');
    expect(DEFAULT_REFLECT_PROMPT_TEMPLATE).toContain(
      'You have currently executed the following steps from the original plan:\n[${parameters.completed_steps}]\n\n${parameters.reflect_prompt}\n',
    );
    expect(DEFAULT_REFLECT_PROMPT_TEMPLATE.startsWith('${parameters.tools_prompt}\n\n${parameters.planner_prompt}\n\n')).toBe(true);
  });

  it('lays out the history template with the completed steps but no plan', () => {
    expect(DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE).toContain(
      'You have currently executed the following steps:\n[${parameters.completed_steps}]\n\nRemember:',
    );
    expect(DEFAULT_PLANNER_WITH_HISTORY_PROMPT_TEMPLATE).not.toContain('${parameters.steps}');
  });
});

describe('perflow prompt texts', () => {
  it('tells the model why its answer was rejected and to answer with the JSON schema only', () => {
    const suffix = parseRetrySuffix('planner output is not valid JSON (Unexpected token)\nat line 2.');
    expect(suffix).toContain(
      'Your previous answer could not be parsed: planner output is not valid JSON (Unexpected token) at line 2. Respond again with only a JSON object',
    );
    expect(suffix).toContain('{"steps": array[string], "result": string}');
    expect(suffix.startsWith('\n\n')).toBe(true);
  });

  it('asks for a summary with the step limit, objective and completed steps', () => {
    expect(MAX_STEPS_SUMMARY_PROMPT_TEMPLATE).toContain('${parameters.max_steps}');
    expect(MAX_STEPS_SUMMARY_PROMPT_TEMPLATE).toContain('${parameters.user_prompt}');
    expect(MAX_STEPS_SUMMARY_PROMPT_TEMPLATE).toContain('[${parameters.completed_steps}]');
  });

  it('reports the max-steps limit with the summary and how to continue with the memory id', () => {
    expect(maxStepsReachedMessage(3, ' found two indices ', 'mem-1')).toBe(
      "Max Steps Limit (3) Reached. Here's a summary of the steps completed so far:\n\nfound two indices\n\nTo continue, run the agent again with memory_id mem-1.",
    );
    expect(maxStepsReachedMessage(3, '', 'mem-1')).toBe(
      'Max Steps Limit (3) Reached. To continue, run the agent again with memory_id mem-1.',
    );
  });
});
