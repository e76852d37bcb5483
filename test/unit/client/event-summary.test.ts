/**
 * What a run event says to a person, in the three text views that show events: the CLI's event
 * lines (`watch`, `run --follow`), MCP progress notifications and the console's event stream
 * (its `summary`). One wording (client/text-views.ts eventLines): they cannot drift.
 */
import { EventPrinter } from '../../../cli/event-lines';
import { eventData } from '../../../console/api';
import { progressLine } from '../../../mcp/agent-runs';
import { eventSummary, StepTexts } from '../../../client/text-views';
import type { RunEvent, RunEventBody } from '../../../core/run-events';
import { oneLine } from '../../../core/text';

const BODIES: RunEventBody[] = [
  { type: 'run_started', workflow_id: 'wf', agent: 'adder', agent_type: 'plan_execute_and_reflect', question: 'q', memory_id: 'm', forked_from: { workflow_id: 'wf0', step: 2 } },
  { type: 'plan', steps: ['add 1', 'add\n2'] },
  { type: 'step_started', index: 0, step: 'add 1' },
  { type: 'model_delta', role: 'executor', step: 0, call: 'executor:0:0', text: 'thinking' },
  { type: 'retry', call: 'tool:0:0', attempt: 2, tool: 'CalculatorTool' },
  { type: 'tool_call', step: 0, tool: 'CalculatorTool', call: 'tool:0:0', input: '{"expression":"0+1"}' },
  { type: 'tool_result', step: 0, tool: 'CalculatorTool', call: 'tool:0:0', ok: false, output: 'bad\ninput' },
  { type: 'context_compacted', role: 'executor', step: 0, model: 'm1', strategy: 'summarize', window: 2000, tokens_before: 2500, tokens_after: 900, dropped: 3 },
  { type: 'step_finished', index: 0, ok: true, result: 'total\n1' },
  { type: 'decision_pending', id: 'tool-1-0', kind: 'tool', since: '2026-11-26T00:00:00Z', step: { index: 1, text: 'add 2', executor_workflow_id: 'wf/step-2' }, tool: 'CalculatorTool', input: { expression: '1+2' }, timeout: { at: '2026-11-26T01:00:00Z', action: 'reject' }, answer: ['perflow approve-tool wf', 'perflow deny-tool wf'] },
  { type: 'decision', id: 'tool-1-0', kind: 'tool', action: 'approve', by: 'alice' },
  { type: 'run_finished', status: 'failed', response: '', error: 'it broke\nbadly' },
];
const EVENTS: RunEvent[] = BODIES.map((b, offset) => ({ ...b, offset, at: '2026-11-26T00:00:00Z' }) as RunEvent);

/** Each event as the CLI prints it: the text it wrote for that event, on one line. */
function cliLines(events: RunEvent[]): Array<string | undefined> {
  let written = '';
  const printer = new EventPrinter({ write: (t) => void (written += t) });
  return events.map((e) => {
    written = '';
    printer.print(e);
    return e.type === 'model_delta' ? undefined : oneLine(written);
  });
}

describe('a run event, said once for every text view', () => {
  it('the CLI, MCP progress and the console stream give the same line for the same events', () => {
    const cli = cliLines(EVENTS);
    const steps = new StepTexts();
    const mcp = EVENTS.map((e) => progressLine(e, steps.of(e)));
    const streamed = EVENTS.map((e) => (JSON.parse(eventData(e)) as { summary?: string }).summary);
    expect(mcp).toEqual(cli);
    // The console's stream names no finished step's text: a resumed stream has not seen its start.
    expect(streamed).toEqual(EVENTS.map((e) => (e.type === 'step_finished' ? eventSummary(e) : cli[e.offset])));
    expect(cli).toEqual([
      'run wf started: adder (plan_execute_and_reflect), a fork of wf0 from step 2',
      'plan: 1. add 1 | 2. add 2',
      'step 1 running: add 1',
      undefined,
      '↻ CalculatorTool retried (attempt 2)',
      '→ CalculatorTool {"expression":"0+1"}',
      '← CalculatorTool (error): bad input',
      "⇣ executor (step 1) prompt compacted to fit m1's 2000 tokens: 3 oldest messages summarized (~2500 → ~900 tokens)",
      'step 1 done: add 1 → total 1',
      'awaiting approval of a tool call (tool-1-0) in step 2: CalculatorTool {"expression":"1+2"} (reject at 2026-11-26T01:00:00Z if nobody answers) answer: perflow approve-tool wf answer: perflow deny-tool wf',
      'decision tool-1-0: tool approve by alice',
      'run failed: it broke badly',
    ]);
    expect(streamed[8]).toBe('step 1 done → total 1');
  });

  it('a sub-agent’s events: the same line, indented by the CLI, named by MCP', () => {
    const sub: RunEvent = { type: 'tool_result', step: 0, tool: 'CalculatorTool', call: 'tool:0:0', ok: true, output: '445', offset: 3, at: '2026-11-26T00:00:00Z', run: 'wf/step-1/agent-1', agent_path: ['supervisor', 'researcher'] };
    let written = '';
    new EventPrinter({ write: (t) => void (written += t) }).print(sub);
    expect(written).toBe('      ← CalculatorTool: 445\n');
    expect(progressLine(sub)).toBe('[researcher] ← CalculatorTool: 445');
  });
});
