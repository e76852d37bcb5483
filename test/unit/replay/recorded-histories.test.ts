/**
 * Replays every recorded history under test/fixtures/histories against the current workflow
 * code. A failure means a change would break executions already running in production: put it
 * behind `patched()` (see docs/contributing.md and docs/patches.md).
 */
import { relative, resolve } from 'node:path';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { SHARED_WORKFLOW_MODULES } from '../../../workers/workflow-source';
import { HISTORY_FILES as files, inWorkflowThread, readHistory, recordedHistories, recordedWorkflowId } from '../../support/replay';
import { REPLAY_SINKS } from '../../../workers/workflow-source';
import { workflowBundle } from '../../support/workflow-bundles';

let bundle: { code: string };
/** The replay of every recorded history, in file order: one replay worker for them all. */
let replays: ReplayResult[];
beforeAll(async () => {
  bundle = await workflowBundle('plain');
  replays = [];
  for await (const result of Worker.runReplayHistories(inWorkflowThread({ workflowBundle: bundle, sinks: REPLAY_SINKS }), recordedHistories())) replays.push(result);
}, 120_000);

describe('recorded histories', () => {
  it('include the representative runs', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'three-steps-with-tools.binpb',
        'three-steps-with-tools.step-1.binpb',
        // Planning answers whose text the run publishes (`tail_from`), one per agent type.
        'plan-execute-and-reflect-planning-text-by-run.binpb',
        'step-by-step-planning-text-by-run.binpb',
        'todo-list-planning-text-by-run.binpb',
        'plan-and-execute-planning-text-by-run.binpb',
        // A step's end handed to the planning call after it (`events_before`), one per agent type.
        'plan-execute-and-reflect-step-end-with-planning-text.binpb',
        'step-by-step-step-end-with-planning-text.binpb',
        'todo-list-step-end-with-planning-text.binpb',
        'plan-and-execute-step-end-with-planning-text.binpb',
        // Root interactions written once, at the run's end (`endRun`), one per agent type; failed, forked, continued-as-new.
        'plan-execute-and-reflect-roots-at-end.binpb',
        'step-by-step-roots-at-end.binpb',
        'todo-list-roots-at-end.binpb',
        'plan-and-execute-roots-at-end.binpb',
        'roots-at-end-failed.binpb',
        'forked-from-step-3-roots-at-end.binpb',
        'continued-as-new-roots-at-end.run-1.binpb',
        'continued-as-new-roots-at-end.run-4.binpb',
        // A tool call's events handed on to the step's next turn, and written by a step cut short.
        'tool-events-handed.step-1.binpb',
        'tool-events-at-iteration-limit.step-1.binpb',
        // A step's start handed to its executor: with its first text, on to its tool call; one per agent type.
        'step-start-with-executor-text.binpb',
        'step-start-with-executor-text.step-1.binpb',
        'step-start-handed-on-to-tool-call.step-1.binpb',
        'step-by-step-step-start-handed.step-1.binpb',
        'todo-list-step-start-handed.step-1.binpb',
        'plan-and-execute-step-start-handed.step-1.binpb',
        // Runs that open in one activity, their first: without tools, and one per agent type with them.
        'opens-in-one-activity.binpb',
        'plan-execute-and-reflect-opens-in-one-activity.binpb',
        'step-by-step-opens-in-one-activity.binpb',
        'todo-list-opens-in-one-activity.binpb',
        'plan-and-execute-opens-in-one-activity.binpb',
        'queued-behind-earlier-run-opens-in-one-activity.binpb',
        // Steps as a user's planner writes them: the step's text once in its child's input, a tool named as its type, across continue-as-new.
        'lean-step-inputs.run-1.binpb',
        'lean-step-inputs.run-2.binpb',
        'lean-step-inputs.step-2.binpb',
        'failed-step-replanned.binpb',
        'max-steps-reached.binpb',
        'malformed-planner-answer-retried.binpb',
        'planner-output-invalid.binpb',
        'continued-as-new.run-1.binpb',
        'continued-as-new.run-3.binpb',
        'mcp-tool.binpb',
        'mcp-tool.step-1.binpb',
        // A remote A2A agent's question answered by a person, on the same remote task (patched).
        'a2a-input-required.binpb',
        'a2a-input-required.step-1.binpb',
        // One per agent type besides plan_execute_and_reflect, with their children.
        'step-by-step-adaptive.binpb',
        'step-by-step-adaptive.step-2.binpb',
        'todo-list-goal-achieved.binpb',
        'todo-list-goal-achieved.step-1.binpb',
        'plan-and-execute-replanned.binpb',
        'plan-and-execute-replanned.step-1.binpb',
        // Each other agent type continuing-as-new on the run kernel, every execution.
        'step-by-step-continued-as-new.run-1.binpb',
        'step-by-step-continued-as-new.run-2.binpb',
        'todo-list-continued-as-new.run-1.binpb',
        'todo-list-continued-as-new.run-2.binpb',
        'todo-list-continued-as-new.step-1.binpb',
        'plan-and-execute-continued-as-new.run-1.binpb',
        'plan-and-execute-continued-as-new.run-2.binpb',
        // todo_list's final goal verification, step_by_step following `next` and re-asking a decision (patched).
        'todo-list-final-verification.binpb',
        'step-by-step-next-and-retry.binpb',
        'plan-and-execute-verified.binpb',
        // Static prompt material by reference (patched).
        'prompt-material-three-steps.binpb',
        'prompt-material-three-steps.step-1.binpb',
        'prompt-material-todo-list.step-1.binpb',
        // An eval: its case runs as children, each scored once it ends.
        'eval-suite.binpb',
        // Recorded before the `perflow-status-search-attribute` patch: must keep replaying.
        'before-status-patch.three-steps-with-tools.binpb',
        // Recorded before the run kernel (activity names by model, CAN and budget for every type).
        'before-one-engine.three-steps-with-tools.binpb',
        'before-one-engine.step-by-step-adaptive.binpb',
        'before-one-engine.todo-list-goal-achieved.todo-1.binpb',
        'before-one-engine.plan-and-execute-replanned.binpb',
        // todo_list runs from before its iterations ran on the kernel's step runner (a todo child each).
        'before-todo-kernel-steps.todo-list-goal-achieved.binpb',
        'before-todo-kernel-steps.todo-list-goal-achieved.todo-1.binpb',
        'before-todo-kernel-steps.todo-list-continued-as-new.run-2.binpb',
        'before-todo-kernel-steps.todo-list-continued-as-new.todo-4.binpb',
        'before-todo-kernel-steps.step-memory-todo-list.todo-1.binpb',
        // People in the loop: every kind of decision, and decisions by approval_timeout.
        'decisions-plan-execute-reflect.binpb',
        'decisions-plan-execute-reflect.step-1.binpb',
        'decisions-plan-execute-reflect.step-2.binpb',
        'decisions-plan-and-execute-timeout.binpb',
        'decisions-plan-and-execute-timeout.step-1.binpb',
        // A run that waited at its dollar budget until a person raised it.
        'decisions-budget.binpb',
        'decisions-budget.step-1.binpb',
        'decisions-budget.step-2.binpb',
        // The same run once the budget is checked before each step: it waited before step 1.
        'budget-before-step.binpb',
        'budget-before-step.step-1.binpb',
        'budget-before-step.step-2.binpb',
        // A run whose executor child waited at its tenant's daily cap until budget set raised it.
        'tenant-budget.binpb',
        'tenant-budget.step-1.binpb',
        'tenant-budget.step-2.binpb',
        // Two steps as concurrent children.
        'parallel-steps.binpb',
        'parallel-steps.step-1.binpb',
        'parallel-steps.step-2.binpb',
        'plan-and-execute-depends-on.binpb',
        'plan-and-execute-depends-on.step-1.binpb',
        'plan-and-execute-depends-on.step-2.binpb',
        // A forked run (steps 1–2 reused from its source's memory).
        'forked-from-step-3.binpb',
        'plan-and-execute-forked-from-step-3.binpb',
        'plan-and-execute-forked-from-step-3.step-4.binpb',
        // Unreadable assessments asked again (patched).
        'plan-and-execute-assessments-asked-again.binpb',
        'todo-list-assessments-asked-again.binpb',
        // Executor children that take step memory by their input, without a patch marker.
        'executor-step-memory-by-input.binpb',
        'executor-step-memory-by-input.step-1.binpb',
        'executor-step-memory-by-input.step-2.binpb',
        // An agent tree: sub-agents' runs (children of the steps that called them) and their steps, three levels.
        'agent-tree.binpb',
        'agent-tree.step-1.binpb',
        'agent-tree.step-1.agent-1.binpb',
        'agent-tree.step-1.agent-1.step-1.binpb',
        'agent-tree.step-1.agent-1.step-1.agent-1.binpb',
        'agent-tree.step-1.agent-1.step-1.agent-1.step-1.binpb',
        'agent-tree.step-2.agent-1.binpb',
        // A second message to a busy conversation: queued behind the earlier run; interrupted by a newer one.
        'queued-behind-earlier-run.binpb',
        'queued-behind-earlier-run.step-1.binpb',
        'interrupted-by-newer-message.binpb',
        'interrupted-by-newer-message.step-1.binpb',
        // Prompts compacted to fit a small context window (in the model activities: the commands are a plain run's).
        'context-compacted.binpb',
        'context-compacted.step-1.binpb',
        // Long runs continuing-as-new past 50 steps: plan_and_execute stores its earlier steps' prompt lines, then carries the latest; the executions around it.
        'plan-and-execute-earlier-steps.run-6.binpb',
        'plan-and-execute-earlier-steps.run-7.binpb',
        'step-by-step-earlier-results.run-14.binpb',
        'todo-list-earlier-results.run-19.binpb',
        // A run on each built-in model interface through its SDK, its tool turn's provider state carried.
        'anthropic-messages-run.binpb',
        'anthropic-messages-run.step-1.binpb',
        'gemini-run.binpb',
        'gemini-run.step-1.binpb',
        'openai-responses-run.binpb',
        'openai-responses-run.step-1.binpb',
      ]),
    );
  });

  it('are replayed by workflow code whose every perflow module outside workflows/ is shared among workflows', () => {
    // A core module not shared is evaluated again for every workflow a worker runs (memory and CPU per step).
    const root = resolve(__dirname, '..', '..', '..');
    const bundled = [...bundle.code.matchAll(/^\/\*\*\*\/ "\.\/((?!node_modules\/|workflows\/)[^"]+)"/gm)].map((m) => m[1]);
    const shared = SHARED_WORKFLOW_MODULES.filter((m) => m.startsWith(root)).map((m) => relative(root, m));
    expect(bundled.length).toBeGreaterThan(10);
    expect(bundled.filter((m) => !shared.includes(m))).toEqual([]);
  });

  it('hold executor children without a patch marker or search-attribute upsert once the parent says they take step memory', () => {
    const eventsOf = (file: string) => readHistory(file).events ?? [];
    const patchEvents = (file: string) => eventsOf(file).filter((e) => e.markerRecordedEventAttributes || e.upsertWorkflowSearchAttributesEventAttributes).length;
    expect(patchEvents('step-memory-three-steps.step-1.binpb')).toBe(2);
    expect(patchEvents('executor-step-memory-by-input.step-1.binpb')).toBe(0);
    expect(eventsOf('executor-step-memory-by-input.step-1.binpb').filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(3);
  });

  it('hold todo_list iterations as the kernel\'s executor children, told to take step memory, and no todo children', () => {
    const eventsOf = (file: string) => readHistory(file).events ?? [];
    const children = eventsOf('todo-list-goal-achieved.binpb').flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
    expect(children.map((c) => [c.workflowType?.name, c.workflowId])).toEqual([1, 2, 3].map((n) => ['reactExecutor', `history-todo-list-goal-achieved/step-${n}`]));
    const before = eventsOf('before-todo-kernel-steps.todo-list-goal-achieved.binpb').flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name ?? []);
    expect(before).toEqual(['todoExecutor', 'todoExecutor']);
    expect(eventsOf('todo-list-goal-achieved.step-1.binpb').filter((e) => e.markerRecordedEventAttributes)).toHaveLength(0);
  });

  it('replay a child told to take step memory whose patch marker a worker from before the flag recorded (a rolling upgrade)', async () => {
    const history = readHistory('step-memory-three-steps.step-1.binpb');
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    payload.data = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload.data!).toString()), step_memory: true }));
    await Worker.runReplayHistory(inWorkflowThread({ workflowBundle: bundle, sinks: REPLAY_SINKS }), history, 'history-step-memory-three-steps/step-1');
  });

  it('hold every kind of decision a person takes', () => {
    const events = readHistory('decisions-plan-execute-reflect.binpb').events ?? [];
    const updates = events.flatMap((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? []);
    expect(updates).toEqual(['decidePlan', 'decidePlan', 'pause', 'decideTool', 'guide', 'resume', 'decidePlan', 'decideTool']);
    const signals = events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
    expect(signals).toEqual(['toolApprovalRequest', 'toolApprovalRequest']);
    const timers = readHistory('decisions-plan-and-execute-timeout.binpb').events ?? [];
    expect(timers.filter((e) => e.timerFiredEventAttributes)).toHaveLength(2); // the plan's and the tool call's timeout
    const budget = readHistory('decisions-budget.binpb').events ?? [];
    expect(budget.flatMap((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? [])).toEqual(['raiseBudget']);
    const beforeStep = readHistory('budget-before-step.binpb').events ?? [];
    const raised = beforeStep.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    const firstChild = beforeStep.findIndex((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
    expect(raised).toBeGreaterThan(0);
    expect(firstChild).toBeGreaterThan(raised);
    const tenant = readHistory('tenant-budget.binpb').events ?? [];
    expect(tenant.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? [])).toEqual(['tenantWaitRequest', 'tenantCap']);
    const child = readHistory('tenant-budget.step-1.binpb').events ?? [];
    expect(child.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? [])).toEqual(['tenantWaitAnswer']);
  });

  it("hold an agent tree: a sub-agent's run is a child of the step that called it, announced once it started and recorded once it ended", () => {
    const step = readHistory('agent-tree.step-1.binpb').events ?? [];
    const what = step.flatMap((e) => {
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
      if (child) return [`start ${child.workflowType?.name} ${child.workflowId}`];
      if (e.childWorkflowExecutionStartedEventAttributes) return ['child started'];
      if (e.childWorkflowExecutionCompletedEventAttributes) return ['child completed'];
      return e.activityTaskScheduledEventAttributes?.activityType?.name ?? [];
    });
    expect(what).toEqual(['executionModel', 'start planAndExecute history-agent-tree/step-1/agent-1', 'child started', 'agentToolStarted', 'child completed', 'agentToolEnded', 'executionModel']);
    // What the call adds to the step's history: 3 events of the child, 3 of each activity, and the workflow tasks between them.
    expect(step).toHaveLength(38);
    const grandchild = readHistory('agent-tree.step-1.agent-1.step-1.binpb').events ?? [];
    expect(grandchild.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [])).toEqual(['history-agent-tree/step-1/agent-1/step-1/agent-1']);
  });

  it('hold a queued run that waited before it touched memory, and an interrupted run that kept its work so far', () => {
    const eventsOf = (file: string) => readHistory(file).events ?? [];
    const activities = (file: string) => eventsOf(file).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities('queued-behind-earlier-run.binpb').slice(0, 3)).toEqual(['waitForRuns', 'describeTools', 'startRun']);
    const upserts = eventsOf('queued-behind-earlier-run.binpb').filter((e) => e.upsertWorkflowSearchAttributesEventAttributes);
    expect(upserts.length).toBeGreaterThanOrEqual(2); // queued, then running (then completed)
    const interrupted = eventsOf('interrupted-by-newer-message.binpb');
    expect(interrupted.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? [])).toEqual(['interrupt']);
    const finish = interrupted.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'finishRun');
    expect(finish).toHaveLength(1);
    const input = JSON.parse(Buffer.from(finish[0].activityTaskScheduledEventAttributes!.input!.payloads![0].data!).toString()) as Record<string, unknown>;
    expect(input).toMatchObject({ interrupted_by: 'history-interrupted-by-newer-message-newer' });
    expect(input.response).toMatch(/^\(Interrupted by a newer message after 1 step\.\)\nCompleted so far:\n- /);
    expect(interrupted.at(-1)?.workflowExecutionCanceledEventAttributes).toBeTruthy();
  });

  it.each([
    ['anthropic-messages-run', 'anthropic/v1/messages'],
    ['gemini-run', 'google/generate_content'],
    ['openai-responses-run', 'openai/v1/responses'],
  ])('hold a step of %s whose tool turn carried its provider state to the next turn (on %s)', (run, modelInterface) => {
    const payloads = (readHistory(`${run}.step-1.binpb`).events ?? []).flatMap((e) => [e.activityTaskScheduledEventAttributes?.input, e.activityTaskCompletedEventAttributes?.result]);
    const texts = payloads.flatMap((p) => p?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString());
    expect(texts.filter((t) => t.includes(`"interface":"${modelInterface}"`))).toHaveLength(2);
    expect(texts.filter((t) => t.includes('"carried":true'))).toHaveLength(2); // the tool turn's result, and that turn in the next turn's input
  });

  it.each(files.map((file, i) => [file, i] as const))('replay deterministically: %s', (file, i) => {
    expect(replays[i]?.workflowId).toBe(recordedWorkflowId(file));
    if (replays[i]!.error) throw replays[i]!.error;
  });
});
