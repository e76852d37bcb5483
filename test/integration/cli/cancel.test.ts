/** `perflow cancel` on a running run (`perflow worker` is started in commands-as-started.test.ts). */
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
