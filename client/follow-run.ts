/**
 * Following a run by polling its `progress` query (`followRun`: the demo, `run --follow` when the
 * run has no event stream), and the lines it prints: what changed, and each pending decision with
 * the commands that answer it. `watchRun` (watch.ts) follows the run's event stream instead.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { pendingWhat, type PendingDecision } from '../core/decisions';
import { preview } from '../core/text';
import { progressQuery, type Progress, type RunOutput, type RunWorkflow } from '../workflows/definitions';

/** Lines describing what changed between two progress snapshots. */
export function progressChanges(prev: Progress | undefined, next: Progress): string[] {
  const lines: string[] = [];
  if (next.plan.join('\n') !== (prev?.plan ?? []).join('\n') && next.plan.length > 0) {
    lines.push(`plan: ${next.plan.map((s, i) => `${i + 1}. ${preview(s, 120)}`).join(' | ')}`);
  }
  const done = prev?.completed_steps.length ?? 0;
  for (const s of next.completed_steps.slice(done)) {
    lines.push(`step ${s.index + 1} ${s.ok ? 'done' : 'failed'}: ${preview(s.step, 120)} → ${preview(s.result_preview.replace(/\s+/g, ' '), 200)}`);
  }
  const runningOf = (p: Progress | undefined) => p?.current_steps ?? (p?.current_step ? [p.current_step] : []);
  const wasRunning = new Set(runningOf(prev).map((c) => c.executor_workflow_id));
  for (const cur of runningOf(next)) {
    if (!wasRunning.has(cur.executor_workflow_id)) lines.push(`step ${cur.index + 1} running: ${preview(cur.step, 120)} (executor ${cur.executor_workflow_id})`);
  }
  const u = next.usage;
  if (!prev || u.input_tokens !== prev.usage.input_tokens || u.output_tokens !== prev.usage.output_tokens) {
    if (u.input_tokens + u.output_tokens > 0) lines.push(`tokens: in ${u.input_tokens} / out ${u.output_tokens}`);
  }
  if (next.status !== prev?.status) lines.push(`status: ${next.status}${next.error ? ` (${next.error})` : ''}`);
  const seen = new Set((prev?.pending ?? []).map((d) => d.id));
  for (const d of next.pending ?? []) if (!seen.has(d.id)) lines.push(...pendingLines(d));
  return lines;
}

/** A pending decision for people: what waits, and the commands that answer it. */
export function pendingLines(d: PendingDecision): string[] {
  const { what: waiting, detail } = pendingWhat(d);
  const what =
    d.kind === 'tool'
      ? [`${waiting} (${d.id}) in step ${(d.step?.index ?? 0) + 1}: ${d.tool} ${preview(JSON.stringify(d.input ?? {}), 300)}`]
      : [`${waiting} (${d.id}):${detail !== undefined ? ` ${detail}` : ''}`, ...(d.plan ?? []).map((s, i) => `  ${i + 1}. ${preview(s, 200)}`)];
  const timeout = d.timeout ? [`  (${d.timeout.action} at ${d.timeout.at} if nobody answers)`] : [];
  return [...what, ...timeout, ...d.answer.map((a) => `  answer: ${a}`)];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the progress query, calling `print` for each change, until the run ends; returns its result. */
export async function followRun(handle: WorkflowHandle<RunWorkflow>, print: (line: string) => void, intervalMs = 500): Promise<RunOutput> {
  let settled = false;
  const result = handle.result().finally(() => {
    settled = true;
  });
  result.catch(() => undefined);
  let last: Progress | undefined;
  const poll = async () => {
    try {
      const p = await handle.query(progressQuery);
      for (const line of progressChanges(last, p)) print(line);
      last = p;
    } catch {
      // no worker has picked up the run yet, or the query timed out: try again
    }
  };
  while (!settled) {
    await poll();
    await Promise.race([sleep(intervalMs), result.catch(() => undefined)]);
  }
  await poll();
  return result;
}
