/**
 * Online scoring (an agent file's `scoring`) on real servers: of a dozen runs at sample 0.25,
 * exactly those the workflow-ID hash picks are scored, each in the abandoned `<id>/score`
 * workflow after its run completed, and stored with the run's IDs, agent and fingerprint; two
 * versions of an agent scored by a check and a priced judge (its cost counted into the
 * tenant's day) are told apart by `perflow scores --by fingerprint`; `perflow eval from-runs
 * --failed-check` turns the low-scoring runs into eval cases; the console's `/api/scores` and its
 * scores view show the same (a screenshot is kept outside the repository).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { agentFromJson, startRun } from '../../client/run';
import { sampledForScoring, scoringWorkflowId, type RunScore, type ScoreGroup } from '../../core/scoring';
import { utcDay } from '../../core/datetime';
import { TenantBudgets } from '../../stores/tenant-budgets';
import { listScores } from '../../stores/scores';
import { startConsole } from '../../console/server';
import { clientConfigFromEnv } from '../../config/env';
import { ensureChromium } from '../../scripts/ui-check';
import { screenshotFolder } from '../../scripts/screenshot-folders';
import type { EvalSuite } from '../../core/eval/types';
import type { RunOutput } from '../../workflows/definitions';
import { useCli } from '../support/cli';
import { final, plan } from '../support/harness';
import { calculatorTurns, withCalculator } from '../support/script';

jest.setTimeout(240_000);

const cli = useCli('scoring');
const PRICE = { input_per_million: 2, output_per_million: 8 };

function scoredAgent(name: string, answer: string, scoring: unknown) {
  return {
    name,
    type: 'plan_execute_and_reflect',
    llm: { interface: 'scripted', price: PRICE, script: { planner: [plan('compute 6*7'), final(answer)], executor: [calculatorTurns('6*7', '42')], score: ['{"pass": true, "reason": "polite enough"}'] } },
    ...withCalculator(),
    scoring,
  };
}

async function runAll(agentFile: unknown, runs: { workflowId: string; question: string }[], params: Record<string, unknown> = {}): Promise<RunOutput[]> {
  const { agent, parameters } = agentFromJson(agentFile, 'agent', params);
  const started = await Promise.all(runs.map((r) => startRun(cli.harness.perflow, { agent, parameters, question: r.question, workflowId: r.workflowId })));
  return Promise.all(started.map((s) => s.handle.result() as Promise<RunOutput>));
}

async function scoresOf(agent: string, count: number): Promise<RunScore[]> {
  for (let i = 0; i < 300; i++) {
    const scores = await listScores(cli.harness.db, { agent });
    if (scores.length >= count) return scores;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`fewer than ${count} runs of ${agent} were scored`);
}

it('scores exactly the runs the workflow-ID hash samples, after they ended, with their IDs and fingerprint', async () => {
  // Three IDs the hash picks at 0.25 and nine it does not: which ones must not depend on luck.
  const candidates = Array.from({ length: 200 }, () => `sampled-${randomUUID().slice(0, 8)}`);
  const picked = candidates.filter((id) => sampledForScoring(id, 0.25)).slice(0, 3);
  const passed = candidates.filter((id) => !sampledForScoring(id, 0.25)).slice(0, 9);
  const ids = [...picked, ...passed];
  const outputs = await runAll(scoredAgent('sampled', 'The answer is 42', { sample: 0.25, checks: [{ contains: '42' }] }), ids.map((workflowId, i) => ({ workflowId, question: `What is 6*7? (${i})` })));

  const scored = await Promise.all(picked.map((id) => cli.harness.client.workflow.getHandle(scoringWorkflowId(id)).result()));
  expect(scored).toEqual(picked.map(() => ({ passed: true, score: 1 })));
  for (const id of passed) await expect(cli.harness.client.workflow.getHandle(scoringWorkflowId(id)).describe()).rejects.toThrow();
  const scores = await scoresOf('sampled', 3);
  expect(scores.map((s) => s.workflow_id).sort()).toEqual([...picked].sort());

  const first = scores.find((s) => s.workflow_id === picked[0])!;
  const run = await cli.harness.client.workflow.getHandle(picked[0]).describe();
  const output = outputs[0];
  expect(first).toMatchObject({
    run_id: run.runId,
    memory_id: output.memory_id,
    agent: 'sampled',
    fingerprint: run.memo?.fingerprint,
    status: 'completed',
    response: 'The answer is 42',
    checks: [{ check: 'contains "42"', passed: true }],
    scored_by: [{ contains: '42' }],
  });
  expect(first.fingerprint).toMatch(/\S/);
  // The scoring started as the run ended, and the run did not wait for it to finish.
  const scoring = await cli.harness.client.workflow.getHandle(scoringWorkflowId(picked[0])).describe();
  expect(scoring.closeTime!.getTime()).toBeGreaterThanOrEqual(run.closeTime!.getTime());
});

it('tells two versions of an agent apart, counts judges into the tenant, and turns low scores into eval cases and a console table', async () => {
  const scoring = { sample: 1, checks: [{ contains: '42' }, { judge: 'The answer is polite' }] };
  const v1 = scoredAgent('triage', 'The answer is 42', scoring);
  const v2 = scoredAgent('triage', 'Sorry, I could not work it out', scoring);
  const tenant = { tenant_id: `acme-${randomUUID().slice(0, 6)}` };
  const good = await runAll(v1, [0, 1].map((i) => ({ workflowId: `triage-v1-${randomUUID().slice(0, 8)}`, question: `good question ${i}` })), tenant);
  const bad = await runAll(v2, [0, 1].map((i) => ({ workflowId: `triage-v2-${randomUUID().slice(0, 8)}`, question: `bad question ${i}` })), tenant);
  const scores = await scoresOf('triage', 4);

  // The judges' calls are priced, kept with the score, and counted into the tenant's day beside the runs' own.
  expect(scores.every((s) => (s.usage.cost_usd ?? 0) > 0 && s.tenant_id === tenant.tenant_id)).toBe(true);
  const runsCost = [...good, ...bad].reduce((sum, o) => sum + (o.usage.cost_usd ?? 0), 0);
  const judgesCost = scores.reduce((sum, s) => sum + (s.usage.cost_usd ?? 0), 0);
  expect(await new TenantBudgets(cli.harness.db).spent(tenant.tenant_id, utcDay(Date.now()))).toBeCloseTo(runsCost + judgesCost, 9);

  const r = await cli.perflow(['scores', '--agent', 'triage', '--by', 'fingerprint', '--since', '1d', '--json'], { MONGODB_URI: cli.memoryUri });
  expect(r.stderr).toBe('');
  const groups = JSON.parse(r.stdout) as ScoreGroup[];
  expect(groups).toHaveLength(2);
  const byRate = [...groups].sort((a, b) => a.pass_rate - b.pass_rate);
  expect(byRate.map((g) => [g.runs, g.pass_rate])).toEqual([
    [2, 0],
    [2, 1],
  ]);
  expect(byRate[0].checks).toEqual([
    { check: 'contains "42"', runs: 2, passed: 0, pass_rate: 0 },
    { check: 'judge "The answer is polite"', runs: 2, passed: 2, pass_rate: 1 },
  ]);
  expect(byRate[0].fingerprint).not.toBe(byRate[1].fingerprint);
  const text = await cli.perflow(['scores', '--agent', 'triage'], { MONGODB_URI: cli.memoryUri });
  expect(text.stdout).toContain('triage: 2/4 runs passed every check (50.0%)');
  expect(text.stdout).toContain('50.0%  2/4  contains "42"');

  // The runs that failed the check become eval cases that check it.
  const out = join(cli.dir, 'low.json');
  const made = await cli.perflow(['eval', 'from-runs', '--agent', 'triage', '--failed-check', 'contains "42"', '--out', out], { MONGODB_URI: cli.memoryUri });
  expect(made.stderr).toBe('');
  expect(made.stdout).toContain('wrote 2 cases');
  const suite = JSON.parse(readFileSync(out, 'utf8')) as EvalSuite;
  expect(suite.cases.map((c) => c.question).sort()).toEqual(['bad question 0', 'bad question 1']);
  expect(suite.cases.every((c) => JSON.stringify(c.checks) === JSON.stringify([{ contains: '42' }]))).toBe(true);
  const none = await cli.perflow(['eval', 'from-runs', '--agent', 'triage', '--score-below', '0.3', '--out', join(cli.dir, 'none.json')], { MONGODB_URI: cli.memoryUri });
  expect(none.code).not.toBe(0);
  expect(none.stderr).toContain('no scored run that scored below 0.3 of agent triage');

  // The console: the API and the scores view of the agent.
  const server = await startConsole({ config: clientConfigFromEnv({ ...process.env, ...cli.env, MONGODB_URI: cli.memoryUri }), port: 0, agentsDir: cli.dir });
  const browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    const api = await fetch(`${server.url}/api/scores?agent=triage`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(((await api.json()) as ScoreGroup[]).map((g) => g.pass_rate).sort()).toEqual([0, 1]);
    const page = await browser.newPage({ viewport: { width: 1100, height: 600 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/?token=${server.token}#/scores/triage`);
    await page.getByTestId('score-group').nth(1).waitFor({ timeout: 20_000 });
    expect((await page.getByTestId('score-pass-rate').allTextContents()).sort()).toEqual(['0.0%', '100.0%']);
    expect(await page.getByTestId('score-check').count()).toBe(4);
    const shot = join(screenshotFolder('perflow-scores-shots-'), 'console-scores.png');
    await page.screenshot({ path: shot });
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
    await server.close();
  }
});
