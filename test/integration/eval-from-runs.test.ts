/**
 * `eval from-runs` against real runs: a few scripted, encrypted runs of one agent, found through
 * visibility by agent and tenant, written as a suite that parses and holds each run's whole
 * question and answer.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { evalFromRuns } from '../../cli/commands/eval-from-runs';
import type { CommandContext } from '../../cli/context';
import { parseCommandLine } from '../../cli/options';
import { AGREES_WITH_REFERENCE, suiteFromRuns, type FromRunsOptions } from '../../client/eval-from-runs';
import { startRun } from '../../client/run';
import { encryptionDataConverter } from '../../codec/encryption';
import { clientConfigFromEnv, parseEncryptionKeys } from '../../config/env';
import { parseAgentDefinition, resolveParameters } from '../../core/agent';
import { judgeRequest, parseJudgeVerdict, scoreCase } from '../../core/eval/checks';
import { parseSuite } from '../../core/eval/suite';
import { final, scriptedAgent, useHarness } from '../support/harness';

jest.setTimeout(60_000);

const KEY = `K:${randomBytes(32).toString('base64')}`;
const tag = randomUUID().slice(0, 8);
const agentName = `from-runs-${tag}`;
const tenant = `t-${tag}`;
// Longer than the memo's preview, over several lines: the suite must hold all of it.
const LONG_QUESTION = `Summarise these notes ${tag}:\n${Array.from({ length: 60 }, (_, i) => `note ${i}: the harbour opens at ${i % 12} o'clock`).join('\n')}\nEND ${tag}`;
const harness = useHarness({ encryption: parseEncryptionKeys(KEY) });
let dir: string;
const started: string[] = [];

async function run(question: string, answer: string, tenantId: string): Promise<void> {
  const agent = parseAgentDefinition(scriptedAgent({ planner: [final(answer)] }, { name: agentName }));
  const { handle, workflowId } = await startRun(harness().perflow, { agent, parameters: resolveParameters(agent, { tenant_id: tenantId }), question });
  await handle.result();
  started.push(workflowId);
}

/** The suite once visibility shows `cases` runs (it lags the runs' completion a little). */
async function suiteOf(o: FromRunsOptions, cases: number, client = harness().client) {
  for (let i = 0; ; i++) {
    const suite = await suiteFromRuns(client, o);
    if (suite.cases.length >= cases || i >= 100) return suite;
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-from-runs-'));
  await run(LONG_QUESTION, `The harbour notes ${tag}, summarised.`, tenant);
  await run(`What opens first ${tag}?`, `The harbour ${tag}.`, tenant);
  await run(`Another tenant's question ${tag}`, 'not ours', `other-${tag}`);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("writes a suite of the agent's and tenant's completed runs, newest first, with whole questions and answers as references", async () => {
  const suite = await suiteOf({ agent: agentName, tenant, now: new Date('2026-11-24T10:00:00Z') }, 2);
  expect(parseSuite(JSON.parse(JSON.stringify(suite)), 'from-runs.json')).toEqual(suite);
  expect(suite.name).toBe('from-runs 2026-11-24');
  expect(suite.agent).toBeUndefined();
  expect(suite.cases).toEqual([
    { id: started[1], question: `What opens first ${tag}?`, reference: `The harbour ${tag}.`, checks: [{ judge: AGREES_WITH_REFERENCE }] },
    { id: started[0], question: LONG_QUESTION, reference: `The harbour notes ${tag}, summarised.`, checks: [{ judge: AGREES_WITH_REFERENCE }] },
  ]);
  // Scored, a case's judge sees the whole question and the recorded answer as the reference.
  const [long] = suite.cases.slice(1);
  const prompts: string[] = [];
  const observed = { status: 'completed', response: 'Summarised notes.', tools_called: [], steps: 1, usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 5 };
  const scored = await scoreCase(long.checks, observed, async (check, o) => {
    prompts.push(judgeRequest({ criteria: check.judge, question: long.question, response: o.response, ...(long.reference !== undefined ? { reference: long.reference } : {}) }).prompt);
    return parseJudgeVerdict('{"pass": true, "reason": "says what the reference says"}');
  });
  expect(scored).toEqual([{ check: `judge "${AGREES_WITH_REFERENCE}"`, passed: true, detail: 'says what the reference says' }]);
  expect(prompts[0]).toContain(LONG_QUESTION);
  expect(prompts[0]).toContain(`Reference answer (recorded earlier, taken as correct):\nThe harbour notes ${tag}, summarised.`);
});

it('takes the newest runs up to the limit, and none started before --since', async () => {
  await suiteOf({ agent: agentName }, 3);
  expect((await suiteFromRuns(harness().client, { agent: agentName, limit: 1 })).cases.map((c) => c.id)).toEqual([started[2]]);
  expect((await suiteFromRuns(harness().client, { agent: agentName, since: new Date(Date.now() + 60_000) })).cases).toEqual([]);
});

it('leaves out, and names, runs this client has no key for', async () => {
  const withOtherKey = new Client({ connection: harness().client.connection, dataConverter: encryptionDataConverter(parseEncryptionKeys(`B:${randomBytes(32).toString('base64')}`)) });
  const skipped: string[] = [];
  const suite = await suiteFromRuns(withOtherKey, { agent: agentName, tenant, skipped: (id, reason) => skipped.push(`${id}: ${reason}`) });
  expect(suite.cases).toEqual([]);
  expect(skipped).toHaveLength(2);
  expect(skipped[0]).toContain('"K"');
});

describe('the evalFromRuns handler', () => {
  const ctx = (args: string[]): CommandContext => {
    const { values, positionals } = parseCommandLine(args);
    const env = { ...process.env, PERFLOW_ENCRYPTION_KEYS: KEY };
    return { command: 'eval', o: values, positionals, config: clientConfigFromEnv(env), env };
  };
  let printed: string[];
  beforeEach(() => {
    printed = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (printed.push(String(chunk)), true));
  });
  afterEach(() => jest.restoreAllMocks());

  it('writes the suite file, and overwrites it only with --force', async () => {
    const out = join(dir, 'suite.json');
    const args = ['from-runs', '--agent', agentName, '--tenant', tenant, '--since', new Date(Date.now() - 3_600_000).toISOString(), '--limit', '5', '--out', out];
    await expect(evalFromRuns(ctx(args))).resolves.toBe(0);
    expect(printed).toEqual([`wrote 2 cases to ${out}\n`]);
    const suite = parseSuite(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(suite.cases.map((c) => c.question)).toEqual([`What opens first ${tag}?`, LONG_QUESTION]);
    await expect(evalFromRuns(ctx(args))).rejects.toMatchObject({ message: `${out} exists already; pass --force to overwrite it`, kind: 'refused' });
    await expect(evalFromRuns(ctx([...args, '--force']))).resolves.toBe(0);
  });

  it('refuses a bad --since, --limit or a missing --out in one line (exit 2), and says when no run matches', async () => {
    const out = join(dir, 'never.json');
    await expect(evalFromRuns(ctx(['from-runs', '--since', 'yesterday', '--out', out]))).rejects.toMatchObject({
      message: '--since must be an ISO date or date-time such as 2026-11-24 or 2026-11-24T08:00:00Z, got "yesterday"',
      kind: 'invalid',
    });
    await expect(evalFromRuns(ctx(['from-runs', '--since', '2026-02-30', '--out', out]))).rejects.toMatchObject({ kind: 'invalid' });
    await expect(evalFromRuns(ctx(['from-runs', '--limit', '1001', '--out', out]))).rejects.toMatchObject({ message: '--limit must be an integer from 1 to 1000, got "1001"', kind: 'invalid' });
    await expect(evalFromRuns(ctx(['from-runs']))).rejects.toMatchObject({ message: 'eval from-runs needs --out FILE (the suite file to write)', kind: 'invalid' });
    await expect(evalFromRuns(ctx(['from-runs', '--agent', `nobody-${tag}`, '--out', out]))).rejects.toMatchObject({
      message: `no completed run of agent nobody-${tag} to make a suite of; nothing written`,
      kind: 'failed',
    });
  });
});
