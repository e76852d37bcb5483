/**
 * All I/O of perflow runs here. `createActivities(deps)` receives its dependencies so the
 * worker hands in real ones and tests hand in scripted or real ones: this is the table of
 * activities (the names workflows schedule) over the worker's caches. The work lives in
 * model-calls.ts, tool-calls.ts, worker-caches.ts, llm/, tools/, memory.ts, run-events.ts,
 * tenant-budgets.ts, eval.ts and policy.ts (the worker policy).
 */
import type { AgentTool, AgentToolRef, ExecutorCallInput, PlannerCallInput, PlannerPromptRef, ToolCallInput, ToolObservation } from '../core/activity-contract';
import type { TenantBudgets } from '../stores/tenant-budgets';
import { createEvalActivities } from './eval';
import { createMemoryActivities } from './memory';
import { executionModel, planningModel } from './model-calls';
import { typedOutput } from './typed-output';
import { checkGuardrails, type GuardrailInput } from './guardrails';
import type { TypedOutputInput } from '../core/activity-contract';
import { openTenantBudgets } from './tenant-budgets';
import { agentToolEnded, agentToolStarted, callTool, describeTools, type AgentToolCallRecord, type ToolCallDeps } from './tool-calls';
import type { ChatDeps } from './llm/chat';
import { waitForRuns } from './run-order';
import { withRunEvents } from './run-events';
import { tenantOf, type RunEnd, type StartRunInput } from './run-memory';
import { sendWebhook, type SendWebhookInput } from './webhooks';
import { scoreRun, type ScoreRunInput } from './scoring';
import { carriedTurnCache, completedStepCache, earlierStepsCache, executorHistoryCache, promptMaterialCache, toolAnswerCache } from './worker-caches';

export { MODEL_ACTIVITY_NAMES } from './model-calls';
export { TOOL_OUTPUT_MODEL_LIMIT } from './tool-calls';
export { completedStepCache, executorHistoryCache, promptMaterialCache } from './worker-caches';

export type ActivityDeps = ChatDeps & ToolCallDeps;

export type { AgentTool, AgentToolRef, ExecutorCallInput, PlannerCallInput, PlannerPromptRef, ToolCallInput, ToolObservation };

export function createActivities(activityDeps: ActivityDeps) {
  const completedSteps = completedStepCache(activityDeps.memory);
  let budgets: TenantBudgets | undefined;
  const deps = {
    ...activityDeps,
    prompts: promptMaterialCache(activityDeps.memory),
    earlierSteps: earlierStepsCache(activityDeps.memory),
    toolAnswers: toolAnswerCache(),
    executorHistory: executorHistoryCache(activityDeps.memory, completedSteps),
    carriedTurns: carriedTurnCache(activityDeps.memory),
    completedSteps,
    // Opened on the first call of a run with a tenant.
    tenantBudgets: () => (budgets ??= openTenantBudgets(activityDeps.memory.db)),
  };
  const memory = createMemoryActivities(deps.memory, { requireTenant: deps.policy?.requireTenant ?? false, executorMemoryCreated: deps.executorHistory.created });
  /** Stores the run's static prompt material once; this worker's model calls then read it from its cache. */
  const savePromptMaterial = async (input: Parameters<typeof memory.savePromptMaterial>[0]): Promise<void> => {
    await memory.savePromptMaterial(input);
    deps.prompts.remember(input.id, input.material);
  };
  return {
    ...memory,
    savePromptMaterial,
    /** Opens a run: its memories, its prompt material, and (as its first activity) its stream's first event. */
    startRun: (input: StartRunInput) =>
      withRunEvents(deps.events, { opening: input.opening }, async () => {
        const started = await memory.startRun(input);
        if (input.material) await savePromptMaterial({ id: input.material.id, material: { ...input.material.material, memory_id: input.ids.memory_id }, ...tenantOf(input.ids) });
        return started;
      }),
    /** Writes the run's roots with its answer, then (as its last activity) the events that end its stream. */
    endRun: (input: RunEnd) => withRunEvents(deps.events, { closing: input.closing }, () => memory.endRun(input)),
    ...createEvalActivities(deps),

    /** The tools an agent may use: what the model sees (name, description, JSON schema) and how to run each. */
    describeTools: (input: Parameters<typeof describeTools>[1]) => describeTools(deps, input),

    /** A planning-model call: the planner of plan_execute_and_reflect, the planning model of the other agent types. */
    planningModel: (input: PlannerCallInput) => planningModel(deps, input),
    /** An execution-model call: a ReAct turn with tools, or a decision / assessment prompt. */
    executionModel: (input: ExecutorCallInput) => executionModel(deps, input),
    /** The run's answer as the typed value of its `output_schema`. */
    typedOutput: (input: TypedOutputInput) => typedOutput(deps, input),
    /** A text (the question or the answer) scored by the agent's guardrails. */
    checkGuardrails: (input: GuardrailInput) => checkGuardrails(deps, input),
    /** `planningModel` under the name runs recorded before the rename schedule (they replay with it). */
    plannerLlm: (input: PlannerCallInput) => planningModel(deps, input),
    /** `executionModel` under the name runs recorded before the rename schedule. */
    executorLlm: (input: ExecutorCallInput) => executionModel(deps, input),

    /** Runs one tool call; bad input and tool errors become observations the model can act on. */
    callTool: (input: ToolCallInput) => callTool(deps, input),
    /** An agent tool's call about to start its sub-agent's run: published on the run's stream. */
    agentToolStarted: (input: AgentToolCallRecord) => agentToolStarted(deps, input),
    /** An agent tool's call ended: saved in memory with its sub-run, published; the answer as the model sees it. */
    agentToolEnded: (input: AgentToolCallRecord & ToolObservation) => agentToolEnded(deps, input),

    /** One signed POST of a run's end to its webhook (see webhooks.ts). */
    sendWebhook: (input: SendWebhookInput) => sendWebhook(deps, input),
    /** An ended run scored by its agent's `scoring` checks, the score saved (see scoring.ts). */
    scoreRun: (input: ScoreRunInput) => scoreRun(deps, input),

    /** A queued run waits for the earlier runs of its conversation to end (see run-order.ts), its first event written as it starts. */
    waitForRuns: (input: Parameters<typeof waitForRuns>[0]) => withRunEvents(deps.events, { opening: input.opening }, () => waitForRuns(input)),
  };
}

export type Activities = ReturnType<typeof createActivities>;
