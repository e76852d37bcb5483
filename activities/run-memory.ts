/**
 * A run's start and end in memory: its planner and executor memories at its start, its root
 * interactions (question and answer) at its end.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { MemoryIds } from '../core/memory-ids';
import type { PromptMaterial } from '../core/activity-contract';
import type { KeyedRunEvents, StreamOpening } from '../core/run-events';
import { otherTenantMessage, type InteractionDoc, type MemoryStore } from '../stores/store';
import { TENANT_REQUIRED } from '../core/worker-policy';

export interface StartRunInput {
  ids: MemoryIds;
  question: string;
  app_type: string;
  /** The run continues an existing conversation (the user passed memory_id). */
  resume: boolean;
  message_history_limit: number;
  /** `executor_agent_id`: stored on the executor memory as its `agent_id`. */
  executor_agent_id?: string;
  /** The run writes its root interactions when it ends ({@link RunEnd}), not here (absent in runs recorded before: here). */
  roots_at_end?: boolean;
  /** The run's prompt material, stored with its start under this ID (runs recorded before stored it in an activity of its own). */
  material?: { id: string; material: PromptMaterial };
  /** The run's first event and its stream's head, written as the activity starts (when it is the run's first activity). */
  opening?: StreamOpening;
}

/** How a run ended, as its root interactions keep it. */
export interface RunOutcome {
  ids: MemoryIds;
  response: string;
  /** The run failed: its response becomes `Agent execution failed: <error>`. */
  error?: string;
  /** A newer message interrupted the run (that run's workflow ID); its response is the work so far. */
  interrupted_by?: string;
}

/** A run's end when it writes its root interactions then: what they hold besides the answer. */
export interface RunEnd extends RunOutcome {
  question: string;
  /** When the run started (ISO 8601): the roots' creation time, which orders the conversation's runs. */
  started_at: string;
  forked_from?: { workflow_id: string; step: number };
  /** The run's last events (`run_finished` with what the run held before it): written once the roots are, and the stream archived. */
  closing?: KeyedRunEvents;
}

/** The tenant stamp of every document a run writes. */
export const tenantOf = (ids: MemoryIds) => (ids.tenant_id !== undefined ? { tenant_id: ids.tenant_id } : {});

/** What the worker tells the run memory activities: whether runs need a tenant, and who wants to know which run created an executor memory. */
export interface RunMemoryOptions {
  requireTenant?: boolean;
  executorMemoryCreated?: (id: string, firstRun: string) => void;
}

/** The response a run's roots keep: its answer, or its failure. */
const responseOf = (o: RunOutcome) => (o.error === undefined ? o.response : `Agent execution failed: ${o.error}`);

/** A run's two root interactions: the planner memory's (the user's question) and the executor memory's. */
function rootsOf(ids: MemoryIds, question: string, response: string, marks: Pick<InteractionDoc, 'error' | 'interrupted_by' | 'forked_from'> = {}): Omit<InteractionDoc, '_id' | 'created' | 'updated'>[] {
  const root = { input: question, response, trace_number: null, parent_interaction_id: null, ...tenantOf(ids), ...marks };
  return [
    { ...root, interaction_id: ids.parent_interaction_id, memory_id: ids.memory_id, origin: 'user' },
    { ...root, interaction_id: ids.executor_agent_parent_interaction_id, memory_id: ids.executor_agent_memory_id, origin: 'executor' },
  ];
}

/** Why a run may not start on these memories (those of `existing` exist): one it continues is missing, or another tenant's. */
async function refusalOf(store: MemoryStore, input: StartRunInput, existing: readonly string[]): Promise<ApplicationFailure | undefined> {
  const { ids } = input;
  if (input.resume && !existing.includes(ids.memory_id)) return ApplicationFailure.nonRetryable(`memory_id ${ids.memory_id} does not exist`, 'Memory.NotFound');
  if (existing.length === 0) return undefined;
  const owners = await store.memoryOwners(existing);
  for (const [field, id] of [['memory_id', ids.memory_id], ['executor_agent_memory_id', ids.executor_agent_memory_id]] as const) {
    const owner = owners.get(id);
    if (owner && owner.tenant_id !== ids.tenant_id) return ApplicationFailure.nonRetryable(otherTenantMessage(field, id, owner.tenant_id, ids.tenant_id), 'Memory.OtherTenant');
  }
  return undefined;
}

export function createRunMemoryActivities(store: MemoryStore, o: RunMemoryOptions = {}) {
  return {
    /**
     * Creates the planner and executor memories (and, in runs recorded before, the root
     * interactions holding the question), and returns the IDs of the conversation's earlier
     * exchanges: the planner loads their texts itself (claim check), so they never enter the
     * workflow history.
     */
    async startRun(input: StartRunInput): Promise<{ history_ids: string[] }> {
      const { ids } = input;
      if (o.requireTenant && ids.tenant_id === undefined) throw ApplicationFailure.nonRetryable(TENANT_REQUIRED, 'Policy.Refused');
      const now = new Date();
      const memories = [
        { memory_id: ids.memory_id, name: input.question, app_type: input.app_type, role: 'planner' as const, ...tenantOf(ids) },
        {
          memory_id: ids.executor_agent_memory_id,
          name: input.question,
          app_type: input.app_type,
          role: 'executor' as const,
          parent_memory_id: ids.memory_id,
          // Which run created it: that run's executor history needs no query over the memory.
          first_run: ids.executor_agent_parent_interaction_id,
          ...tenantOf(ids),
          ...(input.executor_agent_id !== undefined ? { agent_id: input.executor_agent_id } : {}),
        },
      ];
      // New memories (every new conversation) are one insert and nothing to check: no one else's has their IDs.
      const existing = await store.createMemories(memories, now);
      const created = memories.map((m) => m.memory_id).filter((id) => !existing.includes(id));
      // A conversation (or executor memory) exists when continued, and is continued by its own tenant only: what was just created goes again when not.
      const refusal = await refusalOf(store, input, existing);
      if (refusal) {
        if (created.length > 0) await store.memories.deleteMany({ _id: { $in: created } });
        throw refusal;
      }
      await store.touchMemories(memories.filter((m) => existing.includes(m.memory_id)), now);
      const history = input.resume ? await store.recentExchanges(ids.memory_id, input.message_history_limit, ids.parent_interaction_id) : [];
      // Which run created the executor memory: this one (the worker's executor history need not read it).
      if (created.includes(ids.executor_agent_memory_id)) o.executorMemoryCreated?.(ids.executor_agent_memory_id, ids.executor_agent_parent_interaction_id);
      if (!input.roots_at_end) await store.insertInteractionsOnce(rootsOf(ids, input.question, ''), now);
      return { history_ids: history.map((doc) => doc._id) };
    },

    /** Writes the final result (or the failure, or an interrupted run's work so far) onto the root interactions written at the run's start (saveAndReturnFinalResult). */
    async finishRun(input: RunOutcome): Promise<void> {
      const marks = input.interrupted_by !== undefined ? { interrupted_by: input.interrupted_by } : {};
      await store.setResponse([input.ids.parent_interaction_id, input.ids.executor_agent_parent_interaction_id], responseOf(input), new Date(), input.error, marks);
    },

    /**
     * Writes the run's root interactions with its question and final result (or failure, or
     * work so far) in one insert, at its end (saveAndReturnFinalResult); roots written at its
     * start (a run begun before) get the result as {@link finishRun} writes it.
     */
    async endRun(input: RunEnd): Promise<void> {
      const marks = {
        ...(input.error !== undefined ? { error: input.error } : {}),
        ...(input.interrupted_by !== undefined ? { interrupted_by: input.interrupted_by } : {}),
        ...(input.forked_from !== undefined ? { forked_from: input.forked_from } : {}),
      };
      await store.writeRoots(rootsOf(input.ids, input.question, responseOf(input), marks), new Date(input.started_at), new Date());
    },
  };
}
