/**
 * How `perflow watch` and `run --follow` show a run's events: model text as it arrives, under a
 * header naming who writes it, and one line per plan, step, tool and decision event (the words
 * MCP progress and the console use too: client/text-views.ts eventLines). A retried
 * model attempt's text is erased on a terminal (elsewhere a line says it is replaced). Control
 * characters in what models and tools wrote are shown as text (core/text.ts visibleText).
 */
import type { RunEvent, RunEventType } from '../core/run-events';
import { visibleText } from '../core/text';
import { eventLines, StepTexts } from '../client/text-views';

/** Events shown indented under the step they happen in. */
const IN_STEP: ReadonlySet<RunEventType> = new Set(['tool_call', 'tool_result', 'retry', 'context_compacted']);

export interface EventWriter {
  write(text: string): void;
  /** Terminal width when writing to a terminal (text can then be erased). */
  columns?: number;
}

export class EventPrinter {
  private open?: { call: string; text: string };
  private readonly steps = new StepTexts();

  constructor(private readonly out: EventWriter) {}

  print(e: RunEvent): void {
    // A sub-agent's events (an agent tree's stream) are indented under the tool call that started its run.
    const pad = '    '.repeat(Math.max(0, (e.agent_path?.length ?? 1) - 1));
    const call = (name: string) => `${e.run ?? ''}#${name}`;
    if (e.type === 'model_delta') return this.delta(call(e.call), `${e.agent_path ? `${e.agent_path.at(-1)} · ` : ''}${e.role}`, e.step, e.text, pad);
    if (e.type === 'retry' && e.role !== undefined && this.open?.call === call(e.call)) return this.retried(e.attempt);
    this.endText();
    for (const line of eventLines(e, this.steps.of(e))) this.out.write(`${pad}${IN_STEP.has(e.type) ? '  ' : ''}${visibleText(line)}\n`);
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
}
