/** Cost where tokens are shown: `status`'s text view, `diff`'s steps and totals. */
import type { RunDiff, RunSide } from '../../../client/diff';
import { formatDiff } from '../../../client/text-views';
import { statusLines } from '../../../cli/format';
import { formatCost } from '../../../core/text';
import type { Progress } from '../../../workflows';

const progress = (usage: Progress['usage']) =>
  ({ status: 'completed', agent: 'a', question: 'q', plan: [], completed_steps: [], steps_executed: 1, max_steps: 5, usage }) as unknown as Progress;

const side = (id: string, cost: number | null): RunSide => ({
  workflow_id: id,
  agent: 'a',
  status: 'completed',
  plans: [],
  steps: [{ step: 'add', ok: true, result_preview: '2', tool_calls: [], usage: { input_tokens: 10, output_tokens: 2, cost_usd: cost }, duration_ms: 1000 }],
  usage: { input_tokens: 30, output_tokens: 6, cost_usd: cost === null ? null : cost * 3 },
  duration_ms: 2000,
  response: '2',
});

describe('cost in the text views', () => {
  it('formats dollars: cents from a cent up, six decimals below, unknown for null', () => {
    expect(formatCost(1.234)).toBe('$1.23');
    expect(formatCost(0.000175)).toBe('$0.000175');
    expect(formatCost(0.0000001)).toBe('<$0.000001');
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(null)).toBe('cost unknown');
    expect(formatCost(undefined)).toBe('cost unknown');
  });

  it('status shows the run’s cost beside its tokens', () => {
    expect(statusLines('r', progress({ input_tokens: 1000, output_tokens: 100, cost_usd: 0.0123 }))[0]).toBe('r: completed (agent a, steps 1/5, tokens in 1000 / out 100, $0.01)');
    expect(statusLines('r', progress({ input_tokens: 1000, output_tokens: 100, cost_usd: null }))[0]).toBe('r: completed (agent a, steps 1/5, tokens in 1000 / out 100, cost unknown)');
  });

  it('diff shows each step’s and each run’s cost beside their tokens', () => {
    const d: RunDiff = { a: side('A1', 0.0005), b: side('B1', null), settings: [], steps: [], same_response: true };
    d.steps = [{ index: 0, a: d.a.steps[0], b: d.b.steps[0], same: true }];
    const text = formatDiff(d);
    expect(text).toContain('  1 A add → 2 (10/2 tokens, $0.0005, 1.0 s)');
    expect(text).toContain('     B add → 2 (10/2 tokens, cost unknown, 1.0 s)');
    expect(text).toContain('total: A 30/6 tokens, $0.0015, 2.0 s | B 30/6 tokens, cost unknown, 2.0 s');
  });
});
