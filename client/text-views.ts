/**
 * The client library's text views, each text written here once: what a run event says to a
 * person (the CLI's event lines, MCP progress, the console's event stream), what changed in a
 * run's progress and the pending decisions with the commands that answer them (`followRun`, the
 * CLI's status), two runs' diff, a conversation. The CLI's own lines are cli/format.ts; the
 * Temporal UI's run summary is the workflow's (`progressMarkdown`, workflows/definitions.ts).
 */
import { pendingWhat, type PendingDecision } from '../core/decisions';
import type { Usage } from '../core/llm-types';
import type { RunEvent, RunEventBody } from '../core/run-events';
import { formatCost, formatSeconds, formatTokens, oneLine, preview } from '../core/text';
import type { ConversationView } from '../stores/conversation';
import type { Progress } from '../workflows/definitions';
import type { RunDiff, StepSide, SubAgentDiff } from './diff';

/**
 * What a person reads for a run event: its line, then (a pending decision) the lines under it;
 * none for model text. `stepText` names the step a `step_finished` ends (see {@link StepTexts}).
 */
export function eventLines(e: RunEventBody, stepText?: string): string[] {
  switch (e.type) {
    case 'run_started':
      return [`run ${e.workflow_id} started: ${e.agent} (${e.agent_type})${e.forked_from ? `, a fork of ${e.forked_from.workflow_id} from step ${e.forked_from.step}` : ''}`];
    case 'plan':
      return [`plan: ${e.steps.map((s, i) => `${i + 1}. ${preview(s, 120)}`).join(' | ')}`];
    case 'step_started':
      return [`step ${e.index + 1} running: ${preview(e.step, 120)}`];
    case 'tool_call':
      return [`→ ${e.tool} ${preview(e.input, 200)}${e.sub_run ? ` (sub-agent ${e.sub_run.agent}, run ${e.sub_run.workflow_id})` : ''}`];
    case 'tool_result':
      return [`← ${e.tool}${e.ok ? '' : ' (error)'}: ${preview(e.output, 200)}`];
    case 'step_finished':
      return [`step ${e.index + 1} ${e.ok ? 'done' : 'failed'}${stepText !== undefined ? `: ${preview(stepText, 120)}` : ''} → ${preview(e.result, 200)}`];
    case 'decision_pending':
      return pendingLines(e);
    case 'decision':
      return [`decision ${e.id}: ${e.kind} ${e.action} by ${e.by}`];
    case 'retry':
      return [`↻ ${e.tool ?? e.role ?? 'call'} retried (attempt ${e.attempt})`];
    case 'context_compacted':
      return [`⇣ ${e.role}${e.step !== undefined ? ` (step ${e.step + 1})` : ''} prompt compacted to fit ${e.model}'s ${e.window} tokens: ${compactedWhat(e.role, e.dropped)} ${e.strategy === 'summarize' ? 'summarized' : 'left out'} (~${e.tokens_before} → ~${e.tokens_after} tokens)`];
    case 'guardrail_passed':
      return [`✓ ${e.place} guardrail ${e.check}: ${preview(e.detail, 200)}`];
    case 'guardrail_tripped':
      return [`✗ ${e.place} guardrail ${e.check}: ${preview(e.detail, 200)} (${e.action === 'stop' ? 'the run stops' : e.action === 'ask' ? 'a person decides' : 'the answer is asked again'})`];
    case 'run_finished':
      return [`run ${e.status}${e.error ? `: ${oneLine(e.error)}` : ''}`];
    default:
      return [];
  }
}

/** {@link eventLines} as one line (a progress notification, the console's stream); undefined for model text. */
export function eventSummary(e: RunEventBody, stepText?: string): string | undefined {
  const lines = eventLines(e, stepText);
  return lines.length === 0 ? undefined : oneLine(lines.join('\n'));
}

/** `the oldest step`, `3 oldest messages`: what a compaction left out or summarized. */
function compactedWhat(role: string, dropped: number): string {
  const unit = role === 'planner' ? 'step' : 'message';
  return dropped === 1 ? `the oldest ${unit}` : `${dropped} oldest ${unit}s`;
}

/** The text of each step seen starting (by run, in a tree's stream), to name the step a `step_finished` ends. */
export class StepTexts {
  private readonly texts = new Map<string, string>();

  /** Notes a step's start; for a step's end, the text of that step when its start was seen. */
  of(e: RunEvent): string | undefined {
    if (e.type === 'step_started') this.texts.set(`${e.run ?? ''}#${e.index}`, e.step);
    return e.type === 'step_finished' ? this.texts.get(`${e.run ?? ''}#${e.index}`) : undefined;
  }
}

/** Lines describing what changed between two progress snapshots. */
export function progressChanges(prev: Progress | undefined, next: Progress): string[] {
  const lines: string[] = [];
  if (next.plan.join('\n') !== (prev?.plan ?? []).join('\n') && next.plan.length > 0) {
    lines.push(...eventLines({ type: 'plan', steps: next.plan }));
  }
  // By index: a long run's list keeps only its latest steps across continue-as-new.
  const done = new Set(prev?.completed_steps.map((s) => s.index));
  for (const s of next.completed_steps.filter((c) => !done.has(c.index))) {
    lines.push(...eventLines({ type: 'step_finished', index: s.index, ok: s.ok, result: s.result_preview }, s.step));
  }
  const runningOf = (p: Progress | undefined) => p?.current_steps ?? (p?.current_step ? [p.current_step] : []);
  const wasRunning = new Set(runningOf(prev).map((c) => c.executor_workflow_id));
  for (const cur of runningOf(next)) {
    if (!wasRunning.has(cur.executor_workflow_id)) lines.push(`${eventLines({ type: 'step_started', index: cur.index, step: cur.step })[0]} (executor ${cur.executor_workflow_id})`);
  }
  const u = next.usage;
  if (!prev || u.input_tokens !== prev.usage.input_tokens || u.output_tokens !== prev.usage.output_tokens || u.tokens_unknown !== prev.usage.tokens_unknown) {
    if (u.input_tokens + u.output_tokens > 0 || u.tokens_unknown) lines.push(formatTokens(u).replace(/^tokens /, 'tokens: '));
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
    d.kind === 'tool' && d.question !== undefined
      ? [`${waiting} (${d.id}) in step ${(d.step?.index ?? 0) + 1}: ${d.tool} asks: ${preview(d.question, 300)}`]
      : d.kind === 'tool'
      ? [`${waiting} (${d.id}) in step ${(d.step?.index ?? 0) + 1}: ${d.tool} ${preview(JSON.stringify(d.input ?? {}), 300)}`]
      : [`${waiting} (${d.id}):${detail !== undefined ? ` ${detail}` : ''}`, ...(d.plan ?? []).map((s, i) => `  ${i + 1}. ${preview(s, 200)}`)];
  const timeout = d.timeout ? [`  (${d.timeout.action} at ${d.timeout.at} if nobody answers)`] : [];
  return [...what, ...timeout, ...d.answer.map((a) => `  answer: ${a}`)];
}

const tokens = (u: Usage) => `${u.tokens_unknown ? `≥${u.input_tokens}/≥${u.output_tokens}` : `${u.input_tokens}/${u.output_tokens}`} tokens, ${formatCost(u.cost_usd)}`;
const secs = formatSeconds;

/** The diff for a terminal: aligned columns, `≠` where the runs differ. */
export function formatDiff(d: RunDiff): string {
  const f = d.fingerprint;
  const fingerprint =
    f.same ? `same fingerprint ${f.a}` : f.a && f.b ? `≠ fingerprints A ${f.a} | B ${f.b}: ${f.differs.join(', ')} differ` : `fingerprints A ${f.a ?? '(none recorded)'} | B ${f.b ?? '(none recorded)'}`;
  const out = [fingerprint, `A ${d.a.workflow_id} (${d.a.agent}, ${d.a.status})`, `B ${d.b.workflow_id} (${d.b.agent}, ${d.b.status})`, '', 'settings that differ:'];
  if (d.settings.length === 0) out.push('  none');
  for (const s of d.settings) {
    if (s.diff) out.push(`≠ ${s.key}:`, ...s.diff.split('\n').map((l) => `    ${l}`));
    else out.push(`≠ ${s.key}: A ${JSON.stringify(s.a)} | B ${JSON.stringify(s.b)}`);
  }
  out.push('', 'plans after each planner call:');
  const calls = Math.max(d.a.plans.length, d.b.plans.length);
  const planText = (p?: { steps: string[]; result?: string }) => (p ? (p.result !== undefined ? `result: ${preview(p.result, 80)}` : p.steps.map((s, i) => `${i + 1}. ${preview(s, 40)}`).join(' ')) : '—');
  for (let k = 0; k < calls; k++) {
    const [pa, pb] = [planText(d.a.plans[k]), planText(d.b.plans[k])];
    out.push(`${pa === pb ? ' ' : '≠'} ${k + 1}. A ${pa}`, `     B ${pb}`);
  }
  out.push('', 'steps:');
  const side = (s?: StepSide) =>
    s ? `${preview(s.step, 50)} → ${preview(s.result_preview.replace(/\s+/g, ' '), 60)}${s.tool_calls.length > 0 ? ` [${s.tool_calls.map((c) => `${c.tool} ${JSON.stringify(c.input)}`).join('; ')}]` : ''} (${tokens(s.usage)}, ${secs(s.duration_ms)})` : '—';
  for (const s of d.steps) out.push(`${s.same ? ' ' : '≠'} ${String(s.index + 1).padStart(2)} A ${side(s.a)}`, `     B ${side(s.b)}`);
  out.push('', `total: A ${tokens(d.a.usage)}, ${secs(d.a.duration_ms)} | B ${tokens(d.b.usage)}, ${secs(d.b.duration_ms)}`);
  out.push('', `${d.same_response ? ' ' : '≠'} response A: ${preview(d.a.response ?? '(none)', 300)}`, `  response B: ${preview(d.b.response ?? '(none)', 300)}`);
  if (d.sub_agents.length > 0) out.push('', 'sub-agents, node by node:', ...d.sub_agents.flatMap((n) => subAgentLines(n)));
  return out.join('\n');
}

/** A node of two agent trees: one line, then (when the runs differ) their diff indented under it. */
function subAgentLines(n: SubAgentDiff): string[] {
  const where = `step ${n.step + 1} ${n.tool}${n.call > 0 ? ` #${n.call + 1}` : ''}`;
  const runs = n.shared ? `one run, reused: ${n.a}` : `A ${n.a ?? '—'} | B ${n.b ?? '—'}`;
  const head = `${n.same ? ' ' : '≠'} ${where}: ${runs}`;
  if (!n.diff || n.same) return [head];
  return [head, ...formatDiff(n.diff).split('\n').map((l) => (l === '' ? l : `    ${l}`))];
}

/** A conversation as `perflow memory` prints it: each run's question, steps with their tool calls, decisions and response. */
export function formatConversation(view: ConversationView, previewChars = 500): string {
  const lines = [`memory ${view.memory_id}: ${view.name}`];
  for (const run of view.runs) {
    lines.push('', run.in_flight ? `[${run.created.toISOString()}] run ${run.interaction_id} in flight (its question is written with its answer when it ends)` : `[${run.created.toISOString()}] question: ${run.question}`);
    if (run.forked_from) lines.push(`  forked from ${run.forked_from.workflow_id} at step ${run.forked_from.step} (steps before it reused)`);
    const decisionsBefore = (n: number) => run.decisions.filter((d) => d.after_steps === n);
    const printDecisions = (ds: typeof run.decisions) => {
      for (const d of ds) lines.push(`  decision [${d.at}] ${d.kind} ${d.action} by ${d.by}${d.detail ? `: ${preview(d.detail.replace(/\s*\n\s*/g, ' | '), previewChars)}` : ''}`);
    };
    for (const step of run.steps) {
      printDecisions(decisionsBefore(step.trace_number - 1));
      lines.push(`  step ${step.trace_number}: ${step.step}`);
      for (const call of step.tool_calls) {
        lines.push(`    tool ${call.tool} ${call.input} → ${preview(call.output, previewChars)}`);
        // An agent tool's call: its own run and memory (`perflow memory` of that ID shows them).
        if (call.sub_run) lines.push(`      sub-agent run ${call.sub_run.workflow_id}, memory ${call.sub_run.memory_id}`);
      }
      lines.push(`    result: ${preview(step.result, previewChars)}`);
    }
    printDecisions(run.decisions.filter((d) => d.after_steps >= run.steps.length));
    // Summaries made to fit the model's context window (how-a-run-works.md, Context that fits).
    for (const c of run.compactions ?? []) lines.push(`  compacted ${c.of}: ${preview(c.summary.replace(/\s*\n\s*/g, ' | '), previewChars)}`);
    lines.push(`  response: ${run.response === '' ? '(running)' : preview(run.response, previewChars * 4)}`);
  }
  return lines.join('\n');
}
