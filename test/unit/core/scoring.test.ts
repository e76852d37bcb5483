import { randomUUID } from 'node:crypto';
import { sampledForScoring, summarizeScores, type RunScore } from '../../../core/scoring';
import { parseAgentDefinition } from '../../../core/agent';
import { parseSinceAgo } from '../../../client/scores';
import { lowScoreOptions } from '../../../cli/commands/eval-from-runs';

describe('the scoring sampler', () => {
  // Workflow IDs as perflow run names them: a prefix and a counter, and random UUIDs.
  const counted = Array.from({ length: 100 }, (_, i) => `triage-run-${i + 1}`);
  const random = Array.from({ length: 100 }, () => randomUUID());

  it.each([
    ['counted', counted],
    ['random', random],
  ])('scores about a quarter of 100 %s workflow IDs at sample 0.25, the same ones every time', (_kind, ids) => {
    const chosen = ids.filter((id) => sampledForScoring(id, 0.25));
    expect(chosen.length).toBeGreaterThanOrEqual(15);
    expect(chosen.length).toBeLessThanOrEqual(35);
    // A replay, another worker: the same decision for the same ID.
    expect(ids.filter((id) => sampledForScoring(id, 0.25))).toEqual(chosen);
  });

  it('spreads over many IDs close to the rate, nests lower rates in higher ones, and takes all or none at 1 and 0', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `run-${i}`);
    const at = (rate: number) => ids.filter((id) => sampledForScoring(id, rate));
    expect(at(0.1).length / ids.length).toBeCloseTo(0.1, 1);
    expect(at(0.5).length / ids.length).toBeCloseTo(0.5, 1);
    const half = new Set(at(0.5));
    expect(at(0.1).every((id) => half.has(id))).toBe(true);
    expect(at(1)).toHaveLength(ids.length);
    expect(at(0)).toHaveLength(0);
  });
});

describe('score summaries', () => {
  const score = (agent: string, fingerprint: string, passed: boolean[]): RunScore => ({
    workflow_id: randomUUID(),
    run_id: 'r',
    memory_id: 'm',
    agent,
    fingerprint,
    status: 'completed',
    question: 'q',
    response: 'a',
    checks: passed.map((p, i) => ({ check: `check ${i}`, passed: p, detail: '' })),
    scored_by: passed.map((_, i) => ({ contains: `${i}` })),
    passed: passed.every(Boolean),
    score: passed.filter(Boolean).length / passed.length,
    usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    ended_at: '2026-11-28T00:00:00Z',
    scored_at: '2026-11-28T00:00:00Z',
  });
  const scores = [score('triage', 'v1', [true, false]), score('triage', 'v1', [true, true]), score('triage', 'v2', [true, true]), score('other', 'x', [false])];

  it('gives pass rates per agent and per check', () => {
    expect(summarizeScores(scores)).toEqual([
      { agent: 'other', runs: 1, passed: 0, pass_rate: 0, checks: [{ check: 'check 0', runs: 1, passed: 0, pass_rate: 0 }] },
      {
        agent: 'triage',
        runs: 3,
        passed: 2,
        pass_rate: 0.667,
        checks: [
          { check: 'check 0', runs: 3, passed: 3, pass_rate: 1 },
          { check: 'check 1', runs: 3, passed: 2, pass_rate: 0.667 },
        ],
      },
    ]);
  });

  it('separates the versions of an agent by fingerprint', () => {
    const triage = summarizeScores(scores, true).filter((g) => g.agent === 'triage');
    expect(triage.map((g) => [g.fingerprint, g.runs, g.pass_rate])).toEqual([
      ['v1', 2, 0.5],
      ['v2', 1, 1],
    ]);
  });
});

describe('the agent file\'s scoring', () => {
  const agent = (scoring: unknown) => parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, scoring });

  it('takes a sample and eval checks, judges included', () => {
    expect(agent({ sample: 0.1, checks: [{ contains: 'x' }, { judge: 'polite' }] }).scoring).toEqual({ sample: 0.1, checks: [{ contains: 'x' }, { judge: 'polite' }] });
  });

  it.each([
    [{ sample: 1.5, checks: [{ contains: 'x' }] }, /scoring\.sample.*from 0 to 1/],
    [{ sample: 0.1, checks: [] }, /scoring\.checks.*at least one check/],
    [{ sample: 0.1, checks: [{ nope: 1 }] }, /scoring\.checks/],
    [{ checks: [{ contains: 'x' }] }, /scoring\.sample/],
  ])('refuses %j in one line naming what to fix', (scoring, message) => {
    expect(() => agent(scoring)).toThrow(message);
  });
});

describe('the options of scores and low-score suites', () => {
  it('reads --since as a time ago or a date', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(parseSinceAgo('7d', now).toISOString()).toBe('2026-11-21T12:00:00.000Z');
    expect(parseSinceAgo('24h', now).toISOString()).toBe('2026-11-27T12:00:00.000Z');
    expect(parseSinceAgo('2026-11-01').toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(() => parseSinceAgo('last week')).toThrow('--since must be a time ago such as 7d');
  });

  it('reads --failed-check and --score-below, refusing a score outside (0, 1]', () => {
    expect(lowScoreOptions(undefined, undefined)).toBeUndefined();
    expect(lowScoreOptions('contains "42"', undefined)).toEqual({ failedCheck: 'contains "42"' });
    expect(lowScoreOptions(undefined, '0.5')).toEqual({ scoreBelow: 0.5 });
    expect(() => lowScoreOptions(undefined, '2')).toThrow('--score-below must be a score above 0 and at most 1');
    expect(() => lowScoreOptions(undefined, 'x')).toThrow('--score-below');
  });
});
