/**
 * Encrypted payloads end to end: a run on a worker and client with PERFLOW_ENCRYPTION_KEYS
 * leaves neither the question, nor the planner's answer, nor the tool output readable in its
 * history; the CLI with the keys reads it (status, result, history, replay, diff), also after
 * the keys rotate; without them it fails in one line naming the key. A run failing on an
 * unparseable planner answer leaves neither the question, nor the model's text, nor the
 * failure message quoting it readable either. `perflow codec-server` decodes the history's
 * payloads for the Web UI.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Tool } from '../../activities/tools/tool';
import { payloadToJson, type JsonPayload } from '../../client/codec-server';
import { startRun } from '../../client/run';
import { parseAgentDefinition, resolveParameters } from '../../core/agent';
import { EncryptionCodec } from '../../codec/encryption';
import { parseEncryptionKeys } from '../../config/env';
import { failureOf, final, plan, scriptedAgent } from '../support/harness';
import { useCli } from '../support/cli';
import { BUILT_CLI_ARGS } from '../support/package-build';

jest.setTimeout(240_000);

const BIN = BUILT_CLI_ARGS;
const KEY_A = `A:${randomBytes(32).toString('base64')}`;
const KEY_B = `B:${randomBytes(32).toString('base64')}`;
const tag = randomUUID().slice(0, 8);
const QUESTION = `Who keeps the lighthouse on Tern Island ${tag}?`;
const ANSWER = `The keeper of Tern Island is Ada Zephyrine ${tag}`;
const TOOL_OUTPUT = `REGISTRY-RECORD keeper=Ada-Zephyrine-${tag} since 1843`;

/** A tool whose output is recognisable in the history bytes. */
const registryTool: Tool<{ island: string }> = {
  type: 'KeeperRegistryTool',
  description: 'Looks up the keeper of a lighthouse by island.',
  input: z.object({ island: z.string() }),
  run: async () => TOOL_OUTPUT,
};

const cli = useCli('encryption', { tools: [registryTool as Tool<never>], encryption: parseEncryptionKeys(KEY_A) });
let workflowId: string;
let history: temporal.api.history.v1.IHistory;

/** The CLI with PERFLOW_ENCRYPTION_KEYS set to `keys`, or unset. */
const perflow = (args: string[], keys: string | undefined, timeoutMs = 90_000) => cli.perflow(args, { PERFLOW_ENCRYPTION_KEYS: keys }, timeoutMs);

/** Every Payload in a history (objects with metadata and data), by walking it. */
function payloadsIn(value: unknown, out: Payload[] = []): Payload[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return out;
  if ('metadata' in value && 'data' in value && (value as Payload).data instanceof Uint8Array) out.push(value as Payload);
  else for (const v of Object.values(value)) payloadsIn(v, out);
  return out;
}

beforeAll(async () => {
  const harness = cli.harness;
  const agent = parseAgentDefinition(
    scriptedAgent(
      {
        planner: [plan('look up the keeper in the registry'), final(ANSWER)],
        executor: [[{ tool_calls: [{ name: 'KeeperRegistryTool', input: { island: 'Tern' } }] }, { content: 'The registry says: {{observation}}' }]],
      },
      { name: 'encrypted-agent', tools: [{ type: 'KeeperRegistryTool' }] },
    ),
    { toolTypes: 'any' },
  );
  const run = await startRun(harness.perflow, { agent, parameters: resolveParameters(agent), question: QUESTION });
  workflowId = run.workflowId;
  const out = await run.handle.result();
  expect(out.response).toBe(ANSWER);
  history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
});

describe('a run with PERFLOW_ENCRYPTION_KEYS', () => {
  it('keeps the question, the planner answer and the tool output out of the history bytes, which still carry them encrypted', async () => {
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    const child = await cli.harness.client.workflow.getHandle(`${workflowId}/step-1`).fetchHistory();
    const childBytes = Buffer.from(temporal.api.history.v1.History.encode(child).finish());
    for (const secret of [QUESTION, ANSWER, TOOL_OUTPUT, tag]) {
      expect(bytes.includes(secret)).toBe(false);
      expect(childBytes.includes(secret)).toBe(false);
    }
    // The same history decrypted with the key has them: the check above looked where they are.
    const payloads = [...payloadsIn(history), ...payloadsIn(child)];
    expect(payloads.length).toBeGreaterThan(10);
    const decoded = await new EncryptionCodec(parseEncryptionKeys(KEY_A)).decode(payloads);
    const plain = decoded.map((p) => Buffer.from(p.data ?? []).toString('utf8')).join('\n');
    for (const secret of [QUESTION, ANSWER, TOOL_OUTPUT]) expect(plain).toContain(secret);
  });

  it('keeps its event stream sealed in MongoDB: perflow watch reads it with the key, and fails in one line without', async () => {
    // The run has ended: its stream was moved to the archive.
    const docs = [
      ...(await cli.harness.db.collection('perflow_events').find({ _id: workflowId as never }).toArray()),
      ...(await cli.harness.db.collection('perflow_events.archive').find({ run: workflowId }).toArray()),
    ];
    expect(docs.length).toBeGreaterThan(1);
    expect(JSON.stringify(docs)).toContain('sealed');
    // Everything but the ciphertext, whose base64 holds any three letters now and then ("Ada").
    const raw = JSON.stringify(docs, (key, value: unknown) => (key === 'sealed' ? '[sealed]' : value));
    for (const secret of [QUESTION, ANSWER, TOOL_OUTPUT, tag, 'Ada', 'keeper']) expect([secret, raw.includes(secret)]).toEqual([secret, false]);
    const watched = await perflow(['watch', workflowId, '--json'], KEY_A);
    expect(watched.code).toBe(0);
    const events = watched.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; question?: string; output?: string; response?: string });
    expect(events[0]).toMatchObject({ type: 'run_started', question: QUESTION });
    expect(events.find((e) => e.type === 'tool_result')?.output).toBe(TOOL_OUTPUT);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', response: ANSWER });
    const keyless = await perflow(['watch', workflowId], undefined);
    expect(keyless.code).toBe(1);
    expect(keyless.stderr.trim().split('\n')).toHaveLength(1);
    expect(keyless.stderr).toMatch(/encrypted.*PERFLOW_ENCRYPTION_KEYS/);
  });

  it('is read by the CLI with the key: result and status', async () => {
    const result = await perflow(['result', workflowId], KEY_A);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(ANSWER);
    const status = await perflow(['status', workflowId], KEY_A);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`${workflowId}: completed`);
    expect(status.stdout).toContain('plan 1. look up the keeper in the registry');
    expect(status.stdout).toContain(`result: ${ANSWER}`);
    expect(status.stdout).toContain(TOOL_OUTPUT);
  });

  it('fails in one line naming the key and the variable without the key', async () => {
    for (const command of ['result', 'status']) {
      const r = await perflow([command, workflowId], undefined);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('perflow: a payload is encrypted with key "A": set PERFLOW_ENCRYPTION_KEYS with that key to read it\n');
    }
  });

  it('is listed by a client without the key, its agent shown as encrypted, and does not hide other runs', async () => {
    let listed: { workflow_id: string; agent?: string }[] = [];
    for (let i = 0; i < 20 && !listed.some((w) => w.workflow_id === workflowId); i++) {
      const r = await perflow(['list', '--json'], undefined);
      expect(r.stderr).toBe('');
      listed = JSON.parse(r.stdout) as typeof listed;
      if (!listed.some((w) => w.workflow_id === workflowId)) await new Promise((ok) => setTimeout(ok, 500));
    }
    expect(listed.find((w) => w.workflow_id === workflowId)?.agent).toBe('(encrypted with key "A")');
    const withKey = JSON.parse((await perflow(['list', '--json'], KEY_A)).stdout) as typeof listed;
    expect(withKey.find((w) => w.workflow_id === workflowId)?.agent).toBe('encrypted-agent');
  });

  it('still decodes after the keys rotate to "B,A"; with B alone it names key A', async () => {
    const rotated = await perflow(['result', workflowId], `${KEY_B},${KEY_A}`);
    expect(rotated.stderr).toBe('');
    expect(rotated.stdout.trim()).toBe(ANSWER);
    const onlyB = await perflow(['result', workflowId], KEY_B);
    expect(onlyB.code).toBe(1);
    expect(onlyB.stderr).toBe('perflow: a payload is encrypted with key "A", which PERFLOW_ENCRYPTION_KEYS does not list (it has "B"): add that key to read it\n');
  });

  it('saves its history encrypted and replays it (from the file and from the server) with the keys', async () => {
    const file = join(cli.dir, 'history.json');
    const saved = await perflow(['history', workflowId, '--out', file], KEY_A);
    expect(saved.stderr).toBe('');
    expect(saved.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect((JSON.parse(text) as { events: unknown[] }).events.length).toBe(history.events!.length);
    expect(text).not.toContain(tag);
    const fromFile = await perflow(['replay', '--history', file], `${KEY_B},${KEY_A}`, 180_000);
    expect(fromFile.stderr).toBe('');
    expect(fromFile.stdout).toBe('replay ok: the history is deterministic with the current workflow code\n');
    const noKey = await perflow(['replay', '--history', file], undefined, 180_000);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toBe('perflow: a payload is encrypted with key "A": set PERFLOW_ENCRYPTION_KEYS with that key to read it\n');
    const fromServer = await perflow(['replay', workflowId, '--json'], KEY_A, 180_000);
    expect(fromServer.code).toBe(0);
    expect(JSON.parse(fromServer.stdout)).toEqual({ workflow_id: workflowId, deterministic: true });
  });

  it('is compared by perflow diff, which reads the histories through the keys', async () => {
    const r = await perflow(['diff', workflowId, workflowId, '--json'], KEY_A);
    expect(r.stderr).toBe('');
    const d = JSON.parse(r.stdout) as { a: { plans: { steps: string[]; result?: string }[]; steps: { tool_calls: { tool: string }[] }[] }; settings: unknown[] };
    expect(d.settings).toEqual([]);
    expect(d.a.plans).toEqual([{ steps: ['look up the keeper in the registry'] }, { steps: [], result: ANSWER }]);
    expect(d.a.steps[0].tool_calls.map((c) => c.tool)).toEqual(['KeeperRegistryTool']);
  });
});

describe('a run with PERFLOW_ENCRYPTION_KEYS that fails on an unparseable planner answer', () => {
  const QUESTION_WORDS = ['Quillfeather', 'marmalade', 'barometer', `Ostrowski${tag}`];
  const MODEL_TEXT = `Certainly not a plan: the Quillfeather barometer smells of marmalade ${tag}`;
  let failedId: string;
  let failedHistory: temporal.api.history.v1.IHistory;
  let message: string;

  beforeAll(async () => {
    const harness = cli.harness;
    const agent = parseAgentDefinition(scriptedAgent({ planner: [MODEL_TEXT, MODEL_TEXT] }, { name: 'unparseable-agent' }), { toolTypes: 'any' });
    const question = `Which ${QUESTION_WORDS.join(' ')} rises first?`;
    const run = await startRun(harness.perflow, { agent, parameters: resolveParameters(agent, { max_parse_retries: 1 }), question });
    failedId = run.workflowId;
    message = (await failureOf(run.handle.result())).message;
    failedHistory = await harness.client.workflow.getHandle(failedId).fetchHistory();
  });

  it("keeps the question's words, the model's text and the failure message (which quotes it) out of the history bytes", async () => {
    expect(message).toMatch(/^planner answer could not be parsed after 2 attempts \(.*\); last answer: ".*marmalade/);
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(failedHistory).finish());
    for (const secret of [...QUESTION_WORDS, MODEL_TEXT, tag, message, 'could not be parsed', 'last answer']) expect(bytes.includes(secret)).toBe(false);
    // The failure is there, its message and stack trace encrypted in its encoded attributes.
    const failure = failedHistory.events!.at(-1)!.workflowExecutionFailedEventAttributes!.failure!;
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
    const [attributes] = await new EncryptionCodec(parseEncryptionKeys(KEY_A)).decode([failure.encodedAttributes as Payload]);
    expect(JSON.parse(Buffer.from(attributes.data!).toString('utf8'))).toMatchObject({ message, stack_trace: expect.any(String) });
  });

  it('shows why it failed with the key (result and status); without it fails in one line naming the key', async () => {
    const result = await perflow(['result', failedId], KEY_A);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`perflow: run failed: ${message}\n`);
    const status = await perflow(['status', failedId], KEY_A);
    expect(status.stdout).toContain(`${failedId}: failed`);
    expect(status.stdout).toContain(`error: ${message}`);
    const noKey = await perflow(['result', failedId], undefined);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toBe('perflow: a payload is encrypted with key "A": set PERFLOW_ENCRYPTION_KEYS with that key to read it\n');
  });
});

describe('perflow codec-server', () => {
  const UI = 'http://127.0.0.1:8233';

  /** Starts the CLI's codec server; resolves with its URL from the first line it prints. */
  function startServer(extra: string[]): Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string }> {
    const child = spawn(process.execPath, [...BIN, 'codec-server', '--port', '0', ...extra], { env: { ...process.env, ...cli.env, PERFLOW_ENCRYPTION_KEYS: `${KEY_B},${KEY_A}` } });
    let output = '';
    return new Promise((done, fail) => {
      const timer = setTimeout(() => (child.kill('SIGKILL'), fail(new Error(`codec-server printed no URL in 30 s: ${output}`))), 30_000);
      const onData = (d: Buffer) => {
        output += d.toString();
        const url = /perflow codec server: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
        if (url) {
          clearTimeout(timer);
          done({ child, url, output: () => output });
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code) => (clearTimeout(timer), fail(new Error(`codec-server exited with ${code}: ${output}`))));
    });
  }

  const stop = (child: ChildProcessWithoutNullStreams) =>
    new Promise<number | null>((done) => {
      if (child.exitCode !== null) return done(child.exitCode);
      child.removeAllListeners('exit');
      child.on('exit', (code) => done(code));
      child.kill('SIGTERM');
    });

  it('decodes a payload from the encrypted history to the plaintext JSON, answers the UI preflight and enforces its token', async () => {
    const server = await startServer(['--ui-origin', UI, '--token', 'codec-token']);
    try {
      expect(server.output()).toContain(`CORS for ${UI}; bearer token required`);
      const input = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0] as Payload;
      const body = JSON.stringify({ payloads: [payloadToJson(input)] });
      const headers = { 'Content-Type': 'application/json', 'X-Namespace': cli.env.TEMPORAL_NAMESPACE, Origin: UI };

      const preflight = await fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: UI, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace,authorization' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
      expect(preflight.headers.get('access-control-allow-headers')).toBe('Content-Type, X-Namespace, Authorization');

      expect((await fetch(`${server.url}/decode`, { method: 'POST', headers, body })).status).toBe(401);
      expect((await fetch(`${server.url}/decode`, { method: 'POST', headers: { ...headers, Authorization: 'Bearer wrong' }, body })).status).toBe(401);

      const res = await fetch(`${server.url}/decode`, { method: 'POST', headers: { ...headers, Authorization: 'Bearer codec-token' }, body });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(UI);
      const [decoded] = ((await res.json()) as { payloads: JsonPayload[] }).payloads;
      expect(Buffer.from(decoded.metadata!.encoding, 'base64').toString()).toBe('json/plain');
      expect((JSON.parse(Buffer.from(decoded.data!, 'base64').toString()) as { question: string }).question).toBe(QUESTION);
    } finally {
      expect(await stop(server.child)).toBe(0);
    }
    expect(server.output()).toContain('SIGTERM received, stopped');
  });

  it('refuses to start without PERFLOW_ENCRYPTION_KEYS, and any command refuses a malformed value, in one line', async () => {
    const none = await perflow(['codec-server', '--port', '0'], undefined, 30_000);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^perflow: codec-server needs PERFLOW_ENCRYPTION_KEYS [^\n]*\n$/);
    const bad = await perflow(['status', workflowId], 'A:bm90LTMyLWJ5dGVz', 30_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('perflow: PERFLOW_ENCRYPTION_KEYS: the key of "A" is 12 bytes; AES-256 needs 32 (make one with: openssl rand -base64 32)\n');
  });
});
