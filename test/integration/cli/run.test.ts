/**
 * The `perflow` CLI as people use it: a subprocess (the compiled CLI) talking to the test
 * servers, while a worker runs in this process on the task queue the CLI is given. `perflow run`
 * in its forms, then the commands that read, replay and reset the run it followed.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { progressQuery } from '../../../workflows/definitions';
import { nonEmptyLines, useCli } from '../../support/cli';
import { scriptedAgent } from '../../support/harness';
import { ONE_STEP_SCRIPT } from '../../support/script';
import type { ProcessResult } from '../../support/run-process';

jest.setTimeout(120_000);

const cli = useCli('cli');
const perflow = cli.perflow;

const AGENT = scriptedAgent(ONE_STEP_SCRIPT, { name: 'cli-agent' });
let agentFile: string;
beforeAll(() => {
  agentFile = cli.agentFile('agent', AGENT);
});
let followedId: string;

describe('perflow run', () => {
  it('--follow prints the IDs, the progress of the step and the final result', async () => {
    const r = await perflow(['run', '--agent', agentFile, '--question', 'what is it?', '--follow']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = /^workflow_id: (cli-agent-[0-9a-f]{8})$/m.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    followedId = id!;
    for (const key of ['run_id', 'memory_id', 'parent_interaction_id', 'executor_agent_memory_id', 'executor_agent_parent_interaction_id']) {
      expect(r.stdout).toMatch(new RegExp(`^${key}: [0-9a-f-]{36}$`, 'm'));
    }
    expect(r.stdout).toMatch(new RegExp(`^ui: http.*/namespaces/[^/]+/workflows/${followedId}/[0-9a-f-]{36}/history$`, 'm'));
    expect(r.stdout).toContain('plan: 1. step A');
    expect(r.stdout).toMatch(/^step 1 done: step A → result A$/m);
    expect(r.stdout).toMatch(/^result:\nthe answer$/m);
  });

  it('--wait --json prints one JSON document: the RunOutput with workflow_id and run_id', async () => {
    const r = await perflow(['run', '--agent', agentFile, '--question', 'again?', '--wait', '--json']);
    expect(r.code).toBe(0);
    const output = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(output.response).toBe('the answer');
    expect(output.steps_executed).toBe(1);
    for (const key of ['memory_id', 'parent_interaction_id', 'executor_agent_memory_id', 'executor_agent_parent_interaction_id', 'run_id']) {
      expect(output[key]).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(output.workflow_id).toMatch(/^cli-agent-[0-9a-f]{8}$/);
    // The IDs let a script go on with the run.
    const desc = await cli.harness.client.workflow.getHandle(output.workflow_id as string).describe();
    expect(desc.runId).toBe(output.run_id);
  });

  it('--json without --wait prints the IDs as one JSON document, and status --json takes its workflow_id', async () => {
    const r = await perflow(['run', '--agent', agentFile, '--question', 'as json?', '--json']);
    expect(r.code).toBe(0);
    const started = JSON.parse(r.stdout) as Record<string, string>;
    expect(Object.keys(started).sort()).toEqual(
      ['executor_agent_memory_id', 'executor_agent_parent_interaction_id', 'memory_id', 'parent_interaction_id', 'run_id', 'ui_url', 'workflow_id'].sort(),
    );
    expect(started.ui_url).toMatch(new RegExp(`/namespaces/[^/]+/workflows/${started.workflow_id}/${started.run_id}/history$`));
    const result = JSON.parse((await perflow(['result', started.workflow_id, '--json'])).stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ workflow_id: started.workflow_id, run_id: started.run_id, memory_id: started.memory_id, response: 'the answer' });
    const status = await perflow(['status', started.workflow_id, '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ workflow_id: started.workflow_id, memory_id: started.memory_id, status: 'completed', question: 'as json?' });
  });

  it('--follow --json keeps stdout one JSON document; the progress goes to stderr', async () => {
    const r = await perflow(['run', '--agent', agentFile, '--question', 'followed as json?', '--follow', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ response: 'the answer', workflow_id: expect.stringMatching(/^cli-agent-/) });
    expect(r.stderr).toMatch(/^step 1 done: step A → result A$/m);
  });

  it('takes the question from a question parameter when --question is absent, and list --tenant filters by tenant_id', async () => {
    const r = await perflow(['run', '--agent', agentFile, '--param', 'question=from the parameter', '--param', 'tenant_id=t-1', '--wait', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { workflow_id: string };
    expect((await cli.harness.client.workflow.getHandle(out.workflow_id).query(progressQuery)).question).toBe('from the parameter');
    let listed: { workflow_id: string }[] = [];
    for (let i = 0; i < 20 && !listed.some((w) => w.workflow_id === out.workflow_id); i++) {
      listed = JSON.parse((await perflow(['list', '--tenant', 't-1', '--json'])).stdout) as { workflow_id: string }[];
      if (!listed.some((w) => w.workflow_id === out.workflow_id)) await new Promise((done) => setTimeout(done, 500));
    }
    expect(listed.map((w) => w.workflow_id)).toEqual([out.workflow_id]);
    const none = JSON.parse((await perflow(['list', '--tenant', 'nobody', '--json'])).stdout) as unknown[];
    expect(none).toEqual([]);
    const missing = await perflow(['run', '--agent', agentFile]);
    expect(missing.code).toBe(2);
    expect(nonEmptyLines(missing.stderr)).toEqual(['perflow: run needs --question TEXT (or a question parameter)']);
  });

  it('rejects an invalid agent file before starting, naming every bad path on one line', async () => {
    const bad = join(cli.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'bad', type: 'react', llm: { interface: 'nope' } }));
    const r = await perflow(['run', '--agent', bad, '--question', 'q', '--wait']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = nonEmptyLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('type:');
    expect(lines[0]).toContain('llm.interface:');
  });

  it('names a missing agent file', async () => {
    const r = await perflow(['run', '--agent', join(cli.dir, 'missing.json'), '--question', 'q']);
    expect(r.code).toBe(2);
    expect(nonEmptyLines(r.stderr)).toEqual([`perflow: agent file not found: ${join(cli.dir, 'missing.json')}`]);
  });
});

describe('perflow on a finished run', () => {
  it('status --json shows the progress', async () => {
    const r = await perflow(['status', followedId, '--json']);
    expect(r.code).toBe(0);
    const p = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(p).toMatchObject({ workflow_id: followedId, status: 'completed', agent: 'cli-agent', question: 'what is it?', plan: ['step A'], result: 'the answer', steps_executed: 1 });
    expect(p.completed_steps).toEqual([expect.objectContaining({ index: 0, step: 'step A', result_preview: 'result A', ok: true })]);
  });

  it('memory prints the conversation from MongoDB', async () => {
    const { memory_id } = JSON.parse((await perflow(['status', followedId, '--json'])).stdout) as { memory_id: string };
    const uri = cli.memoryUri;
    const r = await perflow(['memory', memory_id], { MONGODB_URI: uri });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('question: what is it?');
    expect(r.stdout).toContain('step 1: step A');
    expect(r.stdout).toContain('result: result A');
    expect(r.stdout).toContain('response: the answer');
    const json = await perflow(['memory', memory_id, '--json'], { MONGODB_URI: uri });
    expect(json.code).toBe(0);
    const view = JSON.parse(json.stdout) as { memory_id: string };
    expect(view.memory_id).toBe(memory_id);
    expect(json.stdout).toContain('result A');
    const missing = await perflow(['memory', 'no-such-memory'], { MONGODB_URI: uri });
    expect(missing.code).not.toBe(0);
    expect(nonEmptyLines(missing.stderr)).toEqual(['perflow: memory_id no-such-memory not found in MongoDB (MONGODB_URI)']);
  });

  it('run --memory-id rejects an unknown conversation before starting a run', async () => {
    const uri = cli.memoryUri;
    const r = await perflow(['run', '--agent', agentFile, '--question', 'more?', '--memory-id', 'no-such-memory'], { MONGODB_URI: uri });
    expect(r.code).toBe(2);
    expect(nonEmptyLines(r.stderr)).toEqual([
      'perflow: memory_id no-such-memory does not exist (MONGODB_URI); omit --memory-id to start a new conversation',
    ]);
    expect(r.stdout).not.toContain('workflow_id');
  });

  it('result --json gives the RunOutput with workflow_id and run_id', async () => {
    const r = await perflow(['result', followedId, '--json']);
    expect(r.code).toBe(0);
    const { runId } = await cli.harness.client.workflow.getHandle(followedId).describe();
    expect(JSON.parse(r.stdout)).toMatchObject({ workflow_id: followedId, run_id: runId, response: 'the answer' });
  });

  it('list --agent finds the run by its PerflowAgent search attribute', async () => {
    let r = { code: 0 as number | null, stdout: '', stderr: '' };
    // Visibility is eventually consistent: a few tries.
    for (let i = 0; i < 20 && !r.stdout.includes(followedId); i++) {
      r = await perflow(['list', '--agent', 'cli-agent']);
      if (!r.stdout.includes(followedId)) await new Promise((done) => setTimeout(done, 500));
    }
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(followedId);
    const other = await perflow(['list', '--agent', 'no-such-agent']);
    expect(other.stdout).not.toContain(followedId);
    const json = await perflow(['list', '--agent', 'cli-agent', '--json']);
    expect(json.code).toBe(0);
    const runs = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(runs).toContainEqual(
      expect.objectContaining({ workflow_id: followedId, workflow_type: 'planExecuteReflect', status: 'COMPLETED', agent: 'cli-agent', start_time: expect.any(String) }),
    );
  });

  it('list --status completed includes the run', async () => {
    // Visibility is eventually consistent.
    let r: ProcessResult | undefined;
    for (let i = 0; i < 10; i++) {
      r = await perflow(['list', '--status', 'completed']);
      if (r.stdout.includes(followedId)) break;
      await new Promise((ok) => setTimeout(ok, 1_000));
    }
    expect(r?.code).toBe(0);
    expect(r?.stdout).toMatch(new RegExp(`^${followedId}\\tCOMPLETED\\t`, 'm'));
  });

  it('history saves a file that replays deterministically', async () => {
    const file = join(cli.dir, 'history.json');
    const h = await perflow(['history', followedId, '--out', file]);
    expect(h.stderr).toBe('');
    expect(h.code).toBe(0);
    const r = await perflow(['replay', '--history', file], {}, 90_000);
    expect(r.stdout).toContain('replay ok');
    expect(r.code).toBe(0);
    // Against a deliberately changed workflow (a timer first): a determinism violation.
    const changed = await perflow(['replay', '--history', file, '--workflows', resolve(__dirname, '../../workflows/changed')], {}, 90_000);
    expect(changed.code).toBe(3);
    expect(changed.stdout).toMatch(/^replay failed: DeterminismViolationError/m);
    // The file records its workflow ID (child workflow IDs derive from it): another one is refused in one line.
    const other = await perflow(['replay', '--history', file, '--workflow-id', 'someone-else']);
    expect(other.stderr).toBe(`perflow: ${file} is the history of workflow ID ${followedId}, not someone-else: leave out --workflow-id\n`);
    expect(other.code).toBe(2);
  });

  it('replay ID fetches the history itself; --json gives the verdict as JSON', async () => {
    const r = await perflow(['replay', followedId], {}, 90_000);
    expect(r.stdout).toContain('replay ok');
    expect(r.code).toBe(0);
    const json = await perflow(['replay', followedId, '--json'], {}, 90_000);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ workflow_id: followedId, deterministic: true });
    const file = join(cli.dir, 'history-json.json');
    const h = await perflow(['history', followedId, '--out', file, '--json']);
    expect(JSON.parse(h.stdout)).toEqual({ workflow_id: followedId, file, events: expect.any(Number) });
  });

  it('reset starts a new run from the first workflow task', async () => {
    const r = await perflow(['reset', followedId, '--to', 'first-workflow-task', '--reason', 'test']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const runId = /new run_id ([0-9a-f-]{36})$/m.exec(r.stdout)?.[1];
    expect(runId).toBeDefined();
    const desc = await cli.harness.client.workflow.getHandle(followedId).describe();
    expect(desc.runId).toBe(runId);
    const after = await cli.harness.client.workflow.getHandle(followedId, runId).result();
    expect(after).toMatchObject({ response: 'the answer' });
  });
});
