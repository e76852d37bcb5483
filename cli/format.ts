/** The CLI's text views of runs and decisions (what `--json` prints as JSON instead). */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { PendingRun } from '../client/decisions';
import type { SubAgentRun } from '../client/agent-tree';
import type { DecisionRecord, Progress } from '../client';
import { pendingLines } from '../client/text-views';
import { formatCost, formatTokens } from '../core/text';

/** `perflow status ID`. */
export function statusLines(id: string, p: Progress): string[] {
  const lines = [`${id}: ${p.status} (agent ${p.agent}, steps ${p.steps_executed}/${p.max_steps}, ${formatTokens(p.usage)}, ${formatCost(p.usage.cost_usd)})`];
  p.plan.forEach((s, i) => lines.push(`  plan ${i + 1}. ${s}`));
  for (const c of p.current_steps ?? (p.current_step ? [p.current_step] : [])) lines.push(`  running step ${c.index + 1}: ${c.step} (executor ${c.executor_workflow_id})`);
  if (p.completed_steps_omitted) lines.push(`  … ${p.completed_steps_omitted} earlier steps (perflow memory ${p.memory_id} shows them)`);
  for (const s of p.completed_steps) lines.push(`  ${s.ok ? 'done' : 'failed'} step ${s.index + 1}: ${s.step} → ${s.result_preview.replace(/\s+/g, ' ').slice(0, 200)}`);
  for (const d of p.pending ?? []) lines.push(...pendingLines(d).map((l) => `  ${l}`));
  for (const v of p.assumed_verdicts ?? []) lines.push(`  assumed after step ${v.after_steps}: ${v.kind} unreadable, taken as ${v.assumed} (${v.error})`);
  if (p.paused) lines.push(`  paused: resume with perflow resume ${id}`);
  if (p.waiting_for) lines.push(`  queued behind ${p.waiting_for.join(', ')} (earlier messages to conversation ${p.memory_id}): starts when they end`);
  if (p.result !== undefined) lines.push(`  result: ${p.result}`);
  if (p.error !== undefined) lines.push(`  error: ${p.error}`);
  return lines;
}

/** An agent tree's sub-agents under `status`: each indented by its depth, with its status, steps and cost. */
export function subAgentLines(runs: readonly SubAgentRun[]): string[] {
  if (runs.length === 0) return [];
  return [
    '  sub-agents:',
    ...runs.map((r) => `${'  '.repeat(r.agent_path.length)}${r.agent_path.at(-1)} (${r.workflow_id}): ${r.status}${r.steps_executed !== undefined ? `, ${r.steps_executed} steps, ${formatCost(r.cost_usd ?? null)}` : ''}`),
  ];
}

/** A run of `perflow list`. */
export const runListLine = (wf: WorkflowExecutionInfo) => `${wf.workflowId}\t${wf.status.name}\t${wf.startTime.toISOString()}\t${wf.runId}${typeof wf.memo?.fingerprint === 'string' ? `\t${wf.memo.fingerprint}` : ''}`;

/** `perflow pending`: each waiting run, what it waits for, and how to answer. */
export function pendingRunLines(runs: readonly PendingRun[]): string[] {
  if (runs.length === 0) return ['no run is waiting for a decision'];
  return runs.flatMap((r) => [
    `${r.workflow_id}\t${r.waiting_for}${r.agent ? `\t${r.agent}` : ''}`,
    ...(r.root_workflow_id ? [`  in the tree of ${r.root_workflow_id}: ${r.agent_path?.join(' → ')} (the root's ID answers it too)`] : []),
    ...r.pending.flatMap((d) => pendingLines(d).map((l) => `  ${l}`)),
    ...(r.waiting_for === 'paused' ? [`  answer: perflow resume ${r.workflow_id}`] : []),
  ]);
}

/** A decision a decision command sent, as the run recorded it. */
export const decisionLine = (id: string, d: DecisionRecord) => `${id}: ${d.kind} ${d.action} by ${d.by} at ${d.at}${d.detail ? ` (${d.detail.replace(/\s*\n\s*/g, ' | ')})` : ''}`;
