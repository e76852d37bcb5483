/**
 * The console page, driven as a person would in headless Chromium against a console server
 * started in this process (with a token) on the test servers: start a run that waits for its
 * plan, watch the planner's answer stream in, edit and approve the plan, deny one tool call and
 * run another with edited input, see the response; fork a finished run from step 2 with another
 * question and a parameter, compare the two side by side; a POST from a foreign origin is
 * refused; a run started with a webhook shows its delivery; a schedule listed, run, paused and deleted; a remote agent's question answered; an eval followed to its end, a case to its run, and two evals compared case by case.
 * A screenshot of the run view is saved outside the repository (and, with
 * PERFLOW_UPDATE_SCREENSHOTS=1, as docs/images/console-run.png for the README). Over 300 lines on
 * purpose: one browser and one console server for every view.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { ensureChromium } from '../../../scripts/ui-check';
import { screenshotFolder } from '../../../scripts/screenshot-folders';
import { longTalker } from '../../support/script';
import { startA2ARemote } from '../../support/a2a-remote';
import { final, plan } from '../../support/harness';
import { startConsole, type ConsoleServer } from '../../../console/server';
import { clientConfigFromEnv } from '../../../config/env';
import { useCli } from '../../support/cli';
import { typedAgent } from '../../support/typed-agents';
import { loadAgentFile } from '../../../client/run';
import { createSchedule, deleteSchedule } from '../../../client/schedules';

jest.setTimeout(120_000);

const cli = useCli('console');
/** The token the console made at start (as `perflow console` prints it in its URL). */
let TOKEN: string;
// The planner streams its answer in pieces of 4 characters over 1.2 s: slow enough to watch.
const STREAMED = { latency_ms: 1_200, stream_chunk_chars: 4 };

let dir: string;
/** Screenshots, kept after the test for a person to look at (the last few runs' folders). */
let shots: string;
let server: ConsoleServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
/** Requests the page made that the server refused: `METHOD path status`. */
const refused: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-console-ui-'));
  shots = screenshotFolder('perflow-console-shots-');
  const agents = join(dir, 'agents');
  mkdirSync(agents);
  // Two steps; every calculator call waits for a person.
  const reviewed = typedAgent('plan_execute_and_reflect', 2, { parameters: { max_steps: 6 } });
  reviewed.name = 'reviewed-adder';
  reviewed.tools = [{ type: 'CalculatorTool', requires_approval: true }];
  (reviewed.llm as Record<string, unknown>).parameters = STREAMED;
  writeFileSync(join(agents, 'reviewed-adder.json'), JSON.stringify(reviewed));
  // Three steps, quickly, nobody asked: a run to fork and compare.
  const quick = typedAgent('plan_execute_and_reflect', 3);
  quick.name = 'quick-adder';
  (quick.llm as Record<string, unknown>).parameters = { latency_ms: 60, stream_chunk_chars: 8 };
  // Priced, so the compare view shows costs (the other agents' scripted model has none).
  (quick.llm as Record<string, unknown>).price = { input_per_million: 2, output_per_million: 8 };
  writeFileSync(join(agents, 'quick-adder.json'), JSON.stringify(quick));

  // Long answers in a small context window: its prompts are compacted as it goes.
  writeFileSync(join(agents, 'long-talker.json'), JSON.stringify(longTalker({ context_window: 2_000, parameters: { latency_ms: 40, stream_chunk_chars: 200 } })));

  // An agent tree (the example's), its sub-agents in a folder of the agents folder; the accountant's calculator waits for a person.
  const example = resolve(__dirname, '../../../examples/multi-agent');
  mkdirSync(join(agents, 'tree'));
  const supervisor = JSON.parse(readFileSync(join(example, 'supervisor.json'), 'utf8')) as { name: string };
  supervisor.name = 'tree-supervisor';
  writeFileSync(join(agents, 'tree-supervisor.json'), JSON.stringify(supervisor).replaceAll('./', './tree/'));
  copyFileSync(join(example, 'researcher.json'), join(agents, 'tree', 'researcher.json'));
  const accountant = JSON.parse(readFileSync(join(example, 'accountant.json'), 'utf8')) as { tools: unknown[] };
  accountant.tools = [{ type: 'CalculatorTool', requires_approval: true }];
  writeFileSync(join(agents, 'tree', 'accountant.json'), JSON.stringify(accountant));

  // A typed answer, and an agent whose guardrail refuses a question.
  const typed = typedAgent('plan_execute_and_reflect', 1);
  typed.name = 'typed-adder';
  (typed.llm as { script: Record<string, unknown> }).script.output = ['{"total": 1, "unit": "count"}'];
  writeFileSync(join(agents, 'typed-adder.json'), JSON.stringify({ ...typed, output_schema: { type: 'object', properties: { total: { type: 'integer' }, unit: { type: 'string' } }, required: ['total'] }, guardrails: { input: [{ not_contains: 'password', on_fail: 'stop' }] } }));

  const env = { ...process.env, ...cli.env };
  server = await startConsole({ config: clientConfigFromEnv(env), port: 0, agentsDir: agents });
  TOKEN = server.token!;
  browser = await chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    // rebind.example resolves to this machine, as a rebinding attacker's name would.
    args: ['--host-resolver-rules=MAP rebind.example 127.0.0.1', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400) refused.push(`${r.request().method()} ${new URL(r.url()).pathname.replace(/\/runs\/[^/]+/, '/runs/ID')} ${r.status()}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/api${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });

const byTestId = (id: string) => page.getByTestId(id);

it('starts, watches, steers, forks and compares runs', async () => {
  // A run to fork later, started by a script while the person works on the other one.
  const quick = (await (await api('/runs', { method: 'POST', body: JSON.stringify({ agent: 'quick-adder.json', question: 'What is 1+2+3?' }) })).json()) as { workflow_id: string };

  // The page is opened from the URL the console prints: the token arrives in it once; the page
  // keeps it and takes it out of the address bar.
  expect(server.openUrl).toBe(`${server.url}/?token=${TOKEN}`);
  await page.goto(server.openUrl);
  await count(byTestId('start-agent').locator('option'), 5); // reviewed-adder, quick-adder, long-talker, tree-supervisor, typed-adder
  expect(page.url()).not.toContain(TOKEN);

  await byTestId('start-agent').selectOption('reviewed-adder.json');
  await byTestId('start-question').fill('What is 1+2?');
  await byTestId('start-params').fill('plan_approval=first');
  await byTestId('start-submit').click();
  await page.waitForURL(/#\/runs\//);
  const id = decodeURIComponent(page.url().split('#/runs/')[1]);
  await text(byTestId('run-question'), /^What is 1\+2\?$/);
  await text(byTestId('run-fingerprint'), /^fingerprint [0-9a-f]{12}$/);

  // The planner's answer arrives in pieces, before it is whole (and long before the run ends).
  const planner = page.locator('[data-testid="model-call"][data-role="planner"] [data-testid="model-text"]').first();
  const seen = new Set<string>();
  for (let deadline = Date.now() + 15_000; Date.now() < deadline && !(await byTestId('plan-decision').isVisible()); ) {
    const text = (await planner.textContent({ timeout: 50 }).catch(() => null)) ?? '';
    if (text) seen.add(text);
    await page.waitForTimeout(40);
  }
  const whole = JSON.stringify({ steps: ['add 1', 'add 2'], result: '' });
  await text(planner, whole, 5_000);
  expect([...seen].some((t) => t.length < whole.length && whole.startsWith(t))).toBe(true);

  // The runs list says what the run waits for.
  const row = page.locator(`[data-testid="run-row"][data-workflow-id="${id}"]`);
  await text(row.getByTestId('run-waiting'), 'waits for plan');

  // Edit the plan in place: reword the first step, drop the second, add another; approve.
  const steps = byTestId('plan-step-input');
  await count(steps, 2);
  await steps.nth(0).fill('add 1 to nothing');
  await byTestId('plan-step-remove').nth(1).click();
  await byTestId('plan-step-add').click();
  await steps.nth(1).fill('add 2 to that');
  await screenshot('console-plan-review.png');
  await byTestId('plan-approve').click();
  await text(page.locator('[data-testid="step"][data-state="running"]'), 'add 1 to nothing');

  // The first tool call: deny it with a reason.
  await byTestId('tool-decision').waitFor({ timeout: 15_000 });
  await value(byTestId('tool-input-edit'), /"expression": "0\+1"/);
  // Meanwhile: guidance for the planner, and a pause taken back.
  await byTestId('guide-text').fill('keep the steps small');
  await byTestId('guide-send').click();
  await text(byTestId('decision-log'), 'keep the steps small');
  await byTestId('pause').click();
  await byTestId('resume').click({ timeout: 10_000 });
  await byTestId('pause').waitFor({ timeout: 10_000 });
  await byTestId('tool-reason').fill('no calculator for this one');
  await byTestId('tool-deny').click();
  // A denied call never runs: the activity says it was denied, the decisions list why.
  await text(page.locator('[data-testid="decision-entry"]').filter({ hasText: 'CalculatorTool' }).first(), 'denied');
  await text(byTestId('decision-log'), 'no calculator for this one');

  // The second: an input the tool does not take is refused with the API's one line; then one it takes.
  await value(byTestId('tool-input-edit'), /"expression": "1\+2"/, 20_000);
  await byTestId('tool-input-edit').fill('{"expression": 12}');
  await byTestId('tool-approve').click();
  await text(byTestId('decision-error'), 'did not accept');
  await byTestId('tool-input-edit').fill('{"expression": "1+2+0"}');
  await byTestId('tool-approve').click();
  await text(page.locator('[data-testid="tool-call"] [data-testid="tool-output"]').first(), /^3$/);

  // The run ends with the response; the view shows the steps, usage, and the decisions taken.
  await text(byTestId('run-response'), /^the total is 3$/, 20_000);
  await text(byTestId('run-view-status'), /^completed$/);
  await count(page.locator('[data-testid="step"][data-state="done"]'), 2);
  await text(byTestId('run-usage'), 'steps 2/6');
  await text(byTestId('run-usage'), 'cost unknown');
  await text(byTestId('decision-log'), 'plan edit');
  await text(byTestId('decision-log'), 'tool deny');
  expect(await byTestId('temporal-link').getAttribute('href')).toContain(encodeURIComponent(id));
  await text(row.getByTestId('run-status'), /^completed$/);
  await screenshot('console-run.png');

  // The memory view lists the exchange.
  await byTestId('memory-link').click();
  await count(byTestId('memory-exchange'), 1);
  await text(byTestId('memory-exchange'), 'the total is 3');
  await screenshot('console-memory.png');

  // Fork the script's run from step 2 with another question and a parameter.
  await page.goto(`${server.url}/#/runs/${encodeURIComponent(quick.workflow_id)}`);
  await text(byTestId('run-response'), /^the total is 6$/, 20_000);
  await byTestId('fork-open').nth(1).click();
  await byTestId('fork-question').fill('What is 1+2+3, once more?');
  await byTestId('fork-params').fill('max_steps=9');
  await byTestId('fork-submit').click();
  await page.waitForURL((url) => url.hash.startsWith('#/runs/') && !url.hash.includes(encodeURIComponent(quick.workflow_id)));
  const fork = decodeURIComponent(page.url().split('#/runs/')[1]);
  await text(byTestId('run-response'), /^the total is 6$/, 20_000);
  await text(byTestId('run-question'), 'What is 1+2+3, once more?');

  // Tick both in the list and compare.
  await page.locator(`[data-testid="run-row"][data-workflow-id="${quick.workflow_id}"] [data-testid="run-pick"]`).check();
  await page.locator(`[data-testid="run-row"][data-workflow-id="${fork}"] [data-testid="run-pick"]`).check();
  await byTestId('compare').click();
  await byTestId('diff-view').waitFor({ timeout: 15_000 });
  await text(page.locator('[data-testid="diff-setting"][data-key="question"]'), 'once more');
  await text(page.locator('[data-testid="diff-setting"][data-key="parameters.max_steps"]'), '9');
  await count(byTestId('diff-step'), 3);
  await text(byTestId('diff-totals'), /out · \$0\.\d+ · .* out · \$0\.\d+ · /);
  await text(byTestId('diff-side-a'), quick.workflow_id);
  await text(byTestId('diff-side-b'), fork);
  await screenshot('console-diff.png');

  expect(pageErrors).toEqual([]);
  // Only the decision the run refused.
  expect(refused).toEqual(['POST /api/runs/ID/decisions 409']);
});

it('cancels a run that waits', async () => {
  const started = (await (await api('/runs', { method: 'POST', body: JSON.stringify({ agent: 'reviewed-adder.json', question: 'What is 2+2?', params: { plan_approval: 'first' } }) })).json()) as { workflow_id: string };
  await page.goto(`${server.url}/#/runs/${encodeURIComponent(started.workflow_id)}`);
  await byTestId('plan-decision').waitFor({ timeout: 15_000 });
  await byTestId('cancel').click();
  await byTestId('cancel-confirm').click();
  await text(byTestId('run-view-status'), /^cancel+ed$/, 15_000);
  await text(page.locator(`[data-testid="run-row"][data-workflow-id="${started.workflow_id}"] [data-testid="run-status"]`), /cancel/);
});

it('raises the budget of a run that waits at its max_cost_usd, and shows what it cost', async () => {
  const started = (await (await api('/runs', { method: 'POST', body: JSON.stringify({ agent: 'quick-adder.json', question: 'What is 1+2+3, cheaply?', params: { max_cost_usd: 1e-8 } }) })).json()) as { workflow_id: string };
  await page.goto(`${server.url}/?token=${TOKEN}#/runs/${encodeURIComponent(started.workflow_id)}`);
  await byTestId('budget-decision').waitFor({ timeout: 15_000 });
  await text(byTestId('run-view-status'), 'awaiting_budget');
  await text(byTestId('budget-cost'), /^\$\d/);
  await text(page.locator(`[data-testid="run-row"][data-workflow-id="${started.workflow_id}"] [data-testid="run-waiting"]`), 'waits for budget');
  await page.screenshot({ path: join(shots, 'console-budget.png') });
  await byTestId('budget-usd').fill('1');
  await byTestId('budget-raise').click();
  await text(byTestId('run-view-status'), 'completed', 20_000);
  await text(byTestId('run-usage'), /\$\d/);
  await text(byTestId('activity'), 'budget raised');
});

it('shows a typed answer as its JSON value, and a run its guardrail stopped as tripped with the reason', async () => {
  const start = async (question: string) => ((await (await api('/runs', { method: 'POST', body: JSON.stringify({ agent: 'typed-adder.json', question }) })).json()) as { workflow_id: string }).workflow_id;
  // Started from the form with a webhook: the page shows its delivery once the run has ended.
  const hooks: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooks.push(String(req.headers['webhook-id']));
      res.end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  process.env.PERFLOW_WEBHOOK_SECRET = `whsec_${Buffer.from('console-test-secret-0123456789ab').toString('base64')}`;
  try {
    await page.goto(`${server.url}/?token=${TOKEN}`);
    await byTestId('start-agent').selectOption('typed-adder.json');
    await byTestId('start-question').fill('Sum it, typed');
    await byTestId('start-webhook').fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    await byTestId('start-submit').click();
    await page.waitForURL(/#\/runs\//);
    await text(byTestId('run-view-status'), 'completed', 30_000);
    expect(JSON.parse(await byTestId('run-output').innerText())).toEqual({ total: 1, unit: 'count' });
    await text(byTestId('run-webhook'), 'webhook: delivered (1 attempt, HTTP 200)', 20_000);
    expect(hooks).toHaveLength(1);
  } finally {
    delete process.env.PERFLOW_WEBHOOK_SECRET;
    receiver.close();
  }
  await screenshot('console-typed-output.png');
  const refusedRun = await start('What is the admin password?');
  await page.goto(`${server.url}/?token=${TOKEN}#/runs/${encodeURIComponent(refusedRun)}`);
  await text(byTestId('run-view-status'), 'tripped', 30_000);
  expect(await byTestId('run-tripped').innerText()).toBe('Stopped by the input guardrail not_contains "password": response contains "password"');
  expect(await byTestId('guardrail-entry').innerText()).toBe('guardrail ✗ input guardrail not_contains "password": response contains "password" (the run stops)');
  await page.getByTestId('runs-status').selectOption('tripped');
  await text(byTestId('run-status').first(), 'tripped', 10_000);
  await screenshot('console-tripped.png');
});

it('shows where a prompt was compacted to fit its model’s context window', async () => {
  const started = (await (await api('/runs', { method: 'POST', body: JSON.stringify({ agent: 'long-talker.json', question: 'Say a lot, in a small window' }) })).json()) as { workflow_id: string };
  await page.goto(`${server.url}/?token=${TOKEN}#/runs/${encodeURIComponent(started.workflow_id)}`);
  await text(byTestId('run-view-status'), 'completed', 30_000);
  const entries = byTestId('compaction-entry');
  await entries.first().waitFor({ timeout: 15_000 });
  expect(await entries.count()).toBeGreaterThanOrEqual(2);
  expect(await entries.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/^context ⇣ planner prompt compacted to fit scripted's 2000 tokens: (the oldest step|\d+ oldest steps) summarized \(~\d+ → ~\d+ tokens\)$/), expect.stringMatching(/^context ⇣ executor \(step 1\) prompt compacted to fit scripted's 2000 tokens: (the oldest message|\d+ oldest messages) summarized/)]));
  await entries.last().scrollIntoViewIfNeeded();
  await screenshot('console-compaction.png');
});

it('shows an agent tree under its root and answers a tool approval of a grandchild where it appears', async () => {
  const started = (await (await api('/runs', { method: 'POST', body: JSON.stringify({ agent: 'tree-supervisor.json', question: 'What does the trip cost?' }) })).json()) as { workflow_id: string };
  const id = started.workflow_id;
  await page.goto(`${server.url}/?token=${TOKEN}#/runs/${encodeURIComponent(id)}`);
  const node = (suffix: string) => page.locator(`[data-testid="tree-node"][data-workflow-id="${id}${suffix}"]`);
  // supervisor → researcher → accountant: the accountant's calculator call waits, shown under its node.
  await node('/step-1/agent-1/step-1/agent-1').getByTestId('tool-decision').waitFor({ timeout: 30_000 });
  await text(node('/step-1/agent-1/step-1/agent-1').getByTestId('tree-node-status'), 'awaiting_approval');
  await text(node('/step-1/agent-1').getByTestId('tree-node-status'), 'executing');
  await text(node('/step-1/agent-1/step-1/agent-1').getByTestId('tool-decision-tool'), 'CalculatorTool');
  await screenshot('console-agent-tree.png');
  await node('/step-1/agent-1/step-1/agent-1').getByTestId('tool-approve').click();
  // Then the supervisor's own call of the accountant waits.
  await node('/step-2/agent-1').getByTestId('tool-approve').click({ timeout: 30_000 });
  await text(byTestId('run-view-status'), 'completed', 30_000);
  await count(byTestId('tree-node'), 3);
  await text(node('/step-2/agent-1').getByTestId('tree-node-status'), 'completed');
  await text(byTestId('run-response'), /^The trip costs 445/);

  // Two trees compared node by node: a fork from step 2 reuses the researcher's run, calls the accountant anew.
  const fork = (await (await api(`/runs/${encodeURIComponent(id)}/fork`, { method: 'POST', body: JSON.stringify({ from_step: 2 }) })).json()) as { workflow_id: string };
  const forkPath = `/runs/${encodeURIComponent(fork.workflow_id)}`;
  await until('the fork\'s tool approval', async () => (await api(`${forkPath}/decisions`, { method: 'POST', body: JSON.stringify({ kind: 'approve_tool' }) })).status, (s) => s === 200, 30_000);
  await until('the fork to complete', async () => ((await (await api(forkPath)).json()) as { status: string }).status, (s) => s === 'completed', 30_000);
  await page.goto(`${server.url}/?token=${TOKEN}#/diff/${encodeURIComponent(id)}/${encodeURIComponent(fork.workflow_id)}`);
  await count(byTestId('diff-sub-agent'), 2, 15_000);
  await text(byTestId('diff-sub-agent').nth(0), `step 1 researcher${id}/step-1/agent-1 one run, reused by both`);
  await text(byTestId('diff-sub-agent').nth(1), `step 2 accountant${id}/step-2/agent-1${fork.workflow_id}/step-2/agent-1 compare`);
  await byTestId('diff-sub-agent').nth(1).scrollIntoViewIfNeeded();
  await screenshot('console-diff-tree.png');
  await byTestId('diff-sub-agent-compare').click();
  await text(byTestId('diff-side-b'), `${fork.workflow_id}/step-2/agent-1`, 15_000);
  await text(byTestId('diff-response'), /445/);
});

it('lists schedules, shows one with its next runs, and runs, pauses with a note and deletes it', async () => {
  const id = `console-hourly-${process.pid}`;
  const agent = await loadAgentFile(join(dir, 'agents', 'quick-adder.json'));
  await createSchedule(cli.harness.perflow, { id, agent, question: 'What is 1+2+3, hourly?', every: '1h', timezone: 'Europe/Berlin' });
  try {
    await page.goto(`${server.url}/?token=${TOKEN}#/schedules`);
    const row = page.locator(`[data-testid="schedule-row"][data-schedule-id="${id}"]`);
    await text(row.getByTestId('schedule-state'), 'active', 15_000);
    await text(row.getByTestId('schedule-next'), /^next \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+0[12]:00$/);
    await row.locator('a').click();
    await text(byTestId('schedule-spec'), 'every 1h');
    expect(await byTestId('schedule-next-runs').locator('li').count()).toBeGreaterThanOrEqual(3);

    await byTestId('schedule-trigger').click();
    const run = byTestId('schedule-run').first();
    await text(run, 'completed', 30_000);
    await screenshot('console-schedule.png');
    // A run of the schedule opens as any run does.
    const runId = (await run.locator('a').textContent()) ?? '';
    expect(runId.startsWith(`${id}-`)).toBe(true);

    await byTestId('schedule-note-input').fill('paused for the holidays');
    await byTestId('schedule-pause').click();
    await text(byTestId('schedule-view-state'), 'paused');
    await text(byTestId('schedule-view-note'), 'paused for the holidays');
    await text(row.getByTestId('schedule-note'), 'paused for the holidays');

    page.once('dialog', (d) => void d.accept());
    await byTestId('schedule-delete').click();
    await page.waitForURL(/#\/schedules$/);
    await count(page.locator(`[data-testid="schedule-row"][data-schedule-id="${id}"]`), 0, 15_000);
    await page.getByTestId('schedule-run').first().waitFor({ state: 'detached' });
    await page.goto(`${server.url}/?token=${TOKEN}#/runs/${encodeURIComponent(runId)}`);
    await text(byTestId('run-question'), 'What is 1+2+3, hourly?');
  } finally {
    await deleteSchedule(cli.harness.perflow, id).catch(() => undefined);
  }
});

it("puts a remote agent's question where the run waits, and sends the person's answer back to it", async () => {
  const remote = await startA2ARemote();
  try {
    writeFileSync(join(dir, 'agents', 'remote-asker.json'), JSON.stringify({
      name: 'remote-asker',
      type: 'plan_execute_and_reflect',
      llm: { interface: 'scripted', script: { planner: [plan('ask the flight booker'), final('booked')], executor: [[{ tool_calls: [{ name: 'booker', input: { message: 'ask which city' } }] }, { content: 'done' }]] } },
      tools: [{ type: 'A2AAgentTool', name: 'booker', parameters: { url: remote.url, timeout_seconds: 60 } }],
    }));
    const started = (await (await api('/runs', { method: 'POST', body: JSON.stringify({ agent: 'remote-asker.json', question: 'Book me a flight' }) })).json()) as { workflow_id: string };
    await page.goto(`${server.url}/?token=${TOKEN}#/runs/${encodeURIComponent(started.workflow_id)}`);
    await text(byTestId('remote-question-text'), 'Which city should the flight go to?', 30_000);
    await screenshot('console-remote-question.png');
    await byTestId('remote-answer').fill('Seattle');
    await byTestId('remote-answer-send').click();
    await text(byTestId('run-view-status'), 'completed', 30_000);
    expect(await byTestId('run-response').innerText()).toBe('booked');
    expect(remote.tasksCreated).toHaveLength(1);
  } finally {
    await page.goto('about:blank'); // the run view's reads end here, not during the servers' teardown
    await remote.close();
  }
});

it('refuses a state-changing request from a foreign origin', async () => {
  const res = await api('/runs', { method: 'POST', headers: { origin: 'http://evil.example' }, body: JSON.stringify({ agent: 'quick-adder.json', question: 'Should not start' }) });
  expect(res.status).toBe(403);
  expect(((await res.json()) as { error: string }).error).toContain('http://evil.example');
  // Without the token, even the console's own page is turned away.
  const anonymous = await fetch(`${server.url}/api/runs`);
  expect(anonymous.status).toBe(401);
});

it('a page of another origin can neither frame the console nor make it start a run, even holding the token; a rebinding name gets nothing', async () => {
  const question = 'started by another origin';
  // The attacker's page, on another port of this machine (another origin), with the token leaked to it.
  const evil = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>evil</title><iframe id="framed" src="${server.openUrl}"></iframe>
      <form id="f" method="POST" action="${server.url}/api/runs" enctype="text/plain"><input name='{"agent":"quick-adder.json","question":"${question}","x":"' value='"}'></form>
      <script>
        window.results = [];
        const body = JSON.stringify({ agent: 'quick-adder.json', question: '${question}' });
        const attempts = [
          fetch('${server.url}/api/runs', { method: 'POST', headers: { authorization: 'Bearer ${TOKEN}', 'content-type': 'application/json' }, body }),
          fetch('${server.url}/api/runs', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }),
          fetch('${server.url}/api/runs?token=${TOKEN}', { method: 'POST', mode: 'no-cors', body }),
        ];
        Promise.allSettled(attempts).then((r) => { window.results = r.map((x) => x.status === 'fulfilled' ? x.value.type + ' ' + x.value.status : 'rejected'); });
      </script>`);
  });
  await new Promise<void>((ok) => evil.listen(0, '127.0.0.1', ok));
  const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  const attacker = await browser.newPage();
  try {
    await attacker.goto(`${evilUrl}/`);
    const results = await until('the attacker\'s requests', () => attacker.evaluate<string[]>('window.results'), (r) => r.length === 3, 10_000);
    // The CORS request is refused at its preflight; the no-cors ones carry no token.
    expect(results).toEqual(['rejected', 'opaque 0', 'opaque 0']);
    // The frame shows no console: the browser refused to frame it.
    const framed = attacker.frames().find((f) => f !== attacker.mainFrame());
    expect(framed).toBeDefined();
    expect(await framed!.evaluate<string>('document.title').catch(() => 'blocked')).not.toBe('perflow console');
    // A form posted to the API (no header can be set): turned away.
    await Promise.all([attacker.waitForURL(/\/api\/runs$/), attacker.evaluate("document.getElementById('f').submit()")]);
    expect(await attacker.locator('body').textContent()).toMatch(/are refused: only the console's own page may change runs/);
    const runs = (await (await api('/runs')).json()) as { question: string | null }[];
    expect(runs.filter((r) => r.question === question)).toEqual([]);

    // A name that resolves to this machine (DNS rebinding) is not the console's: no page, no API.
    const port = new URL(server.url).port;
    const rebound = await attacker.goto(`http://rebind.example:${port}/?token=${TOKEN}`);
    expect(rebound?.status()).toBe(403);
    expect(await attacker.content()).not.toContain('id="app"');
    const api403 = await attacker.evaluate<number>(`fetch('/api/runs', { headers: { authorization: 'Bearer ${TOKEN}' } }).then((r) => r.status)`);
    expect(api403).toBe(403);
  } finally {
    await attacker.close();
    await new Promise((ok) => evil.close(ok));
  }
});

it('follows an eval to its end, opens a case and its run, and compares two evals case by case', async () => {
  // Two versions of an agent: the second adds one number more, so its sum is another.
  for (const [file, steps] of [['eval-adder.json', 2], ['eval-adder-v2.json', 3]] as const) {
    const agent = typedAgent('plan_execute_and_reflect', steps);
    agent.name = file.replace('.json', '');
    (agent.llm as Record<string, unknown>).price = { input_per_million: 2, output_per_million: 8 };
    writeFileSync(join(dir, 'agents', file), JSON.stringify(agent));
  }
  const suite = {
    name: 'sums',
    cases: [
      { id: 'sum', question: 'What is 1+2?', checks: [{ contains: 'the total is 3' }, { tool_called: 'CalculatorTool' }] },
      { id: 'poem', question: 'What is 1+2, as a poem?', checks: [{ max_steps: 5 }, { contains: 'poem' }, { not_contains: 'total' }] },
    ],
  };
  // Suites are files of the console's folder (it refuses inline ones).
  const heldSuite = { name: 'held', cases: [suite.cases[0], { id: 'held', question: 'What is 2+2?', params: { plan_approval: 'first' }, checks: [{ contains: 'total' }] }] };
  for (const s of [suite, heldSuite]) writeFileSync(join(dir, 'agents', `${s.name}.json`), JSON.stringify(s));
  const startEval = async (agent: string, body: object = { suite: 'sums.json' }) => ((await (await api('/evals', { method: 'POST', body: JSON.stringify({ ...body, agent }) })).json()) as { eval_id: string }).eval_id;
  const row = (id: string) => page.locator(`[data-testid="eval-row"][data-eval-id="${id}"]`);

  // While an eval runs, each case shows once it is scored: here the second waits for its plan's approval.
  const held = await startEval('eval-adder.json', { suite: 'held.json', concurrency: 1 });
  // Each answer is one moment's: as many cases as it says are done.
  const answers: { cases: { id: string }[]; progress: { done: number; running: number } }[] = [];
  const read = async () => answers[answers.push((await (await api(`/evals/${held}`)).json()) as (typeof answers)[number]) - 1];
  await until('the first case scored', read, (j) => j.progress.done === 1, 20_000);
  expect(answers.map((j) => [j.cases.length, j.progress.done])).toEqual(answers.map((j) => [j.progress.done, j.progress.done]));
  expect(answers.at(-1)).toMatchObject({ cases: [{ id: 'sum' }], progress: { done: 1, running: 1 } });
  await page.goto(`${server.url}/?token=${TOKEN}#/evals/${encodeURIComponent(held)}`);
  await text(page.locator('[data-testid="eval-case"][data-case-id="sum"] [data-testid="case-verdict"]'), 'PASS');
  await text(byTestId('eval-view-status'), /^running$/);
  await text(byTestId('eval-progress'), '1/2 done · 1 passed · 0 failed · 1 running');
  await count(byTestId('eval-case'), 1);
  await screenshot('console-eval-running.png');
  await cli.harness.client.workflow.getHandle(held).cancel();

  const first = await startEval('eval-adder.json');
  await page.goto(`${server.url}/?token=${TOKEN}#/`);
  await byTestId('nav-evals').click();
  await row(first).locator('a').click();
  await page.waitForURL(/#\/evals\/eval-sums-/);
  await text(byTestId('eval-suite'), /^sums$/);
  await text(byTestId('eval-view-status'), /^completed$/, 20_000);
  await text(byTestId('eval-view-pass-rate'), '1/2 (50%)');
  const poem = page.locator('[data-testid="eval-case"][data-case-id="poem"]');
  await text(poem.getByTestId('case-verdict'), 'FAIL');
  await text(poem.getByTestId('case-first-failing'), /^contains "poem" — response has no "poem"$/);
  await poem.click();
  await count(byTestId('case-check'), 3);
  await text(byTestId('case-checks'), 'not_contains "total"');
  await text(row(first).getByTestId('eval-pass-rate'), '1/2 (50%)');
  await screenshot('console-eval.png');

  // A case's run, in the run view.
  await page.locator('[data-testid="eval-case"][data-case-id="sum"] [data-testid="case-run-link"]').click();
  await page.waitForURL((url) => url.hash === `#/runs/${encodeURIComponent(`${first}-sum`)}`);
  await text(byTestId('run-response'), /^the total is 3$/);

  // The same suite against the second version: the sum regressed, the poem failed both times.
  const second = await startEval('eval-adder-v2.json');
  await byTestId('nav-evals').click();
  await text(row(second).getByTestId('eval-status'), /^completed$/, 20_000);
  await row(first).getByTestId('eval-pick').check();
  await row(second).getByTestId('eval-pick').check();
  await byTestId('evals-compare').click();
  await byTestId('eval-compare').waitFor({ timeout: 15_000 });
  const sum = page.locator('[data-testid="eval-compare-case"][data-case-id="sum"]');
  await text(sum.getByTestId('case-change'), /^regressed$/);
  await text(page.locator('[data-testid="eval-compare-case"][data-case-id="poem"] [data-testid="case-change"]'), /^same$/);
  await text(byTestId('eval-compare-counts'), '1 regressed · 1 same');
  await screenshot('console-eval-compare.png');
  await sum.getByTestId('case-diff-link').click();
  await text(byTestId('diff-side-b'), `${second}-sum`, 15_000);
  expect(pageErrors).toEqual([]);
});

/** Waits (bounded) until `read` gives what `ok` accepts; fails naming the last value read. */
async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | string = 'nothing (no such element)';
  for (;;) {
    try {
      const v = await read();
      if (ok(v)) return v;
      last = v;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`${what}: got ${JSON.stringify(last)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const matches = (v: string | null, expected: string | RegExp) => v !== null && (typeof expected === 'string' ? v.includes(expected) : expected.test(v));

/** The element's text contains `expected` (or matches it), within the time. */
const text = (l: Locator, expected: string | RegExp, timeoutMs = 10_000) => until(`text of ${l}`, () => l.textContent({ timeout: 200 }), (v) => matches(v, expected), timeoutMs);
const value = (l: Locator, expected: RegExp, timeoutMs = 10_000) => until(`value of ${l}`, () => l.inputValue({ timeout: 200 }), (v) => expected.test(v), timeoutMs);
const count = (l: Locator, n: number, timeoutMs = 10_000) => until(`count of ${l}`, () => l.count(), (v) => v === n, timeoutMs);

/** Saves a screenshot outside the repository; with PERFLOW_UPDATE_SCREENSHOTS=1 also into docs/images/ (the README's). */
async function screenshot(name: string): Promise<void> {
  const file = join(shots, name);
  await page.screenshot({ path: file });
  expect(statSync(file).size).toBeGreaterThan(10_000);
  if (process.env.PERFLOW_UPDATE_SCREENSHOTS === '1' && name === 'console-run.png') {
    copyFileSync(file, resolve(__dirname, '../../../docs/images', name));
  }
  process.stdout.write(`screenshot: ${file}\n`);
}
