/**
 * What a pending decision says, in the CLI's lines (`pending`, `run --follow`) and in the
 * `progress` markdown the Temporal UI shows: one wording for both (core/decisions.ts pendingWhat).
 */
import type { PendingDecision } from '../../../core/decisions';
import { pendingLines } from '../../../client/text-views';
import { progressMarkdown, type Progress } from '../../../workflows/definitions';

const base = { since: '2026-11-26T00:00:00Z', answer: ['perflow approve wf'] };
const DECISIONS: Record<string, PendingDecision> = {
  plan: { ...base, id: 'plan-1', kind: 'plan', plan: ['look', 'count'] },
  tool: { ...base, id: 'tool-0-0', kind: 'tool', step: { index: 0, text: 's', executor_workflow_id: 'x' }, tool: 'CalculatorTool', input: { expression: '1+1' } },
  budget: { ...base, id: 'budget-1', kind: 'budget', budget: { max_cost_usd: 0.5, cost_usd: 0.51 } },
  tenant: { ...base, id: 'budget-2', kind: 'budget', budget: { max_cost_usd: 2, cost_usd: 2.1, reason: 'tenant', tenant: 'acme', day: '2026-11-26' } },
};

describe('a pending decision, said once', () => {
  it('in the CLI lines', () => {
    expect(Object.values(DECISIONS).map((d) => pendingLines(d)[0])).toEqual([
      'awaiting approval of the plan (plan-1):',
      'awaiting approval of a tool call (tool-0-0) in step 1: CalculatorTool {"expression":"1+1"}',
      'awaiting a budget decision (budget-1): the cost so far $0.51 reached max_cost_usd $0.50',
      "awaiting the tenant acme's daily budget (budget-2): $2.10 of $2.00 spent today (UTC day 2026-11-26)",
    ]);
    expect(pendingLines(DECISIONS.plan)).toEqual(['awaiting approval of the plan (plan-1):', '  1. look', '  2. count', '  answer: perflow approve wf']);
  });

  it('in the progress markdown', () => {
    const progress = { agent: 'a', status: 'running', question: 'q', memory_id: 'm', executor_agent_memory_id: 'e', plan: [], completed_steps: [], pending: Object.values(DECISIONS), steps_executed: 0, max_steps: 5, usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 } } as unknown as Progress;
    const lines = progressMarkdown(progress).split('\n').filter((l) => l.startsWith('**Awaiting'));
    expect(lines).toEqual([
      '**Awaiting approval of the plan:**',
      '**Awaiting approval of a tool call** (step 1): `CalculatorTool` with `{"expression":"1+1"}`',
      '**Awaiting a budget decision:** the cost so far $0.51 reached max_cost_usd $0.50',
      "**Awaiting the tenant acme's daily budget:** $2.10 of $2.00 spent today (UTC day 2026-11-26)",
    ]);
  });
});
