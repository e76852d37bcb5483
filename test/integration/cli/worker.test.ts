/**
 * `perflow cancel` on a running run, and `perflow worker` serving runs on its task queue until
 * SIGINT.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { useCli } from '../../support/cli';
import { scriptedAgent } from '../../support/harness';
import { ONE_STEP_SCRIPT } from '../../support/script';

jest.setTimeout(120_000);

const cli = useCli('cli-worker');
const perflow = cli.perflow;

const AGENT = scriptedAgent(ONE_STEP_SCRIPT, { name: 'cli-agent' });
let agentFile: string;
beforeAll(() => {
  agentFile = cli.agentFile('agent', AGENT);
});

describe('perflow cancel', () => {
  it('requests cancellation of a running run', async () => {
    // A task queue no worker polls keeps the run open for as long as the test needs.
    const env = { PERFLOW_TASK_QUEUE: `${cli.harness.taskQueue}-idle` };
    const started = await perflow(['run', '--agent', agentFile, '--question', 'idle'], env);
    expect(started.code).toBe(0);
    const id = /^workflow_id: (\S+)$/m.exec(started.stdout)?.[1];
    expect(id).toBeDefined();
    const handle = cli.harness.client.workflow.getHandle(id!);
    try {
      const r = await perflow(['cancel', id!, '--json'], env);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ workflow_id: id, cancel_requested: true });
      const history = await handle.fetchHistory();
      expect(history.events?.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
    } finally {
      await handle.terminate('test cleanup').catch(() => undefined);
    }
  });
});

describe('perflow worker', () => {
  it('runs the workflows on its task queue and stops on SIGINT', async () => {
    const env = { ...process.env, ...cli.env, PERFLOW_TASK_QUEUE: `${cli.harness.taskQueue}-cli-worker` };
    const child = spawn(process.execPath, [resolve(__dirname, '../../../bin/perflow.js'), 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((ok) => child.on('close', ok));
    try {
      for (let i = 0; i < 300 && !stdout.includes('perflow worker connected'); i++) await new Promise((ok) => setTimeout(ok, 100));
      expect(stdout).toContain(`task queue ${env.PERFLOW_TASK_QUEUE}`);
      const r = await perflow(['run', '--agent', agentFile, '--question', 'via the CLI worker', '--wait'], { PERFLOW_TASK_QUEUE: env.PERFLOW_TASK_QUEUE });
      expect(r.stdout.trim()).toBe('the answer');
      expect(r.code).toBe(0);
    } finally {
      child.kill('SIGINT');
    }
    const timeout = new Promise<string>((ok) => setTimeout(() => ok('timeout'), 30_000).unref());
    expect(await Promise.race([exited, timeout])).toBe(0);
    expect(stdout).toContain('perflow worker stopped');
  });
});
