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
  steps: [{ step: 'add', ok: true, result_preview: '2', tool_calls: [], sub_runs: [], usage: { input_tokens: 10, output_tokens: 2, cost_usd: cost }, duration_ms: 1000 }],
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
    const d: RunDiff = { a: side('A1', 0.0005), b: side('B1', null), fingerprint: { a: 'f00d', b: 'f00d', same: true, differs: [] }, settings: [], steps: [], same_response: true, sub_agents: [] };
    d.steps = [{ index: 0, a: d.a.steps[0], b: d.b.steps[0], same: true }];
    const text = formatDiff(d);
    expect(text).toContain('  1 A add → 2 (10/2 tokens, $0.0005, 1.0 s)');
    expect(text).toContain('     B add → 2 (10/2 tokens, cost unknown, 1.0 s)');
    expect(text).toContain('total: A 30/6 tokens, $0.0015, 2.0 s | B 30/6 tokens, cost unknown, 2.0 s');
    expect(text).not.toContain('sub-agents');
    expect(text.split('\n')[0]).toBe('same fingerprint f00d');
  });

  it('diff marks counts a server did not report in full as lower bounds', () => {
    const local = side('L1', null);
    local.usage = { ...local.usage, tokens_unknown: true };
    const d: RunDiff = { a: side('A1', 0.0005), b: local, fingerprint: { a: 'f00d', b: 'f00d', same: true, differs: [] }, settings: [], steps: [], same_response: true, sub_agents: [] };
    expect(formatDiff(d)).toContain('total: A 30/6 tokens, $0.0015, 2.0 s | B ≥30/≥6 tokens, cost unknown, 2.0 s');
  });

  it('diff of two agent trees: a reused node in one line, a differing one with its own diff indented under it', () => {
    const child: RunDiff = { a: { ...side('A1/step-2/agent-1', 0.0001), response: '4' }, b: side('B1/step-2/agent-1', 0.0002), fingerprint: { a: 'f1', b: 'f2', same: false, differs: ['prompts'] }, settings: [], steps: [], same_response: false, sub_agents: [] };
    const d: RunDiff = {
      a: side('A1', 0.0005),
      b: side('B1', 0.0005),
      fingerprint: { same: false, differs: [] },
      settings: [],
      steps: [],
      same_response: true,
      sub_agents: [
        { step: 0, call: 0, tool: 'researcher', a: 'A1/step-1/agent-1', b: 'A1/step-1/agent-1', shared: true, same: true },
        { step: 1, call: 0, tool: 'accountant', a: 'A1/step-2/agent-1', b: 'B1/step-2/agent-1', diff: child, same: false },
        { step: 1, call: 1, tool: 'accountant', a: 'A1/step-2/agent-2', same: false },
      ],
    };
    const lines = formatDiff(d).split('\n');
    const at = lines.indexOf('sub-agents, node by node:');
    expect(lines.slice(at + 1, at + 3)).toEqual(['  step 1 researcher: one run, reused: A1/step-1/agent-1', '≠ step 2 accountant: A A1/step-2/agent-1 | B B1/step-2/agent-1']);
    expect(lines[0]).toBe('fingerprints A (none recorded) | B (none recorded)');
    expect(lines.slice(at + 3, at + 5)).toEqual(['    ≠ fingerprints A f1 | B f2: prompts differ', '    A A1/step-2/agent-1 (a, completed)']);
    expect(lines).toContain('    ≠ response A: 4');
    expect(lines.at(-1)).toBe('≠ step 2 accountant #2: A A1/step-2/agent-2 | B —');
  });
});
