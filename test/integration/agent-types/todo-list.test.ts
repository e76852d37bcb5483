/** todo_list (Axon Ivy TodoAgent) runs on real servers with the scripted model. */
import type { TodoView } from '../../../workflows';
import { useHarness, progressOf, runInput, scriptedAgent, startAgentRun } from '../../support/harness';
import { calculatorTurns } from '../../support/script';

jest.setTimeout(90_000);

const harnessOf = useHarness();

const todo = (stepNo: number, description: string, extra: Record<string, unknown> = {}) => ({
  stepNo,
  description,
  successCriteria: `${description} is done with the exact number`,
  availableToolIds: ['CalculatorTool'],
  analysis: `needed for ${description}`,
  resultName: `result${stepNo}`,
  resultDescription: 'a number',
  ...extra,
});

const agent = (script: Record<string, unknown>, question: string, parameters: Record<string, unknown> = {}) =>
  runInput(
    scriptedAgent(script as never, {
      type: 'todo_list',
      tools: [{ type: 'CalculatorTool' }],
      instructions: [{ type: 'execution', content: 'Work on each todo until success criteria are fully met' }],
      parameters,
    }),
    question,
  );

const forQuestion = (question: string) => harnessOf().recorder.filter((r) => JSON.stringify(r.messages).includes(question));

describe('the todo_list agent', () => {
  it('iterates a todo until its completion assessment passes, and stops when the goal is achieved after the second of three todos', async () => {
    const question = 'Give me 6*7 and 2^10 (and maybe their sum)';
    const handle = await startAgentRun(
      harnessOf(),
      agent(
        {
          planner: [JSON.stringify([todo(1, 'the product'), todo(2, 'the power'), todo(3, 'the sum')])],
          executor: [[{ content: 'about 40' }], calculatorTurns('6*7', '42'), calculatorTurns('2^10', '1024')],
          completion: ['Decision: NOT_COMPLETED\nThe result is an estimate, not the exact product.', 'Decision: COMPLETED', 'COMPLETED'],
          goal: ['Decision: CONTINUE_NEEDED', 'Both numbers are known.\nDecision: GOAL_ACHIEVED'],
        },
        question,
      ),
      'todo',
    );
    const out = await handle.result();
    expect(out.response).toBe('1024');
    expect(out.steps_executed).toBe(3);
    const todos = out.metadata?.todos as TodoView[];
    expect(todos.map((t) => [t.stepNo, t.currentStatus, t.isCompleted, t.iterations])).toEqual([
      [1, 'completed', true, 2],
      [2, 'completed', true, 1],
      [3, 'pending', false, 0],
    ]);
    // Every iteration is an executor child on the kernel's step runner; a todo shows its last one's.
    expect(todos.map((t) => t.executor_workflow_id)).toEqual([`${handle.workflowId}/step-2`, `${handle.workflowId}/step-3`, undefined]);

    const calls = forQuestion(question);
    // The planning call is TodoAgent's DataMapping over TODO_PLANNING_TEMPLATE.
    const planning = calls.find((r) => r.position.role === 'planner')!.messages[0].content;
    expect(planning).toContain(`GOAL: Complete all todos successfully to answer the user query: ${question}`);
    expect(planning).toContain('TASK: Create todo list to achieve the goal. Each todo should be outcome-focused');
    expect(planning).toContain('- maxIterationsPerTodo: Max iterations per todo (default 5)');
    // The second iteration of todo 1 is told what the assessment found missing.
    const secondIteration = calls.find((r) => r.position.role === 'executor' && r.position.step === 1)!;
    expect(secondIteration.messages.at(-1)?.content).toContain('Iteration 2 of 5.\nThe previous iteration did not meet the success criteria: The result is an estimate, not the exact product.');
    // Completion assessments see the todo's criteria and the iteration's result.
    const completion = harnessOf().recorder.find((r) => r.position.role === 'task' && r.position.kind === 'completion' && r.messages[0].content.includes('about 40'))!;
    expect(completion.messages[0].content).toContain('SUCCESS CRITERIA: the product is done with the exact number');
    expect(completion.system).toMatch(/^You are the planning and assessment model/);
    // The goal assessment is the seed's GOAL_ASSESSMENT_TEMPLATE with the completed todos and variables.
    const goals = harnessOf().recorder.filter((r) => r.position.role === 'task' && r.position.kind === 'goal' && r.messages[0].content.includes(question));
    expect(goals).toHaveLength(2);
    expect(goals[1].messages[0].content).toContain('COMPLETED TODOS: 1. the product; 2. the power\nCURRENT VARIABLES: - query:');
    expect(goals[1].messages[0].content).toContain('- result1: 42\n- result2: 1024');
    expect(goals[1].messages[0].content).toContain('Decision: [GOAL_ACHIEVED | CONTINUE_NEEDED]');
    // No execution of todo 3.
    expect(calls.filter((r) => r.position.role === 'executor' && r.position.step >= 3)).toHaveLength(0);

    const progress = await progressOf(harnessOf(), handle.workflowId);
    expect(progress.agent_type).toBe('todo_list');
    expect(progress.todos?.map((t) => t.currentStatus)).toEqual(['completed', 'completed', 'pending']);
    expect(progress.variables).toEqual(['query', 'result1', 'result2']);
    expect(progress.completed_steps.map((s) => [s.step, s.executor_workflow_id])).toEqual([
      ['todo 1, iteration 1: the product', `${handle.workflowId}/step-1`],
      ['todo 1, iteration 2: the product', `${handle.workflowId}/step-2`],
      ['todo 2, iteration 1: the power', `${handle.workflowId}/step-3`],
    ]);
  });

  it('respects maxIterationsPerTodo: a todo that never passes fails after its limit and the next todo runs; the goal is verified once more when the todos run out', async () => {
    const question = 'A stubborn todo, then an easy one';
    const out = await (
      await startAgentRun(
        harnessOf(),
        agent(
          {
            planner: [JSON.stringify([todo(1, 'the impossible', { maxIterationsPerTodo: 2 }), todo(2, 'the easy')])],
            executor: [[{ content: 'try 1' }], [{ content: 'try 2' }], calculatorTurns('1+1', '2')],
            completion: ['NOT_COMPLETED: still impossible', 'NOT_COMPLETED: still impossible', 'COMPLETED'],
            goal: ['CONTINUE_NEEDED', 'All there is to do is done.\nDecision: GOAL_ACHIEVED'],
          },
          question,
        ),
      )
    ).result();
    const todos = out.metadata?.todos as TodoView[];
    expect(todos.map((t) => [t.currentStatus, t.iterations, t.maxIterationsPerTodo])).toEqual([
      ['failed', 2, 2],
      ['completed', 1, 5],
    ]);
    expect(out.response).toBe('2');
    // A failed todo gets no goal assessment; the completed one does, then TodoAgent's final goal
    // verification (the todos ran out without GOAL_ACHIEVED), whose verdict is in the metadata.
    const assessments = harnessOf().recorder.filter((r) => r.position.role === 'task' && r.position.kind === 'goal' && r.messages[0].content.includes(question));
    expect(assessments.map((r) => 'call' in r.position && r.position.call)).toEqual([0, 1]);
    expect(out.metadata?.goal_achieved).toBe(true);
  });

  it('stops at the run-wide max_iterations, whatever the todos allow', async () => {
    const out = await (
      await startAgentRun(
        harnessOf(),
        agent(
          {
            planner: [JSON.stringify([todo(1, 'slow one'), todo(2, 'never reached')])],
            executor: [[{ content: 'a' }], [{ content: 'b' }]],
            completion: ['NOT_COMPLETED', 'NOT_COMPLETED'],
          },
          'run-wide limit',
          { max_iterations: 2 },
        ),
      )
    ).result();
    expect(out.steps_executed).toBe(2);
    expect(out.response).toMatch(/^Max Iterations \(2\) Reached\./);
    expect((out.metadata?.todos as TodoView[]).map((t) => t.currentStatus)).toEqual(['failed', 'pending']);
  });
});
