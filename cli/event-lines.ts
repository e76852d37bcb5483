/**
 * How `perflow watch` and `run --follow` show a run's events: model text as it arrives, under a
 * header naming who writes it, and one line per plan, step, tool and decision event. A retried
 * model attempt's text is erased on a terminal (elsewhere a line says it is replaced). Control
 * characters in what models and tools wrote are shown as text (core/text.ts visibleText).
 */
import type { RunEvent } from '../core/run-events';
import { oneLine, preview, visibleText } from '../core/text';
import { pendingLines } from '../client/text-views';

export interface EventWriter {
  write(text: string): void;
  /** Terminal width when writing to a terminal (text can then be erased). */
  columns?: number;
}

export class EventPrinter {
  private open?: { call: string; text: string };
  /** Step texts by run and index. */
  private readonly steps = new Map<string, string>();

  constructor(private readonly out: EventWriter) {}

  print(e: RunEvent): void {
    // A sub-agent's events (an agent tree's stream) are indented under the tool call that started its run.
    const pad = '    '.repeat(Math.max(0, (e.agent_path?.length ?? 1) - 1));
    const call = (name: string) => `${e.run ?? ''}#${name}`;
    if (e.type === 'model_delta') return this.delta(call(e.call), `${e.agent_path ? `${e.agent_path.at(-1)} · ` : ''}${e.role}`, e.step, e.text, pad);
    if (e.type === 'retry' && e.role !== undefined && this.open?.call === call(e.call)) return this.retried(e.attempt);
    this.endText();
    for (const line of this.lines(e, e.run ?? '')) this.out.write(`${pad}${visibleText(line)}\n`);
  }

  /** Ends a line of model text left open (before the caller writes anything else). */
  endText(): void {
    if (this.open && !this.open.text.endsWith('\n')) this.out.write('\n');
    this.open = undefined;
  }

  private delta(call: string, role: string, step: number | undefined, raw: string, pad: string): void {
    // What the model wrote, shown, never obeyed (the erasing of a retried attempt below is ours).
    const text = pad === '' ? visibleText(raw) : visibleText(raw).replaceAll('\n', `\n${pad}`);
    if (this.open?.call !== call) {
      this.endText();
      this.out.write(`${pad}[${role}${step !== undefined ? `, step ${step + 1}` : ''}]\n${pad}`);
      this.open = { call, text: '' };
    }
    this.open.text += text;
    this.out.write(text);
  }

  /** The attempt that wrote the open text failed: its text goes, the next attempt's follows. */
  private retried(attempt: number): void {
    const open = this.open!;
    const columns = this.out.columns;
    if (columns) {
      // Rows the text took: each of its lines wraps at the terminal's width.
      const rows = open.text.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / columns)), 0);
      this.out.write(`\r${rows > 1 ? `\x1b[${rows - 1}A` : ''}\x1b[J`);
    } else {
      this.out.write(`${open.text.endsWith('\n') ? '' : '\n'}(attempt ${attempt}: the text above is replaced by)\n`);
    }
    open.text = '';
  }

  private lines(e: RunEvent, run: string): string[] {
    switch (e.type) {
      case 'run_started':
        return [`run ${e.workflow_id} started: ${e.agent} (${e.agent_type})${e.forked_from ? `, a fork of ${e.forked_from.workflow_id} from step ${e.forked_from.step}` : ''}`];
      case 'plan':
        return [`plan: ${e.steps.map((s, i) => `${i + 1}. ${preview(s, 120)}`).join(' | ')}`];
      case 'step_started':
        this.steps.set(`${run}#${e.index}`, e.step);
        return [`step ${e.index + 1} running: ${preview(oneLine(e.step), 120)}`];
      case 'tool_call':
        return [`  → ${e.tool} ${preview(oneLine(e.input), 200)}${e.sub_run ? ` (sub-agent ${e.sub_run.agent}, run ${e.sub_run.workflow_id})` : ''}`];
      case 'tool_result':
        return [`  ← ${e.tool}${e.ok ? '' : ' (error)'}: ${preview(oneLine(e.output), 200)}`];
      case 'step_finished': {
        const step = this.steps.get(`${run}#${e.index}`);
        return [`step ${e.index + 1} ${e.ok ? 'done' : 'failed'}${step !== undefined ? `: ${preview(oneLine(step), 120)}` : ''} → ${preview(oneLine(e.result), 200)}`];
      }
      case 'decision_pending':
        return pendingLines(e);
      case 'decision':
        return [`decision ${e.id}: ${e.kind} ${e.action} by ${e.by}`];
      case 'retry':
        return [`  ↻ ${e.tool ?? e.role ?? 'call'} retried (attempt ${e.attempt})`];
      case 'context_compacted':
        return [`  ⇣ ${e.role}${e.step !== undefined ? ` (step ${e.step + 1})` : ''} prompt compacted to fit ${e.model}'s ${e.window} tokens: ${compactedWhat(e.role, e.dropped)} ${e.strategy === 'summarize' ? 'summarized' : 'left out'} (~${e.tokens_before} → ~${e.tokens_after} tokens)`];
      case 'run_finished':
        return [`run ${e.status}${e.error ? `: ${oneLine(e.error)}` : ''}`];
      default:
        return [];
    }
  }
}

/** `the oldest step`, `3 oldest messages`: what a compaction left out or summarized. */
function compactedWhat(role: string, dropped: number): string {
  const unit = role === 'planner' ? 'step' : 'message';
  return dropped === 1 ? `the oldest ${unit}` : `${dropped} oldest ${unit}s`;
}
