/** A conversation from memory as text a person can read: questions, steps, tool calls, results. */
import type { InteractionDoc, MemoryStore, SubRunLink } from './store';

export interface ConversationView {
  memory_id: string;
  name: string;
  runs: {
    interaction_id: string;
    /** The run has not ended: its root interaction, question and answer, is written when it does ('' until then). */
    in_flight?: true;
    question: string;
    response: string;
    created: Date;
    steps: { trace_number: number; step: string; result: string; tool_calls: { tool: string; input: string; output: string; sub_run?: SubRunLink }[] }[];
    /** A forked run: the run and step it was forked from (its steps before that are copies). */
    forked_from?: { workflow_id: string; step: number };
    /** People's decisions in the run, in order (plan and tool approvals, guidance, pause, resume). */
    decisions: { kind: string; action: string; by: string; at: string; after_steps: number; detail: string }[];
    /** Summaries made to fit the model's context window: what they stand for and the summary (activities/context-window.ts). */
    compactions?: { of: string; summary: string; step_index?: number }[];
  }[];
}

/** Reads a planner memory, its executor memories and their interactions, in order. */
export async function readConversation(store: MemoryStore, memoryId: string): Promise<ConversationView | undefined> {
  const memory = await store.memories.findOne({ _id: memoryId });
  if (!memory) return undefined;
  const executorMemories = await store.memories.find({ parent_memory_id: memoryId }).toArray();
  const all = await store.interactions
    .find({ memory_id: { $in: [memoryId, ...executorMemories.map((m) => m._id)] } })
    .sort({ created: 1, trace_number: 1 })
    .toArray();
  const children = new Map<string, InteractionDoc[]>();
  for (const doc of all) {
    if (doc.parent_interaction_id) children.set(doc.parent_interaction_id, [...(children.get(doc.parent_interaction_id) ?? []), doc]);
  }
  // Executor step records share their trace number with the planner's step trace.
  const executorSteps = all.filter((d) => d.origin === 'executor' && d.step_index !== undefined);
  const roots = all.filter((d) => d.memory_id === memoryId && !d.parent_interaction_id); // null may be stored as absent
  const inFlight = unwrittenRoots(all, memoryId);
  const runs = [...roots, ...inFlight]
    .sort((a, b) => a.created.getTime() - b.created.getTime())
    .map((root) => ({
      interaction_id: root._id,
      ...(inFlight.includes(root) ? { in_flight: true as const } : {}),
      question: root.input,
      response: root.response,
      created: root.created,
      ...(root.forked_from ? { forked_from: { workflow_id: root.forked_from.workflow_id, step: root.forked_from.step } } : {}),
      decisions: (children.get(root._id) ?? [])
        .filter((d) => d.origin === 'reviewer' && d.decision)
        .sort((a, b) => a.decision!.at.localeCompare(b.decision!.at))
        .map((d) => ({ kind: d.decision!.kind, action: d.decision!.action, by: d.decision!.by, at: d.decision!.at, after_steps: d.decision!.after_steps, detail: d.response })),
      ...compactionsOf(children.get(root._id) ?? []),
      steps: (children.get(root._id) ?? [])
        .filter((d) => d.origin !== 'reviewer' && d.origin !== 'compaction')
        .sort((a, b) => (a.trace_number ?? 0) - (b.trace_number ?? 0))
        .map((trace) => {
          const execStep = executorSteps.find((e) => e.created >= root.created && e.input === trace.input && e.trace_number === trace.trace_number);
          return {
            trace_number: trace.trace_number ?? 0,
            step: trace.input,
            result: trace.response,
            // In the order the model asked for them (calls of one turn may end in another).
            tool_calls: (execStep ? (children.get(execStep._id) ?? []) : []).sort((a, b) => (a.trace_number ?? 0) - (b.trace_number ?? 0)).map((t) => ({
              tool: t.tool_name ?? '?',
              input: t.input,
              output: t.response,
              ...(t.sub_run ? { sub_run: t.sub_run } : {}),
            })),
          };
        }),
    }));
  return { memory_id: memoryId, name: memory.name, runs };
}

/**
 * Stand-ins for the roots of runs in flight: their records (steps, decisions) are in memory, their
 * root interaction is written when they end. Created when the first of those records was.
 */
function unwrittenRoots(all: readonly InteractionDoc[], memoryId: string): InteractionDoc[] {
  const written = new Set(all.map((d) => d._id));
  const firsts = new Map<string, InteractionDoc>();
  for (const d of all) {
    const root = d.parent_interaction_id;
    if (d.memory_id !== memoryId || !root || written.has(root) || firsts.has(root)) continue;
    firsts.set(root, d); // `all` is in creation order
  }
  return [...firsts].map(([root, first]) => ({ ...first, _id: root, interaction_id: root, parent_interaction_id: null, input: '', response: '', origin: 'user', forked_from: undefined }));
}

function compactionsOf(children: readonly InteractionDoc[]): { compactions?: { of: string; summary: string; step_index?: number }[] } {
  const made = children.filter((d) => d.origin === 'compaction');
  return made.length === 0 ? {} : { compactions: made.map((d) => ({ of: d.input, summary: d.response, ...(d.step_index !== undefined ? { step_index: d.step_index } : {}) })) };
}
