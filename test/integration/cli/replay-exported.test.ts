/**
 * `perflow replay --history` on the history files people have: runs of every agent type and an
 * encrypted run, exported with the Temporal CLI the test servers use (`temporal workflow show
 * --output json`) and as the Web UI downloads them (`{ "events": [...] }`, the events its API
 * serves). One worker runs the plain runs, one the encrypted run; the exports are made once.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHistoryFile } from '../../../client/ops';
import { findTemporalCli } from '../../../servers/binaries';
import { parseEncryptionKeys } from '../../../config/env';
import type { AgentType } from '../../../core/agent';
import { useCli } from '../../support/cli';
import { serverEnv } from '../../support/env';
import { runInput, startAgentRun, useHarness } from '../../support/harness';
import { runProcess } from '../../support/run-process';
import { AGENT_TYPES, expectedResponse, typedAgent } from '../../support/typed-agents';
import { workflowTypeFor } from '../../../workflows/definitions';

jest.setTimeout(240_000);

const KEY = `K:${randomBytes(32).toString('base64')}`;
const cli = useCli('replay-exported');
const encrypted = useHarness({ encryption: parseEncryptionKeys(KEY) });

/** `temporal workflow show -w ID --output json`, as a user saves it. */
async function exportWithTemporalCli(workflowId: string): Promise<string> {
  const temporal = findTemporalCli(process.env, { install: false });
  if (!temporal) throw new Error('no Temporal CLI: the test servers find or install one (servers/binaries.ts)');
  const { temporalAddress, namespace } = serverEnv();
  const r = await runProcess(temporal, ['workflow', 'show', '-w', workflowId, '--output', 'json', '--address', temporalAddress, '--namespace', namespace]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const file = join(cli.dir, `${workflowId}.cli.json`);
  writeFileSync(file, r.stdout);
  return file;
}

/** The Web UI's download: the events its API serves for the run, as `{ "events": [...] }`. */
async function exportAsWebUi(workflowId: string, runId: string): Promise<string> {
  const ui = process.env.PERFLOW_TEMPORAL_UI_URL;
  if (!ui) throw new Error('PERFLOW_TEMPORAL_UI_URL is not set: the download needs the Web UI of the Temporal server under test');
  const url = `${ui}/api/v1/namespaces/${serverEnv().namespace}/workflows/${encodeURIComponent(workflowId)}/history?execution.runId=${runId}`;
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { history: { events: unknown[] }; nextPageToken?: string };
  expect(body.nextPageToken ?? '').toBe('');
  const file = join(cli.dir, `${workflowId}.ui.json`);
  writeFileSync(file, JSON.stringify({ events: body.history.events }, null, 2));
  return file;
}

/** The payload bytes of an exported history (every base64 `data` field), as text. */
const payloadText = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/"data": "([A-Za-z0-9+/=]*)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('latin1')).join('\n');

const QUESTION = (type: AgentType) => `exported ${type}`;
const ENCRYPTED_QUESTION = `a question kept secret ${randomBytes(4).toString('hex')}`;
const runs = {} as Record<AgentType, { workflowId: string; runId: string; file: string }>;
let secret: { workflowId: string; file: string };

beforeAll(async () => {
  // The runs of all four types at once, on the file's worker; then the exports.
  await Promise.all(
    AGENT_TYPES.map(async (type) => {
      const handle = await startAgentRun(cli.harness, runInput(typedAgent(type, 2), QUESTION(type)), `exported-${type.replace(/_/g, '-')}`);
      expect((await handle.result()).response).toBe(expectedResponse(type, 2));
      runs[type] = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, file: '' };
    }),
  );
  const handle = await startAgentRun(encrypted(), runInput(typedAgent('plan_execute_and_reflect', 1), ENCRYPTED_QUESTION), 'exported-encrypted');
  await handle.result();
  for (const type of AGENT_TYPES) runs[type].file = await exportWithTemporalCli(runs[type].workflowId);
  secret = { workflowId: handle.workflowId, file: await exportWithTemporalCli(handle.workflowId) };
});

const REPLAY_OK = 'replay ok: the history is deterministic with the current workflow code\n';

it.each(AGENT_TYPES)('a %s run exported with the Temporal CLI replays, its workflow ID given with --workflow-id', async (type) => {
  const { workflowId, file } = runs[type];
  expect(readFileSync(file, 'utf8')).toContain(`"name": "${workflowTypeFor(type)}"`);
  const r = await cli.perflow(['replay', '--history', file, '--workflow-id', workflowId], {}, 120_000);
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(REPLAY_OK);
  expect(r.code).toBe(0);
});

it('the Web UI download of each run holds the events of the CLI export, and perflow reads them alike', async () => {
  for (const type of AGENT_TYPES) {
    const { workflowId, runId, file } = runs[type];
    const downloaded = await exportAsWebUi(workflowId, runId);
    expect(JSON.parse(readFileSync(downloaded, 'utf8'))).toEqual(JSON.parse(readFileSync(file, 'utf8')));
    const [fromUi, fromCli] = await Promise.all([readHistoryFile(downloaded), readHistoryFile(file)]);
    expect(fromUi).toEqual(fromCli);
    expect(fromUi.history.events?.length).toBeGreaterThan(10);
  }
});

it('an encrypted run exported with the Temporal CLI replays with PERFLOW_ENCRYPTION_KEYS, and without them fails in one line naming the key', async () => {
  // The export holds the payloads as the server has them: encrypted (a plain run's show the question).
  expect(payloadText(runs.todo_list.file)).toContain(QUESTION('todo_list'));
  expect(payloadText(secret.file)).not.toContain(ENCRYPTED_QUESTION);
  const r = await cli.perflow(['replay', '--history', secret.file, '--workflow-id', secret.workflowId], { PERFLOW_ENCRYPTION_KEYS: KEY }, 120_000);
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(REPLAY_OK);
  expect(r.code).toBe(0);
  const noKey = await cli.perflow(['replay', '--history', secret.file, '--workflow-id', secret.workflowId]);
  expect(noKey.code).toBe(1);
  expect(noKey.stderr).toBe('perflow: a payload is encrypted with key "K": set PERFLOW_ENCRYPTION_KEYS with that key to read it\n');
});

it('without --workflow-id fails in one line naming it; replayed as another workflow ID, says in one line which event diverged', async () => {
  const { file } = runs.plan_execute_and_reflect;
  const none = await cli.perflow(['replay', '--history', file]);
  expect(none.stderr).toBe(`perflow: ${file} does not record its workflow ID (Temporal CLI and Web UI exports do not): give it with --workflow-id ID\n`);
  expect(none.code).toBe(2);
  // Child workflow IDs derive from the workflow ID: under another one the first child start diverges.
  const other = await cli.perflow(['replay', '--history', file, '--workflow-id', 'someone-else'], {}, 120_000);
  expect(other.stdout).toBe(
    `replay failed: DeterminismViolationError: [TMPRL1100] Nondeterminism error: Child workflow id of scheduled event '${runs.plan_execute_and_reflect.workflowId}/step-1' does not match child workflow id of command 'someone-else/step-1'\n`,
  );
  expect(other.code).toBe(3);
});
