/**
 * Representative runs whose histories are recorded under test/fixtures/histories and replayed
 * in `npm test`, so a workflow change that breaks running executions is caught before it lands.
 * Regenerate with `npm run record-histories` (only when a change is meant to be incompatible,
 * and behind `patched()` otherwise — see docs/contributing.md).
 *
 * One table in one file, over 300 lines on purpose: the recorder and the replay suite read the
 * same list, and a new scenario goes at its end. Scripted turns are written with the builders of
 * ./script, so a scenario records the same script however often it is rewritten.
 */
import { resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { TenantBudgets } from '../../stores/tenant-budgets';
import { approvePlan, approveTool, denyTool, guideRun, pauseRun, raiseBudget, rejectPlan, resumeRun } from '../../client/decisions';
import { interruptSignal, progressQuery, tenantCapSignal, type Progress } from '../../workflows/definitions';
import type { EvalCheck } from '../../core/eval/types';
import { final, plan, scriptedAgent } from './harness';
import { typedAgent } from './typed-agents';
import { calculatorCall, calculatorTurns, longTalker, onTrack, planAndExecuteAgent, planStep, verdict, withCalculator } from './script';
import { streamedAnthropicMessage, type WireReply, type WireStream } from './wire-server';
import { streamedGeminiResponse } from './gemini-wire';
import { streamedResponse } from './responses-wire';

export interface Scenario {
  name: string;
  /**
   * The agent file's content, or its path (a file whose agent tools name other files: read as `perflow run` reads it);
   * with `wire`, a function of the wire server's URL (its `llm.base_url`) giving the content.
   */
  agent: unknown | ((wireUrl: string) => unknown);
  /**
   * The model is a provider's real SDK talking to a local wire server (./wire-server), not the scripted model: started
   * before the run, answering with `replies` in order, with `env` (the provider's key variable) set while the run goes.
   */
  wire?: { replies: (WireReply | WireStream)[]; env?: (url: string) => Record<string, string | undefined> };
  question: string;
  params?: Record<string, unknown>;
  /** The run is expected to fail. */
  fails?: boolean;
  /** The run is a fork from `step` of a source run of this agent and question (recorded first, not saved). */
  forkOf?: { agent: unknown; question: string; step: number };
  /** What people do while it runs (decisions), given the run's workflow ID, a client and the memory's database. */
  interact?: (workflowId: string, client: Client, db: Db) => Promise<void>;
  /** What the database holds before the run starts (a tenant's cap). */
  setup?: (db: Db) => Promise<void>;
  /** An eval of these cases against `agent` (the eval workflow, its case runs as children) instead of one run of `question`. */
  evalCases?: { id: string; question: string; checks: EvalCheck[] }[];
  /**
   * A second message to a busy conversation (`on_busy: enqueue`): this earlier run of the same
   * conversation starts first, as `<workflow ID>-earlier` (not saved), and the run waits for it.
   */
  queuedBehind?: { agent: unknown; question: string; params?: Record<string, unknown> };
  /** Keep the run's own executions only: its steps' children are ordinary executor runs, recorded by other scenarios. */
  runOnly?: boolean;
  /** Of a run that continued-as-new, keep only the executions holding this patch's marker, and the last. */
  onlyExecutionsWith?: string;
  /** A remote A2A agent (./a2a-remote) is started for the run: `agent` is a function of its URL giving the content. */
  a2aRemote?: true;
  /** The run's model calls go to an LLM task queue (`llm_task_queue`, as PERFLOW_LLM_TASK_QUEUE sets it), which the recording worker serves. */
  llmQueue?: true;
}

/** Waits until the run's progress satisfies `ok` (bounded). */
async function until(client: Client, workflowId: string, ok: (p: Progress) => boolean): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const p = await client.workflow.getHandle(workflowId).query(progressQuery).catch(() => undefined);
    if (p && ok(p)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${workflowId}: timed out waiting in a scenario`);
}
/** Two calculator steps, (6*7) then + 1024, planned at once and re-planned after the first. */
const sixTimesSevenPlus1024 = () =>
  scriptedAgent(
    {
      planner: [plan('compute 6*7', 'add 1024'), plan('add 1024'), final('1066')],
      executor: [calculatorTurns('6*7', '42'), calculatorTurns('42+1024', '1066')],
    },
    withCalculator(),
  );

/** A plan_execute_and_reflect agent of two steps whose scripted model has a price (for dollar budgets). */
function pricedTwoSteps(): Record<string, unknown> {
  const agent = typedAgent('plan_execute_and_reflect', 2);
  return { ...agent, llm: { ...(agent.llm as object), price: { input_per_million: 1, output_per_million: 2 } } };
}

const awaiting = (id: string) => (p: Progress) => (p.pending ?? []).some((d) => d.id === id);

export const SCENARIOS: Scenario[] = [
  {
    name: 'three-steps-with-tools',
    question: 'What is (6*7) + 2^10, step by step?',
    agent: scriptedAgent(
      {
        planner: [plan('compute 6*7', 'compute 2^10', 'add them'), plan('compute 2^10', 'add them'), plan('add them'), final('1066')],
        executor: [calculatorTurns('6*7', '42'), calculatorTurns('2^10', '1024'), calculatorTurns('42+1024', '1066')],
      },
      withCalculator(),
    ),
  },
  {
    // A step of three turns: the later turns send the earlier tool outputs by reference (stored_tool_results).
    name: 'tool-results-by-reference',
    question: 'What is 6*7, then that plus 1?',
    agent: scriptedAgent(
      {
        planner: [plan('compute 6*7 and add 1'), final('43')],
        executor: [[calculatorCall('6*7'), calculatorCall('42+1'), { content: '43' }]],
      },
      withCalculator(),
    ),
  },
  {
    name: 'malformed-planner-answer-retried',
    question: 'recover from a malformed plan',
    agent: scriptedAgent({ planner: ['not json at all', '```json\n' + final('recovered') + '\n```'] }),
  },
  {
    name: 'failed-step-replanned',
    question: 'a step fails and the planner re-plans',
    // The first step's executor has no script, so it fails; the planner sees the failure.
    agent: scriptedAgent({ planner: [plan('broken step'), plan('working step'), final('worked around it')], executor: [[], [{ content: 'ok' }]] }),
  },
  {
    name: 'max-steps-reached',
    question: 'never finishes',
    params: { max_steps: 2 },
    agent: scriptedAgent({ planner: [plan('s1', 's2', 's3'), plan('s2', 's3')], executor: [[{ content: 'r1' }], [{ content: 'r2' }]] }),
  },
  {
    // Three executions: the event budget makes the run continue-as-new twice between steps.
    name: 'continued-as-new',
    question: 'count to six across executions',
    params: { continue_as_new_after_events: 30 },
    agent: scriptedAgent({
      planner: [...[1, 2, 3, 4, 5, 6].map((n) => plan(`say ${n}`)), final('counted to six')],
      executor: [1, 2, 3, 4, 5, 6].map((n) => [{ content: String(n) }]),
    }),
  },
  {
    // The MCP server's tool list is recorded in history: replays never start the server.
    name: 'mcp-tool',
    question: 'What is 2 + 40, by MCP?',
    agent: scriptedAgent(
      {
        planner: [plan('add 2 and 40'), final('42')],
        executor: [[{ tool_calls: [{ name: 'add', input: { a: 2, b: 40 } }] }, { content: '42' }]],
      },
      { mcp_servers: [{ name: 'calc', command: process.execPath, args: ['--require', 'tsx/cjs', resolve(__dirname, 'mcp-test-server.ts')] }] },
    ),
  },
  {
    // step_by_step: a YES decision inserts adaptive step 1002, which runs before step 2.
    name: 'step-by-step-adaptive',
    question: 'What is 6*7, checked, plus 1?',
    agent: scriptedAgent(
      {
        planner: ['1. multiply 2. add one'],
        mapping: [
          JSON.stringify([
            { stepNo: 1, name: 'multiply', toolId: 'CalculatorTool', resultName: 'product' },
            { stepNo: 2, name: 'add one', toolId: 'CalculatorTool', resultName: 'sum' },
          ]),
        ],
        executor: [calculatorTurns('6*7', '42'), calculatorTurns('7*6', '42 again'), calculatorTurns('42+1', '43')],
        decision: ['Decision: YES\n[{"stepNo": 1, "name": "check", "toolId": "CalculatorTool", "resultName": "check"}]', 'Decision: NO', 'Decision: COMPLETE'],
      } as never,
      withCalculator({ type: 'step_by_step', goal: 'an exact number' }),
    ),
  },
  {
    // todo_list: the first todo needs two iterations; the goal is achieved after the second todo.
    name: 'todo-list-goal-achieved',
    question: 'Give 6*7 and 2^10',
    agent: scriptedAgent(
      {
        planner: [
          JSON.stringify([1, 2, 3].map((n) => ({ stepNo: n, description: `todo ${n}`, successCriteria: 'an exact number', availableToolIds: ['CalculatorTool'] }))),
        ],
        executor: [[{ content: 'about 40' }], calculatorTurns('6*7', '42'), [{ content: '1024' }]],
        completion: ['NOT_COMPLETED: not exact', 'COMPLETED', 'COMPLETED'],
        goal: ['CONTINUE_NEEDED', 'GOAL_ACHIEVED'],
      } as never,
      withCalculator({ type: 'todo_list' }),
    ),
  },
  {
    // plan_and_execute: a keyword in step 1's observation re-plans; the viability check keeps the next plan.
    name: 'plan-and-execute-replanned',
    question: 'Apply the rate to 100',
    agent: scriptedAgent(
      {
        planner: [
          JSON.stringify([planStep('look up the rate', { success_criteria: 'a rate' }), planStep('apply it')]),
          JSON.stringify([planStep('compute the rate', { success_criteria: 'a rate' }), planStep('apply it')]),
        ],
        executor: [
          [{ content: 'The rate table was not found.' }],
          calculatorTurns('3/4', '0.75'),
          [{ content: '75' }],
        ],
        verification: Array.from({ length: 4 }, () => JSON.stringify({ met: true })),
        viability: [JSON.stringify({ replan: false, confidence: 0.2, reason: 'fine' })],
        final: ['75'],
      } as never,
      withCalculator({ type: 'plan_and_execute' }),
    ),
  },
  {
    name: 'planner-output-invalid',
    question: 'the planner never answers in JSON',
    fails: true,
    agent: scriptedAgent({ planner: ['a', 'b', 'c'] }),
  },
  // Each other agent type continuing-as-new on the run kernel (its own state carried).
  ...(['step_by_step', 'todo_list', 'plan_and_execute'] as const).map((type) => ({
    name: `${type.replace(/_/g, '-')}-continued-as-new`,
    question: 'sum 1..4',
    agent: typedAgent(type, 4),
    params: { continue_as_new_after_events: 25 },
  })),
  // Each agent type with its model not streaming: the planning answers come back with `tail_from`, and the run publishes their text.
  ...(['plan_execute_and_reflect', 'step_by_step', 'todo_list', 'plan_and_execute'] as const).map((type) => {
    const agent = typedAgent(type, 2) as { llm: { parameters?: Record<string, unknown> } };
    return { name: `${type.replace(/_/g, '-')}-planning-text-by-run`, question: 'sum 1..2', agent: { ...agent, llm: { ...agent.llm, parameters: { ...agent.llm.parameters, stream: false } } }, runOnly: true };
  }),
  // Each agent type with its model streaming: a planning call after a step takes the step's end (`events_before`) and writes it with its first piece.
  ...(['plan_execute_and_reflect', 'step_by_step', 'todo_list', 'plan_and_execute'] as const).map((type) => {
    const agent = typedAgent(type, 2) as { llm: { parameters?: Record<string, unknown> } };
    return { name: `${type.replace(/_/g, '-')}-step-end-with-planning-text`, question: 'sum 1..2', agent: { ...agent, llm: { ...agent.llm, parameters: { ...agent.llm.parameters, latency_ms: 60, stream_chunk_chars: 5 } } }, runOnly: true };
  }),
  {
    // The todos run out without GOAL_ACHIEVED: TodoAgent's final goal verification.
    name: 'todo-list-final-verification',
    question: 'two todos, the goal never declared achieved',
    agent: scriptedAgent(
      {
        planner: [JSON.stringify([{ stepNo: 1, description: 'first', successCriteria: 'a number' }, { stepNo: 2, description: 'second', successCriteria: 'a number' }])],
        executor: [[{ content: '1' }], [{ content: '2' }]],
        completion: ['COMPLETED', 'COMPLETED'],
        goal: ['CONTINUE_NEEDED', 'CONTINUE_NEEDED', 'Decision: CONTINUE_NEEDED'],
      } as never,
      withCalculator({ type: 'todo_list' }),
    ),
  },
  {
    // step_by_step follows `next` (step 1 jumps to step 3) and asks an unreadable decision again.
    name: 'step-by-step-next-and-retry',
    question: 'jump, then decide clearly',
    agent: scriptedAgent(
      {
        planner: ['three steps'],
        mapping: [
          JSON.stringify([
            { stepNo: 1, name: 'one', toolId: 'CalculatorTool', next: 3 },
            { stepNo: 2, name: 'two', toolId: 'CalculatorTool', next: 3 },
            { stepNo: 3, name: 'three', toolId: 'CalculatorTool', next: -1 },
          ]),
        ],
        executor: [[{ content: '1' }], [{ content: '3' }]],
        decision: ['Decision: NO', 'hmm'],
        decision_retry: ['Decision: COMPLETE'],
      } as never,
      withCalculator({ type: 'step_by_step', goal: 'an exact number' }),
    ),
  },
  {
    // plan_and_execute's StepVerifier: step 1's first attempt does not meet its criteria.
    name: 'plan-and-execute-verified',
    question: 'verified steps',
    agent: scriptedAgent(
      {
        planner: [JSON.stringify([planStep('multiply', { success_criteria: 'the exact product' })])],
        executor: [[{ content: 'about 40' }], calculatorTurns('6*7', '42')],
        verification: [JSON.stringify({ met: false, reason: 'an estimate' }), JSON.stringify({ met: true })],
        final: ['42'],
      } as never,
      withCalculator({ type: 'plan_and_execute' }),
    ),
  },
  // Static prompt material by reference (patched): a plan-execute-reflect run and a todo_list run.
  {
    name: 'prompt-material-three-steps',
    question: 'What is (6*7) + 2^10, by reference?',
    agent: sixTimesSevenPlus1024(),
  },
  { name: 'prompt-material-todo-list', question: 'sum 1..2, by reference', agent: typedAgent('todo_list', 2) },
  // Planner prompts rendered as ml-commons renders them (patched at the run's start).
  {
    name: 'ml-commons-prompt-format',
    question: 'What is (6*7) + 2^10, as ml-commons would prompt it?',
    agent: sixTimesSevenPlus1024(),
  },
  // Executor steps read their earlier steps and save their results inside the model calls (patched):
  // the second step sees the first; the third reaches the iteration limit and is saved by the workflow.
  {
    name: 'step-memory-three-steps',
    question: 'What is (6*7) + 2^10, with step memory?',
    params: { executor_max_iterations: 2 },
    agent: scriptedAgent(
      {
        planner: [plan('compute 6*7', 'add 1024', 'check'), plan('add 1024', 'check'), plan('check'), final('1066')],
        executor: [
          calculatorTurns('6*7', '42'),
          calculatorTurns('42+1024', '1066'),
          [calculatorCall('1+1'), calculatorCall('2+2')],
        ],
      },
      withCalculator(),
    ),
  },
  { name: 'step-memory-todo-list', question: 'sum 1..2, with step memory', agent: typedAgent('todo_list', 2) },
  // People in the loop: every kind of decision by a person (plan_execute_and_reflect) …
  {
    name: 'decisions-plan-execute-reflect',
    question: 'What is 6*7 + 1, with a reviewer?',
    params: { plan_approval: 'every' },
    agent: scriptedAgent(
      {
        planner: [plan('compute 6*7'), plan('compute 6*7', 'add 1'), plan('add 1'), final('43')],
        executor: [calculatorTurns('6*6', '42'), calculatorTurns('42+1', '43')],
      },
      { tools: [{ type: 'CalculatorTool', requires_approval: true }] },
    ),
    async interact(id, client) {
      await until(client, id, awaiting('plan-1'));
      await rejectPlan(client, id, { reason: 'add one at the end', by: 'reviewer' });
      await until(client, id, awaiting('plan-2'));
      await approvePlan(client, id, { steps: ['compute 6*7 exactly', 'add 1'], by: 'reviewer' });
      await until(client, id, awaiting('tool-1-1'));
      await pauseRun(client, id, { by: 'reviewer' });
      await approveTool(client, id, { input: { expression: '6*7' }, by: 'reviewer' });
      await until(client, id, (p) => p.status === 'paused');
      await guideRun(client, id, 'answer with the number only', { by: 'reviewer' });
      await resumeRun(client, id, { by: 'reviewer' });
      await until(client, id, awaiting('plan-3'));
      await approvePlan(client, id, { by: 'reviewer' });
      await until(client, id, awaiting('tool-2-1'));
      await denyTool(client, id, { reason: 'add it yourself', by: 'reviewer' });
    },
  },
  // … and decisions taken by approval_timeout, for a plan and a tool call (plan_and_execute).
  {
    name: 'decisions-plan-and-execute-timeout',
    question: 'sum 1..1, approved by the timeout',
    params: { plan_approval: 'first', approval_timeout: 1, approval_timeout_action: 'approve' },
    agent: { ...typedAgent('plan_and_execute', 1), tools: [{ type: 'CalculatorTool', requires_approval: true }] },
  },
  // A dollar budget reached: the run waits until a person raises it (max_cost_usd, budget_action pause).
  budgetRaised('decisions-budget', 'sum 1..2, within a budget'),
  // The same, recorded once the budget is checked before a step starts: it waits before step 1.
  budgetRaised('budget-before-step', 'sum 1..2, within a budget, checked before each step'),
  // Two independent steps as concurrent executor children, then one reflection (max_parallel_steps).
  {
    name: 'parallel-steps',
    question: 'Which is larger, 6*7 or 2^5, in parallel?',
    params: { max_parallel_steps: 2 },
    agent: scriptedAgent(
      {
        planner: [JSON.stringify({ steps: [['compute 6*7', 'compute 2^5'], 'compare'], result: '' }), plan('compare'), final('6*7 is larger')],
        executor: [
          calculatorTurns('6*7', '42'),
          calculatorTurns('2^5', '32'),
          [{ content: '42 > 32' }],
        ],
      },
      withCalculator(),
    ),
  },
  // plan_and_execute: steps 1 and 2 (depends_on []) at once, step 3 after both.
  {
    name: 'plan-and-execute-depends-on',
    question: '6*7 and 2^5 at once, then their difference',
    params: { max_parallel_steps: 2 },
    agent: {
      name: 'history',
      type: 'plan_and_execute',
      llm: {
        interface: 'scripted',
        script: {
          planner: [
            JSON.stringify([
              planStep('compute 6*7', { depends_on: [] }),
              planStep('compute 2^5', { depends_on: [] }),
              planStep('subtract', { depends_on: [1, 2] }),
            ]),
          ],
          executor: [calculatorTurns('6*7', '42'), calculatorTurns('2^5', '32'), calculatorTurns('42-32', '10')],
          verification: [1, 2, 3].map(() => verdict(true)),
          viability: [onTrack()],
          final: ['42 - 32 = 10'],
        },
      },
      tools: [{ type: 'CalculatorTool' }],
    },
  },
  // A fork from step 3 of a three-step run, with its own reflect template: steps 1–2 reused from memory.
  {
    name: 'forked-from-step-3',
    question: 'What is (6*7) + 2^10, forked?',
    params: { reflect_prompt_template: 'FORKED ${parameters.user_prompt}\n${parameters.completed_steps}\n${parameters.plan_execute_reflect_response_format}' },
    // Its planner goes on where the source's stood at step 3 (position 2).
    agent: scriptedAgent({ planner: ['(planned step 1)', '(planned step 2)', final('1066, forked')] }, withCalculator()),
    forkOf: {
      question: 'What is (6*7) + 2^10, forked?',
      step: 3,
      agent: scriptedAgent(
        {
          planner: [plan('compute 6*7', 'compute 2^10', 'add them'), plan('compute 2^10', 'add them'), plan('add them'), final('1066')],
          executor: [
            calculatorTurns('6*7', '42'),
            calculatorTurns('2^10', '1024'),
            [{ content: '1066' }],
          ],
        },
        withCalculator(),
      ),
    },
  },
  // A plan_and_execute fork from plan step 3: steps 1–2 (three executions: step 2 took two) reused, the rest re-planned.
  {
    name: 'plan-and-execute-forked-from-step-3',
    question: 'What is (6*7) + 2^10, re-planned from step 3?',
    // Its scripts go on where the source stood at step 3: planner call 1, execution 3, verification 3.
    agent: planAndExecuteAgent({
      planner: ['(the source\'s plan)', JSON.stringify([planStep('add 42 and 1024, checking twice')])],
      executor: [[], [], [], calculatorTurns('42+1024', 'checked: 1066')],
      verification: [verdict(true), verdict(false), verdict(true), verdict(true)],
      final: ['1066, forked'],
    }),
    forkOf: {
      question: 'What is (6*7) + 2^10, re-planned from step 3?',
      step: 3,
      agent: planAndExecuteAgent({
        planner: [JSON.stringify([planStep('compute 6*7'), planStep('compute 2^10'), planStep('add them')])],
        executor: [calculatorTurns('6*7', '42'), calculatorTurns('2^9', '512'), calculatorTurns('2^10', '1024'), calculatorTurns('42+1024', '1066')],
        verification: [verdict(true), verdict(false), verdict(true), verdict(true)],
        viability: [onTrack(), onTrack()],
        final: ['1066'],
      }),
    },
  },
  // Executor children told by the parent that they take the step-memory path: no patch marker, no search-attribute upsert.
  {
    name: 'executor-step-memory-by-input',
    question: 'What is (6*7) + 2^10, with lean children?',
    agent: sixTimesSevenPlus1024(),
  },
  // Unreadable assessments asked again (patched): a verification and a todo's completion and goal; a viability check taken as assumed.
  {
    name: 'plan-and-execute-assessments-asked-again',
    question: 'What is 6*7 + 1, checked by a hesitant verifier?',
    params: { max_parse_retries: 1 },
    agent: planAndExecuteAgent({
      planner: [JSON.stringify([planStep('compute 6*7'), planStep('add 1')])],
      executor: [calculatorTurns('6*7', '42'), calculatorTurns('42+1', '43')],
      verification: ['looks right', verdict(true), verdict(true)],
      viability: ['probably', 'probably still'],
      final: ['43'],
    }),
  },
  {
    name: 'todo-list-assessments-asked-again',
    question: 'What is 6*7, assessed twice?',
    agent: scriptedAgent(
      {
        planner: [JSON.stringify([{ stepNo: 1, description: 'the product', successCriteria: 'an exact number', availableToolIds: ['CalculatorTool'] }])],
        executor: [calculatorTurns('6*7', '42')],
        completion: ['I would say so'],
        completion_retry: ['COMPLETED'],
        goal: ['mostly there', 'GOAL_ACHIEVED'],
      } as never,
      withCalculator({ type: 'todo_list' }),
    ),
  },
  // A tenant's daily cap reached by the run's first call: its executor child's turn waits (asked of
  // the run) until `budget set` raises the cap (its signal), then the run completes.
  {
    name: 'tenant-budget',
    question: 'sum 1..2, within the tenant budget',
    params: { tenant_id: 'history-tenant' },
    agent: pricedTwoSteps(),
    setup: (db) => new TenantBudgets(db).setCap('history-tenant', 1e-9, 'reviewer', new Date()),
    async interact(id, client, db) {
      await until(client, id, (p) => p.status === 'awaiting_budget');
      await new TenantBudgets(db).setCap('history-tenant', 1, 'reviewer', new Date());
      await client.workflow.getHandle(id).signal(tenantCapSignal, { tenant: 'history-tenant', usd_per_day: 1, by: 'reviewer' });
    },
  },
  // An eval of two cases, one at a time, each scored (a scripted judge) once its child run ends.
  {
    name: 'eval-suite',
    question: '',
    agent: typedAgent('plan_execute_and_reflect', 1),
    evalCases: [
      {
        id: 'good',
        question: 'sum 1..1',
        checks: [{ contains: 'the total is 1' }, { tool_called: 'CalculatorTool' }, { judge: 'states a total', llm: { interface: 'scripted', script: { planner: [], judge: ['{"pass": true, "reason": "a total"}'] } } as never }],
      },
      { id: 'bad', question: 'sum 1..1 again', checks: [{ tool_not_called: 'CalculatorTool' }] },
    ],
  },
  // An agent tree: a supervisor whose steps call a researcher (which calls an accountant) and the
  // accountant, each a child run of the step that called it (three levels, three agent types).
  {
    name: 'agent-tree',
    question: 'What does the trip cost?',
    agent: resolve(__dirname, '../../examples/multi-agent/supervisor.json'),
  },
  // A second message to a busy conversation, enqueued: the run waits until the earlier one (waiting
  // for its plan's approval) has ended, then starts with its exchange.
  {
    name: 'queued-behind-earlier-run',
    question: 'sum 1..1, once the first message is answered',
    agent: typedAgent('plan_and_execute', 1),
    queuedBehind: { agent: typedAgent('plan_execute_and_reflect', 1), question: 'sum 1..1 first', params: { plan_approval: 'first' } },
    async interact(id, client) {
      await until(client, `${id}-earlier`, awaiting('plan-1'));
      await approvePlan(client, `${id}-earlier`, { by: 'reviewer' });
    },
  },
  // … and interrupting (`on_busy: interrupt`): a newer message stops the run after its first step;
  // its work so far becomes its answer in memory.
  {
    name: 'interrupted-by-newer-message',
    question: 'sum 1..2, interrupted after step 1',
    agent: typedAgent('step_by_step', 2),
    fails: true,
    async interact(id, client) {
      await until(client, id, (p) => p.plan.length > 0);
      await pauseRun(client, id, { by: 'reviewer' });
      await until(client, id, (p) => p.status === 'paused');
      await client.workflow.getHandle(id).signal(interruptSignal, { by: `${id}-newer` });
      await client.workflow.getHandle(id).cancel();
    },
  },
  // Long answers in a small context window: planner prompts and step 1's turns compacted by summaries (inside the model activities).
  { name: 'context-compacted', question: 'say a lot, in a small window', agent: longTalker({ context_window: 2_000 }) },
  {
    // plan_and_execute past 50 executed plan steps at a continue-as-new: the earlier steps' prompt lines are stored first (`saveEarlierSteps`), the latest 50 carried.
    name: 'plan-and-execute-earlier-steps',
    question: 'sum 1..60, carrying the latest plan steps',
    agent: typedAgent('plan_and_execute', 60),
    params: { max_steps: 65, continue_as_new_after_events: 200 },
    runOnly: true,
    onlyExecutionsWith: 'plan-and-execute-earlier-steps',
  },
  // Each agent type writing its root interactions, question and answer, when it ends (one insert, no update).
  ...(['plan_execute_and_reflect', 'step_by_step', 'todo_list', 'plan_and_execute'] as const).map((type) => ({
    name: `${type.replace(/_/g, '-')}-roots-at-end`,
    question: 'sum 1..2, its answer and question written at its end',
    agent: typedAgent(type, 2),
    runOnly: true,
  })),
  { name: 'roots-at-end-failed', question: 'the planner never answers in JSON, written at its end', fails: true, agent: scriptedAgent({ planner: ['a', 'b', 'c'] }) },
  // step_by_step and todo_list past 50 results at a continue-as-new: the latest carried, the others counted (no command of their own but the patch marker).
  ...(['step_by_step', 'todo_list'] as const).map((type) => ({
    name: `${type.replace(/_/g, '-')}-earlier-results`,
    question: `sum 1..58, a long ${type}`,
    agent: typedAgent(type, 58),
    params: { max_iterations: 63, continue_as_new_after_events: 60 },
    runOnly: true,
    onlyExecutionsWith: type === 'step_by_step' ? 'step-by-step-earlier-steps' : 'todo-list-earlier-results',
  })),
];

// A tool call's events handed on to the step's next turn (`hand_events`, `StoredToolResult.events`), the children kept:
// a step whose second turn takes them, and a step cut short at its iteration limit (the step writes them as it ends).
SCENARIOS.push(
  {
    name: 'tool-events-handed',
    question: 'What is 6*7, then that plus 1, handing the calls on?',
    agent: scriptedAgent({ planner: [plan('compute 6*7 and add 1'), final('43')], executor: [[calculatorCall('6*7'), calculatorCall('42+1'), { content: '43' }]] }, withCalculator()),
  },
  {
    name: 'tool-events-at-iteration-limit',
    question: 'What is 6*7, stopped at the tool call?',
    agent: scriptedAgent({ planner: [plan('compute 6*7'), final('42')], executor: [[calculatorCall('6*7')]] }, withCalculator()),
    params: { executor_max_iterations: 1 },
  },
);

// A step's start handed to its executor (`step_events`), the children kept: written with the first turn's text; handed on
// by a first turn that wrote nothing to its tool call and the next turn; one per agent type.
SCENARIOS.push(
  {
    name: 'step-start-with-executor-text',
    question: 'Answer at once, the step started with the text',
    agent: scriptedAgent({ planner: [plan('answer'), final('done')], executor: [[{ content: 'done' }]] }),
  },
  {
    name: 'step-start-handed-on-to-tool-call',
    question: 'What is 6*7, the step started with the call?',
    agent: scriptedAgent({ planner: [plan('compute 6*7'), final('42')], executor: [[calculatorCall('6*7'), { content: '42' }]] }, withCalculator()),
  },
  ...(['step_by_step', 'todo_list', 'plan_and_execute'] as const).map((type) => ({
    name: `${type.replace(/_/g, '-')}-step-start-handed`,
    question: 'sum 1..2, each step started by its executor',
    agent: typedAgent(type, 2),
  })),
);

// Runs that open in one activity, their first, which writes the run's first event: startRun without tools, describeTools with them; one per agent type.
SCENARIOS.push(
  {
    name: 'opens-in-one-activity',
    question: 'Answer at once, the run opened by startRun',
    agent: scriptedAgent({ planner: [plan('answer'), final('done')], executor: [[{ content: 'done' }]] }),
  },
  ...(['plan_execute_and_reflect', 'step_by_step', 'todo_list', 'plan_and_execute'] as const).map((type) => ({
    name: `${type.replace(/_/g, '-')}-opens-in-one-activity`,
    question: 'sum 1..1, the run opened by describeTools',
    agent: typedAgent(type, 1),
  })),
);
// A queued run opened so: its wait is its first activity.
SCENARIOS.push({ ...SCENARIOS.find((s) => s.name === 'queued-behind-earlier-run')!, name: 'queued-behind-earlier-run-opens-in-one-activity' });

// Recorded again since runs write their roots at their end: a fork (its link to the source in those roots) and a run continuing-as-new (the end in a later execution).
SCENARIOS.push(...['forked-from-step-3', 'continued-as-new'].map((name) => ({ ...SCENARIOS.find((s) => s.name === name)!, name: `${name}-roots-at-end` })));

// Steps as a user's planner writes them (one at a time, 60 characters, a tool call each), across continue-as-new: a step's
// text once in its child's input (the plan it starts goes by key), the flags `step_events` implies, a tool named as its type
// and an empty list of completed-step IDs left out, as an output's false flags and zero counts are.
const dayStep = (n: number) => `Count the flights from Beijing to Seattle departing on day ${n}`;
SCENARIOS.push({
  name: 'lean-step-inputs',
  question: 'How many flights from Beijing to Seattle on days 1 to 3?',
  params: { continue_as_new_after_events: 40 },
  agent: scriptedAgent(
    { planner: [...[1, 2, 3].map((n) => plan(dayStep(n))), final('6 flights')], executor: [1, 2, 3].map((n) => calculatorTurns(`${n}+0`, `${n} flights`)) },
    withCalculator(),
  ),
});

/** A priced two-step run whose first call reaches its dollar budget, raised by a person once it waits. */
function budgetRaised(name: string, question: string): Scenario {
  return {
    name,
    question,
    params: { max_cost_usd: 1e-8 },
    agent: pricedTwoSteps(),
    async interact(id, client) {
      await until(client, id, (p) => p.status === 'awaiting_budget');
      await raiseBudget(client, id, { usd: 1, by: 'reviewer' });
    },
  };
}

// A tool turn whose provider state (a thinking block, as Anthropic's) is kept in memory: the step's next turn's message says `carried`.
SCENARIOS.push({
  name: 'carried-turns',
  question: 'What is 6*7, thought through?',
  agent: scriptedAgent(
    {
      planner: [plan('compute 6*7'), final('42')],
      executor: [[{ tool_calls: [{ name: 'CalculatorTool', input: { expression: '6*7' } }], carry: [{ type: 'thinking', thinking: 'multiply', signature: 'c2ln' }] }, { content: '42' }]],
    },
    withCalculator(),
  ),
});

// A typed answer (`output_schema`): the typed-output call asked twice, its first reply not conforming.
SCENARIOS.push({
  name: 'typed-output',
  question: 'What is 6*7, as a number?',
  agent: {
    ...scriptedAgent({ planner: [plan('compute 6*7'), final('42')], executor: [calculatorTurns('6*7', '42')] }, withCalculator()),
    llm: { interface: 'scripted', script: { planner: [plan('compute 6*7'), final('42')], executor: [calculatorTurns('6*7', '42')], output: ['{"value": "42"}', '{"value": 42}'] } },
    output_schema: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
  },
});

/** A plan_execute_and_reflect agent with the calculator on a built-in model interface, its endpoint the wire server (at `path`). */
const wireAgent = (llm: Record<string, unknown>, path = '') => (url: string) => ({
  name: 'wire-agent',
  type: 'plan_execute_and_reflect',
  llm: { ...llm, base_url: `${url}${path}` },
  tools: [{ type: 'CalculatorTool' }],
});
const PLANNED = plan('compute 6*7 with the calculator');
const ANSWERED = final('The answer is 42.');

// Runs on each built-in interface through its SDK: plan, one tool call whose provider state the step's next turn carries, answer.
SCENARIOS.push(
  {
    // Extended thinking on the tool turn: its thinking block is carried to the step's next turn.
    name: 'anthropic-messages-run',
    question: 'What is 6 times 7, thinking?',
    agent: wireAgent({ interface: 'anthropic/v1/messages', model: 'claude-sonnet-4-6', parameters: { thinking: { type: 'enabled', budget_tokens: 2048 } } }),
    wire: {
      env: () => ({ ANTHROPIC_API_KEY: 'sk-ant-history', ANTHROPIC_BASE_URL: undefined }),
      replies: [
        streamedAnthropicMessage({ thinking: { parts: ['Plan it.'], signature: 'c2ln' }, text: [PLANNED] }),
        streamedAnthropicMessage({ thinking: { parts: ['I should multiply ', 'with the calculator.'], signature: 'RXFRQkNrWUlCeGdD' }, toolUses: [{ id: 'toolu_01A', name: 'CalculatorTool', inputParts: ['{"expression"', ':"6*7"}'] }] }),
        streamedAnthropicMessage({ text: ['6*7 ', 'is 42'] }),
        streamedAnthropicMessage({ text: [ANSWERED] }),
      ],
    },
  },
  {
    // A thought signature on the function call (which has no id): the turn's parts are carried to the step's next turn.
    name: 'gemini-run',
    question: 'What is 6 times 7, on Gemini?',
    agent: wireAgent({ interface: 'google/generate_content', model: 'gemini-2.5-flash' }),
    wire: {
      env: () => ({ GEMINI_API_KEY: 'gm-history', GOOGLE_API_KEY: undefined, GEMINI_BASE_URL: undefined }),
      replies: [
        streamedGeminiResponse({ text: [PLANNED] }),
        streamedGeminiResponse({ thoughts: ['I should use ', 'the calculator.'], calls: [{ name: 'CalculatorTool', args: { expression: '6*7' }, thoughtSignature: 'c2lnbmF0dXJl' }] }),
        streamedGeminiResponse({ text: ['6*7 ', 'is 42'] }),
        streamedGeminiResponse({ text: [ANSWERED] }),
      ],
    },
  },
  {
    // A reasoning item with encrypted content (store: false): carried to the step's next turn.
    name: 'openai-responses-run',
    question: 'What is 6 times 7, reasoned?',
    agent: wireAgent({ interface: 'openai/v1/responses', model: 'gpt-5' }, '/v1'),
    wire: {
      env: () => ({ OPENAI_API_KEY: 'sk-history', OPENAI_BASE_URL: undefined }),
      replies: [
        streamedResponse({ text: [PLANNED] }),
        streamedResponse({ reasoning: [{ id: 'rs_exec_1', encrypted: 'gAAAAB-history', summary: 'Use the calculator for 6*7.' }], functionCalls: [{ callId: 'call_calc_1', name: 'CalculatorTool', argumentParts: ['{"expression"', ':"6*7"}'] }] }),
        streamedResponse({ text: ['6*7 ', 'is 42'] }),
        streamedResponse({ text: [ANSWERED] }),
      ],
    },
  },
);

// Guardrails: the question passes its input guardrail; the answer fails an output one with retry, is revised once and passes.
SCENARIOS.push({
  name: 'guardrails-revised',
  question: 'What is 6*7? No secrets, please.',
  agent: {
    ...scriptedAgent({ planner: [plan('compute 6*7'), final('42, and the key is sk-test')], executor: [calculatorTurns('6*7', '42')] }, withCalculator()),
    llm: { interface: 'scripted', script: { planner: [plan('compute 6*7'), final('42, and the key is sk-test')], executor: [calculatorTurns('6*7', '42')], revision: ['42'] } },
    guardrails: { input: [{ not_contains: 'password', on_fail: 'stop' }], output: [{ not_regex: 'sk-[a-z]+', on_fail: 'retry' }] },
  },
});

// Guardrails that ask a person: the question fails its input guardrail and is let through; a tool's output (42) is withheld and the
// run let go on without it; the answer fails its output guardrail and a person stops the run (it ends tripped).
SCENARIOS.push({
  name: 'guardrail-ask',
  question: 'What is 6*7? My password is hunter2.',
  agent: {
    ...scriptedAgent({ planner: [plan('compute 6*7'), final('42')], executor: [calculatorTurns('6*7', '42')] }, withCalculator()),
    guardrails: {
      input: [{ not_contains: 'password', on_fail: 'ask' }],
      tool_output: [{ not_contains: '42', on_fail: 'ask' }],
      output: [{ not_regex: '\\d', on_fail: 'ask' }],
    },
  },
  async interact(id, client) {
    await until(client, id, awaiting('guardrail-1'));
    await approvePlan(client, id, { by: 'reviewer' });
    await until(client, id, awaiting('guardrail-2'));
    await approvePlan(client, id, { by: 'reviewer' });
    await until(client, id, awaiting('guardrail-3'));
    await rejectPlan(client, id, { reason: 'no figures in answers', by: 'reviewer' });
  },
});

// A remote A2A agent (./a2a-remote, started for the run) asks a question: it waits for a person as a tool decision, and the
// answer goes to the same remote task in a second callTool activity of the step.
SCENARIOS.push({
  name: 'a2a-input-required',
  question: 'Book me a flight',
  a2aRemote: true,
  agent: (url: string) =>
    scriptedAgent(
      { planner: [plan('ask the flight booker'), final('booked')], executor: [[{ tool_calls: [{ name: 'booker', input: { message: 'ask which city' } }] }, { content: 'booked' }]] },
      { tools: [{ type: 'A2AAgentTool', name: 'booker', parameters: { url } }] },
    ),
  async interact(id, client) {
    await until(client, id, awaiting('tool-1-1'));
    await approveTool(client, id, { input: { message: 'Seattle' }, by: 'reviewer' });
  },
});

// Online scoring: the run is sampled (sample 1) and starts its scoring as it ends, abandoning it.
// (online-scoring-llm-queue: the same with an LLM task queue, where its judges are scored.)
SCENARIOS.push({
  name: 'online-scoring',
  question: 'What is 6*7, scored?',
  agent: {
    ...scriptedAgent({ planner: [plan('compute 6*7'), final('42')], executor: [calculatorTurns('6*7', '42')] }, withCalculator()),
    scoring: { sample: 1, checks: [{ contains: '42' }] },
  },
});

SCENARIOS.push({
  name: 'online-scoring-llm-queue',
  question: 'What is 6*7, scored on the LLM queue?',
  llmQueue: true,
  agent: {
    ...scriptedAgent({ planner: [plan('compute 6*7'), final('42')], executor: [calculatorTurns('6*7', '42')], score: ['{"pass": true, "reason": "right"}'] }, withCalculator()),
    scoring: { sample: 1, checks: [{ contains: '42' }, { judge: 'It is right' }] },
  },
});
