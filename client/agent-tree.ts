/**
 * An agent tree as `status` shows it: the runs of a root's sub-agents (their workflow IDs lie
 * under the root's: `<root>/step-N/agent-K…`), each with its path, status, steps and cost.
 */
import type { Client } from '@temporalio/client';
import { progressQuery, type PendingDecision } from '../workflows/definitions';
import { lenientClient } from './payloads';

/** A sub-agent's run in its tree. */
export interface SubAgentRun {
  workflow_id: string;
  /** Agent names from the root's to this run's. */
  agent_path: string[];
  /** The run's progress status (`completed`, `awaiting_approval`, …), else Temporal's (`CANCELLED`, …) when it cannot be asked. */
  status: string;
  steps_executed?: number;
  cost_usd?: number | null;
  /** What it waits for from a person (answered with its ID or its root's). */
  pending?: PendingDecision[];
}

/** How long one run's progress is waited for: a tree whose workers are down is shown from visibility alone. */
const PROGRESS_QUERY_MS = 5_000;

/** The runs below `rootId`, in tree order (depth first, by their IDs); none for a run without sub-agents. */
export async function subAgentRuns(client: Client, rootId: string, limit = 200): Promise<SubAgentRun[]> {
  const found: Array<{ workflowId: string; path: string[]; status: string }> = [];
  const query = `WorkflowId STARTS_WITH ${JSON.stringify(`${rootId}/`)}`;
  try {
    for await (const wf of lenientClient(client).workflow.list({ query })) {
      const { agent_path, root_workflow_id } = wf.memo ?? {};
      if (root_workflow_id !== rootId || !Array.isArray(agent_path)) continue; // a step's executor, not an agent's run
      found.push({ workflowId: wf.workflowId, path: agent_path.map(String), status: wf.status.name });
      if (found.length >= limit) break;
    }
  } catch {
    return []; // visibility cannot list it (an old server): the root's own status stands
  }
  found.sort((a, b) => a.workflowId.localeCompare(b.workflowId, 'en', { numeric: true }));
  return Promise.all(
    found.map(async (r): Promise<SubAgentRun> => {
      const p = await client.withDeadline(Date.now() + PROGRESS_QUERY_MS, () => client.workflow.getHandle(r.workflowId).query(progressQuery)).catch(() => undefined);
      return { workflow_id: r.workflowId, agent_path: r.path, status: p?.status ?? r.status, ...(p ? { steps_executed: p.steps_executed, cost_usd: p.usage.cost_usd ?? null } : {}), ...((p?.pending ?? []).length > 0 ? { pending: p!.pending } : {}) };
    }),
  );
}
