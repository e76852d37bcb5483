/**
 * Every activity as workflow code calls it: one preset (timeouts, retries, task queue) per kind,
 * declared once.
 *
 * Model calls are `planningModel` (the planner, the planning model of the other agent types)
 * and `executionModel` (ReAct turns, decisions and assessments of the execution model). Runs
 * recorded before these names called everything through `plannerLlm` / `executorLlm`; those
 * stay registered, and the `activity-names-by-model` patch picks the names, so old histories
 * replay with theirs.
 */
import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { AgentToolRef } from '../../core/activity-contract';
import { toolTimeoutSeconds } from '../../core/tool-types';
import type { MemoryActivities } from '../../activities/memory';

export const ACTIVITY_NAMES_PATCH = 'activity-names-by-model';

/** Retries cover provider outages of a few minutes; non-retryable errors (bad key, unknown model) fail at once. */
const MODEL_CALL = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
} as const;

/** The max-steps / budget summary is a courtesy: one quick retry, then a plain listing. */
const SUMMARY_CALL = { startToCloseTimeout: '2 minutes', retry: { initialInterval: '1 second', maximumAttempts: 2 } } as const;

/**
 * The model activities, on the LLM task queue when the run has one (`llm_task_queue`, served by
 * workers with a fleet-wide rate limit on model calls). `renamed`: the caller knows the history
 * is newer than the rename (it passed a later patch), so no marker is recorded for it.
 */
export function modelActivities(taskQueue?: string, renamed = false) {
  const queue = taskQueue ? { taskQueue } : {};
  const calls = proxyActivities<Activities>({ ...queue, ...MODEL_CALL });
  const summary = proxyActivities<Activities>({ ...queue, ...SUMMARY_CALL });
  const byModel = () => renamed || patched(ACTIVITY_NAMES_PATCH);
  return {
    /** A planning-model call: prompt (or prompt reference) in, text out. */
    planning: () => (byModel() ? calls.planningModel : calls.plannerLlm),
    /** An execution-model call: a chat turn (with tools) in, a chat response out. */
    execution: () => (byModel() ? calls.executionModel : calls.executorLlm),
    /**
     * An execution model's one-prompt call (decision, assessment). Before the rename these went
     * through `plannerLlm`, so without the patch they still do.
     */
    executionPrompt: () => (byModel() ? { kind: 'execution' as const, call: calls.executionModel } : { kind: 'legacy' as const, call: calls.plannerLlm }),
    summary: () => (byModel() ? summary.planningModel : summary.plannerLlm),
    /** The run's answer as the typed value of its `output_schema` (a new activity: no older name). */
    output: () => calls.typedOutput,
    /** A text scored by the agent's guardrails (judges call the model: on the LLM task queue too). */
    guardrails: () => calls.checkGuardrails,
  };
}

export type ModelActivities = ReturnType<typeof modelActivities>;

/**
 * Memory: a database outage is waited out — retries never stop (capped backoff) except for
 * non-retryable failures such as an unknown memory_id.
 */
export const memoryActivities = proxyActivities<MemoryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/**
 * A run queued behind earlier runs of its conversation waits as long as they take (days, when
 * they wait for people); a worker crash costs one heartbeat timeout, then the wait goes on.
 */
export const runOrderActivities = proxyActivities<Pick<Activities, 'waitForRuns'>>({
  startToCloseTimeout: '365 days',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Tool-call attempts for infrastructure errors (recording the output in memory), about ten minutes of outage. */
export const TOOL_CALL_ATTEMPTS = 20;

/**
 * A tool call. Tool errors and the tool's own timeout (`timeout_seconds`) come back as
 * observations, so the activity's timeout follows the tool's with a margin, and what fails the
 * activity is infrastructure: retried a bounded number of times, then the step fails.
 */
export function toolCall(ref: AgentToolRef) {
  return proxyActivities<Activities>({
    startToCloseTimeout: `${toolTimeoutSeconds(ref.parameters) + 60} seconds`,
    heartbeatTimeout: '15 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: TOOL_CALL_ATTEMPTS },
  }).callTool;
}

/** Listing MCP servers' tools may need a server to start: a few retries, then fail clearly. */
export const { describeTools } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** An agent tool's call records (the stream and memory around a sub-agent's run): a database outage is waited out. */
export const { agentToolStarted, agentToolEnded } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});
