/** Memory activities: what the workflows write to and read from conversation memory. */
import { ApplicationFailure } from '@temporalio/activity';
import type { PromptMaterial } from '../core/activity-contract';
import type { DecisionRecord } from '../core/decisions';
import type { CompletedStep } from '../core/template';
import { executorStepId, stepTraceId, toolCallId, type MemoryIds, type ToolCallPlace } from '../core/memory-ids';
import type { MemoryStore, SubRunLink } from '../stores/store';
import { createRunMemoryActivities, tenantOf, type RunMemoryOptions } from './run-memory';

export { stepTraceId, toolCallId, type MemoryIds, type ToolCallPlace };
export type { RunEnd, RunOutcome, StartRunInput } from './run-memory';

/** Records a tool call (with its whole output) under its executor step. */
export async function saveToolCall(
  store: MemoryStore,
  place: ToolCallPlace,
  call: { name: string; input: Record<string, unknown>; output: string; is_error: boolean; sub_run?: SubRunLink },
): Promise<void> {
  await store.upsertInteraction(
    {
      interaction_id: toolCallId(place),
      memory_id: place.ids.executor_agent_memory_id,
      ...tenantOf(place.ids),
      parent_interaction_id: executorStepId(place.ids, place.stepIndex),
      input: JSON.stringify(call.input),
      response: call.output,
      origin: 'tool',
      trace_number: place.callIndex + 1,
      step_index: place.stepIndex,
      tool_name: call.name,
      ...(call.sub_run ? { sub_run: call.sub_run } : {}),
      ...(call.is_error ? { error: call.output.slice(0, 2_000) } : {}),
    },
    new Date(),
  );
}

/** Which of the executor's earlier steps a step shows its model. */
export interface ExecutorHistoryQuery {
  executor_agent_memory_id: string;
  limit: number;
  before_step: number;
  ids: MemoryIds;
}

/**
 * The executor's earlier steps in this conversation, oldest first (at most `limit`): this
 * run's steps before `before_step` by their IDs; earlier runs' too when the executor memory
 * is older than the run (a continued conversation).
 */
export async function loadExecutorHistory(store: MemoryStore, input: ExecutorHistoryQuery, reads: ExecutorHistoryReads = directReads(store)): Promise<CompletedStep[]> {
  if (input.limit <= 0) return [];
  const first = Math.max(0, input.before_step - input.limit);
  const own = (await reads.steps(Array.from({ length: input.before_step - first }, (_, i) => executorStepId(input.ids, first + i)))).filter((s) => s !== null);
  if (own.length < input.limit && (await reads.firstRun(input.executor_agent_memory_id)) !== input.ids.executor_agent_parent_interaction_id) {
    return conversationExecutorHistory(store, input);
  }
  return own.slice(-input.limit);
}

/** How {@link loadExecutorHistory} reads steps by ID and the run that created an executor memory (the worker caches both). */
export interface ExecutorHistoryReads {
  steps(ids: readonly string[]): Promise<(CompletedStep | null)[]>;
  firstRun(executorMemoryId: string): Promise<string | undefined>;
}

/** Reads straight from memory. */
export function directReads(store: MemoryStore): ExecutorHistoryReads {
  return {
    steps: async (ids) => (await store.findInteractions(ids)).map((d) => (d ? { step: d.input, result: d.response } : null)),
    firstRun: async (id) => (await store.memory(id))?.first_run,
  };
}

/** The last `limit` executor steps of the whole executor memory, whichever run made them (a query over the memory). */
async function conversationExecutorHistory(store: MemoryStore, input: ExecutorHistoryQuery): Promise<CompletedStep[]> {
  const docs = await store.interactions
    .find({ memory_id: input.executor_agent_memory_id, origin: 'executor', step_index: { $exists: true } })
    .sort({ created: -1 })
    .limit(input.limit + 1)
    .toArray();
  // A retried load must not see the current step's own record.
  const current = executorStepId(input.ids, input.before_step);
  return docs
    .filter((d) => d._id !== current)
    .slice(0, input.limit)
    .reverse()
    .map((d) => ({ step: d.input, result: d.response }));
}

/** An executed step as memory keeps it. */
export interface StepRecord {
  ids: MemoryIds;
  stepIndex: number;
  step: string;
  result: string;
}

/**
 * Saves an executed step in one command: the trace under the run's root interaction, and the
 * executor's own record (both idempotent). Returns their IDs.
 */
export async function saveStep(store: MemoryStore, { ids, stepIndex, step, result }: StepRecord): Promise<string[]> {
  const record = { input: step, response: result, trace_number: stepIndex + 1, step_index: stepIndex, ...tenantOf(ids) };
  await store.upsertInteractions(
    [
      { ...record, interaction_id: stepTraceId(ids.parent_interaction_id, stepIndex), memory_id: ids.memory_id, parent_interaction_id: ids.parent_interaction_id, origin: 'planner' },
      {
        ...record,
        interaction_id: executorStepId(ids, stepIndex),
        memory_id: ids.executor_agent_memory_id,
        parent_interaction_id: ids.executor_agent_parent_interaction_id,
        origin: 'executor',
      },
    ],
    new Date(),
  );
  return [stepTraceId(ids.parent_interaction_id, stepIndex), executorStepId(ids, stepIndex)];
}

/** The interaction ID of a run's n-th decision (0-based). */
export const decisionId = (parentInteractionId: string, index: number) => `${parentInteractionId}:decision-${index + 1}`;

/** Records a person's decision under the run's root interaction (idempotent: keyed by its position). */
export async function recordDecision(store: MemoryStore, { ids, index, decision }: { ids: MemoryIds; index: number; decision: DecisionRecord }): Promise<void> {
  const { detail, kind, action, by, at, after_steps, decision_id } = decision;
  await store.upsertInteraction(
    {
      interaction_id: decisionId(ids.parent_interaction_id, index),
      memory_id: ids.memory_id,
      ...tenantOf(ids),
      parent_interaction_id: ids.parent_interaction_id,
      input: `${kind}: ${action}`,
      response: detail ?? '',
      origin: 'reviewer',
      trace_number: null,
      decision: { kind, action, by, at, after_steps, ...(decision_id !== undefined ? { decision_id } : {}) },
    },
    new Date(),
  );
}

/** What a forked run copies: the source run's first `count` steps, and where it was forked from. */
export interface ForkCopy {
  from: MemoryIds;
  to: MemoryIds;
  count: number;
  forked_from: { workflow_id: string; step: number };
  /** The fork writes its root interactions, link included, when it ends: none to link now. */
  roots_at_end?: boolean;
}

/**
 * Copies the source run's first `count` steps into a forked run's memory under the fork's own
 * IDs — the planner traces, the executor step records and their tool calls — and links the
 * fork's root interactions to the source (`forked_from`). Idempotent: every copy is an upsert
 * by the fork's IDs.
 */
export async function copyForkedSteps(store: MemoryStore, { from, to, count, forked_from, roots_at_end }: ForkCopy): Promise<void> {
  if (count > 0) {
    const units = Array.from({ length: count }, (_, i) => i);
    const sourceIds = units.flatMap((i) => [stepTraceId(from.parent_interaction_id, i), executorStepId(from, i)]);
    const docs = (await store.findInteractions(sourceIds)).filter((d) => d !== null);
    const calls = await store.interactions.find({ parent_interaction_id: { $in: units.map((i) => executorStepId(from, i)) } }).toArray();
    const missing = sourceIds.filter((id) => !docs.some((d) => d._id === id));
    if (missing.length > 0) throw ApplicationFailure.nonRetryable(`the source run's steps are not in memory: ${missing.join(', ')}`, 'Memory.NotFound');
    const copy = (d: (typeof docs)[number], interaction_id: string, memory_id: string, parent_interaction_id: string) => {
      const { _id, created: _c, updated: _u, ...rest } = d;
      return { ...rest, ...tenantOf(to), interaction_id, memory_id, parent_interaction_id, forked_from: { ...forked_from, interaction_id: _id } };
    };
    const copies = docs.map((d) =>
      d.origin === 'planner'
        ? copy(d, stepTraceId(to.parent_interaction_id, d.step_index!), to.memory_id, to.parent_interaction_id)
        : copy(d, executorStepId(to, d.step_index!), to.executor_agent_memory_id, to.executor_agent_parent_interaction_id),
    );
    const toolCopies = calls.map((c) =>
      copy(c, toolCallId({ ids: to, stepIndex: c.step_index!, callIndex: (c.trace_number ?? 1) - 1 }), to.executor_agent_memory_id, executorStepId(to, c.step_index!)),
    );
    await store.upsertInteractions([...copies, ...toolCopies], new Date());
  }
  if (!roots_at_end) await store.interactions.updateMany({ _id: { $in: [to.parent_interaction_id, to.executor_agent_parent_interaction_id] } }, { $set: { forked_from } });
}

export function createMemoryActivities(store: MemoryStore, o: RunMemoryOptions = {}) {
  return {
    ...createRunMemoryActivities(store, o),

    /** The executor's earlier steps in this conversation, oldest first. */
    loadExecutorHistory: (input: ExecutorHistoryQuery) => loadExecutorHistory(store, input),

    /** Saves an executed step: the trace under the root interaction, and the executor's own record. */
    saveStep: async (input: StepRecord): Promise<void> => void (await saveStep(store, input)),

    /** The whole result of an executed step, as saved by {@link saveStep} ('' when there is none). */
    async stepResult(input: { ids: MemoryIds; stepIndex: number }): Promise<string> {
      const [doc] = await store.interactionsByIds([stepTraceId(input.ids.parent_interaction_id, input.stepIndex)]);
      return doc?.response ?? '';
    },

    /** Copies a source run's first steps into a forked run's memory (see {@link copyForkedSteps}). */
    copyForkedSteps: (input: ForkCopy) => copyForkedSteps(store, input),

    /** Records a person's decision (who, what, when) under the run's root interaction. */
    recordDecision: (input: { ids: MemoryIds; index: number; decision: DecisionRecord }) => recordDecision(store, input),

    /** Stores a part of a long run's earlier steps (the texts its prompts show of them) before it continues-as-new without them. */
    async saveEarlierSteps(input: { id: string; texts: Record<string, string>; tenant_id?: string }): Promise<void> {
      await store.saveEarlierSteps(input.id, input.texts, new Date(), input.tenant_id);
    },

    /** Stores the run's static prompt material once, under the ID the workflow chose. */
    async savePromptMaterial(input: { id: string; material: PromptMaterial; tenant_id?: string }): Promise<void> {
      await store.savePromptMaterial(input.id, input.material, new Date(), input.tenant_id);
    },

  };
}

export type MemoryActivities = ReturnType<typeof createMemoryActivities>;
